(a, b), [c, *d], e = (1, 2), [3, 4, 5, 6], "e"
for i, (k, v) in enumerate({"p": 1, "q": 2}.items()):
    last = (i, k, v)
first, *_, final = range(10)
(a, b, c, d, e, last, first, final)
