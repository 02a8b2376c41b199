fs = frozenset([1, 2, 2, 3])
d = {fs: "set"}
(len(fs), d[frozenset({3, 2, 1})], fs | {4}, fs & {1, 9}, frozenset() == set(), hash(fs) == hash(frozenset([3, 2, 1])), sorted(fs))
