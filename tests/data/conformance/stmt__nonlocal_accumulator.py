def make():
    total = 0
    items = []
    def add(x):
        nonlocal total
        total += x
        items.append(x)
        return total
    return add, lambda: (total, items)
add, state = make()
add(3); add(4)
state()
