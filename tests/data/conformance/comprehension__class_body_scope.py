class C:
    base = 10
    items = [i * 2 for i in range(3)]
    total = sum(items)
(C.items, C.total)
