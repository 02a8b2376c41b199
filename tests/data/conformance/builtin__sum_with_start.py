(sum([1, 2, 3]), sum([1, 2], 10), sum([[1], [2]], []), sum([0.1] * 10), sum(range(101)), sum(x * x for x in range(4)), sum([], 5))
