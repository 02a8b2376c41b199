def f():
    "doc"
    return 1
f.calls = 3
(f.__name__, f.calls, f(), callable(f))
