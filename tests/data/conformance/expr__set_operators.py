a, b = {1, 2, 3, 4}, {3, 4, 5}
r = (a | b, a & b, a - b, a ^ b, a <= {1, 2, 3, 4, 5}, a > {1}, a.isdisjoint({9}))
a |= {9}
a -= {1}
(sorted(map(sorted, r[:4])), r[4:], sorted(a))
