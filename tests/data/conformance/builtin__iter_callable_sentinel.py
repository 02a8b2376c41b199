data = [3, 2, 1, 0, 5]
it = iter(data)
vals = list(iter(lambda: next(it), 0))
(vals, next(it))
