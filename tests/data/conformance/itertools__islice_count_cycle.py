from itertools import islice, count, cycle, repeat
(list(islice(count(5, 2), 4)), list(islice(cycle("ab"), 5)), list(repeat("x", 3)), list(islice(range(10), 2, 8, 3)), list(islice("abcdef", 3)))
