from itertools import zip_longest, pairwise
(list(zip_longest("ab", "xyz", fillvalue="-")), list(pairwise([1, 2, 4, 7])), [b - a for a, b in pairwise([1, 2, 4, 7])])
