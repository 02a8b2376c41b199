({c.lower() for c in "AbBa"} == {"a", "b"}, sum(x for x in range(5)), max((len(w), w) for w in ["aa", "b", "cc"]), sorted({x % 4 for x in range(20)}), any(c.isdigit() for c in "ab3"))
