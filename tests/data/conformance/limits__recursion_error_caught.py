def down(n):
    return down(n + 1)
try:
    down(0)
    r = "not raised"
except RecursionError as e:
    r = (type(e).__name__, isinstance(e, RuntimeError), str(e).startswith("maximum recursion depth exceeded"))
r
