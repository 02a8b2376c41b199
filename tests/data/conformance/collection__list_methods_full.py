a = [3, 1, 2]
a.insert(0, 9)
a.extend(range(2))
a.remove(1)
popped = a.pop(1)
b = a.copy()
b.reverse()
(a, popped, b, a.index(2), a.count(0), a[::-1], sorted(a) == sorted(b))
