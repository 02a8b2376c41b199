a = b = c = []
a.append(1)
x, y = y2, x2 = 1, 2
(a, b, c, a is c, x, y, x2, y2)
