fns = [(lambda n=n: n * 10) for n in range(3)]
mats = [[r * c for c in range(3)] for r in range(3)]
([f() for f in fns], mats, [row[i] for i, row in enumerate(mats)])
