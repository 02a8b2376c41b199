from itertools import combinations, permutations, product, combinations_with_replacement
(list(combinations("abc", 2)), len(list(permutations(range(4), 2))), list(product([0, 1], repeat=2)), list(combinations_with_replacement("ab", 2)), list(product("ab", "c")))
