class Pt:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __eq__(self, other):
        return isinstance(other, Pt) and (self.x, self.y) == (other.x, other.y)
    def __hash__(self):
        return hash((self.x, self.y))
s = {Pt(1, 2), Pt(1, 2), Pt(2, 1)}
(len(s), Pt(1, 2) in s, Pt(0, 0) == 0, Pt(1, 2) != Pt(1, 2))
