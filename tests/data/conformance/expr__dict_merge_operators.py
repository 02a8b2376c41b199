a = {"x": 1, "y": 2}
b = {"y": 20, "z": 30}
c = a | b
a |= {"w": 0}
(c, a, b | a, list(c))
