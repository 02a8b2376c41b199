none = None
out = []
tests = [lambda: [][0], lambda: {}["k"], lambda: 1 + "a", lambda: int("q"), lambda: none(), lambda: [1, 2].index(5), lambda: "a" * 1.5, lambda: {}.pop("z"), lambda: len(5), lambda: (1, 2)[5], lambda: iter(3)]
for t in tests:
    try:
        t()
    except Exception as e:
        out.append(f"{type(e).__name__}: {e}")
out
