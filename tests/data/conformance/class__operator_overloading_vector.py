class Vec:
    def __init__(self, *c):
        self.c = c
    def __add__(self, o):
        return Vec(*(a + b for a, b in zip(self.c, o.c)))
    def __sub__(self, o):
        return Vec(*(a - b for a, b in zip(self.c, o.c)))
    def __mul__(self, k):
        return Vec(*(a * k for a in self.c))
    __rmul__ = __mul__
    def __neg__(self):
        return self * -1
    def __abs__(self):
        return sum(a * a for a in self.c) ** 0.5
    def __eq__(self, o):
        return self.c == o.c
    def __repr__(self):
        return f"Vec{self.c}"
a, b = Vec(1, 2), Vec(3, 4)
(a + b, b - a, a * 2, 3 * a, -a, abs(b), a == Vec(1, 2))
