def counter(start=0, step=1):
    n = start - step
    def nxt():
        nonlocal n
        n += step
        return n
    return nxt
a, b = counter(), counter(10, 5)
([a() for _ in range(3)], [b() for _ in range(3)], a())
