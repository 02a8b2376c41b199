class Squares:
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n))]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("out of range")
        return i * i
s = Squares(5)
(list(s), s[-1], s[1:4], 9 in s, len(s), sorted(s, reverse=True))
