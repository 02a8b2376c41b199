class P:
    def __init__(self, x):
        self.x = x
    def __repr__(self):
        return f"P({self.x!r})"
class Q(P):
    def __str__(self):
        return f"<{self.x}>"
(repr(P(1)), str(P("a")), str(Q(2)), repr(Q(2)), f"{Q(3)}", f"{P(4)!r}", [P(5)], "%s" % Q(6))
