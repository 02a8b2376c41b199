from functools import partial, reduce
base2 = partial(int, base=2)
add3 = partial(lambda a, b, c: a + b + c, 1, 2)
(base2("1010"), add3(3), reduce(lambda acc, x: acc * x, range(1, 6)), reduce(lambda a, b: a + b, [], 0), reduce(max, [3, 8, 2]))
