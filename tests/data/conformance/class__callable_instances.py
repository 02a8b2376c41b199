class Multiplier:
    def __init__(self, k):
        self.k = k
    def __call__(self, x, *, twice=False):
        return x * self.k * (2 if twice else 1)
m = Multiplier(3)
(m(2), m(2, twice=True), list(map(m, [1, 2])), callable(m))
