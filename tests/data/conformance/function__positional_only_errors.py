def f(a, b, /, c):
    return a + b + c
try:
    f(a=1, b=2, c=3)
except TypeError as e:
    err = str(e)
(f(1, 2, 3), f(1, 2, c=3), err)
