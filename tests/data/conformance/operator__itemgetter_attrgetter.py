from operator import itemgetter, attrgetter, methodcaller, add, mul, neg
class P:
    def __init__(self, n, a):
        self.name, self.age = n, a
ps = [P("b", 2), P("a", 3)]
rows = [(1, "z"), (0, "y")]
(sorted(rows, key=itemgetter(0)), itemgetter(1, 0)(rows[0]), [p.name for p in sorted(ps, key=attrgetter("name"))], methodcaller("upper")("x"), add(1, 2), mul(3, 4), neg(5))
