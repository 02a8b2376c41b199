r = range(10, 0, -3)
(list(r), len(r), r[1], r[-1], 4 in r, 7 in r, list(r[1:3]), r.index(4), range(5) == range(0, 5), list(range(0)), list(range(-3)), range(1, 10, 2).count(3))
