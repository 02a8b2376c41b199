adders = [lambda x, k=k: x + k for k in range(3)]
late = [lambda x: x + k for k in range(3)]
compose = lambda f, g: lambda x: f(g(x))
([f(10) for f in adders], [f(10) for f in late], compose(abs, lambda v: v - 5)(1), (lambda *a, **kw: (a, kw))(1, 2, z=3))
