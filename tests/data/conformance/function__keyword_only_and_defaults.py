def f(a, b=2, *args, c, d=4, **kw):
    return (a, b, args, c, d, kw)
(f(1, c=3), f(1, 5, 6, 7, c=8, e=9), f(a=0, c=1, d=2))
