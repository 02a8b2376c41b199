class Acc:
    def __init__(self, v):
        self.v = v
    def __radd__(self, other):
        return Acc(other + self.v)
    def __iadd__(self, other):
        self.v += other
        return self
    def __repr__(self):
        return f"Acc({self.v})"
a = Acc(1)
b = a
a += 5
(a, a is b, 10 + Acc(2), sum([Acc(1), Acc(2)], 0) if False else "skip")
