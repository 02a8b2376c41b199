(set("hello") == {"h", "e", "l", "o"}, sorted(set([3, 1, 3])), set(), len({1, 1.0, True}), sorted({x % 3 for x in range(10)}), set({"a": 1}))
