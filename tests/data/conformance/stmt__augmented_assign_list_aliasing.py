a = [1]
b = a
a += [2]
t = (1,)
u = t
t += (2,)
(a, b, a is b, t, u)
