t = (1, 2, 2, 3, 2)
(t.count(2), t.index(3), t[1:3], t + (4,), tuple("ab"), tuple({"k": 1}), (1,) < (1, 0), tuple() == (), len(t))
