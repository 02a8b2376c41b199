from itertools import takewhile, dropwhile, filterfalse, compress, starmap
(list(takewhile(lambda x: x < 3, [1, 2, 5, 1])), list(dropwhile(lambda x: x < 3, [1, 2, 5, 1])), list(filterfalse(str.isdigit, "a1b2")), list(compress("abcd", [1, 0, 1, 0])), list(starmap(pow, [(2, 3), (3, 2)])))
