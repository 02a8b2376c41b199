d = {"a": 1, "b": 2, "c": 1}
inv = {}
for k, v in d.items():
    inv.setdefault(v, []).append(k)
({v: k for k, v in d.items()}, inv, {k: len(k) for k in ("x", "yy")}, {n: n * n for n in range(4) if n})
