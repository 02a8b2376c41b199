def check(x):
    return 0 < x < 10, 1 <= x != 5, x == x <= x
[check(v) for v in (0, 5, 9, 12)] + [1 < 2 > 1 == 1.0, "a" < "b" < "c", [1, 2] < [1, 3]]
