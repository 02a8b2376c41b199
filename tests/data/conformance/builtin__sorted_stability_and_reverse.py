recs = [("b", 2), ("a", 2), ("c", 1), ("d", 3)]
(sorted(recs, key=lambda r: r[1]), sorted(recs, key=lambda r: r[1], reverse=True), sorted("bca"), sorted([3, 1, 2], reverse=True), sorted({"x": 1, "a": 2}))
