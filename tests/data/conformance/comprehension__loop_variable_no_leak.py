x = "outer"
r = [x for x in range(3)]
s = {x: 1 for x in "ab"}
(x, r, s)
