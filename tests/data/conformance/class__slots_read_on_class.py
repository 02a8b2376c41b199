class P:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y
p = P(1, 2)
try:
    p.z = 3
except AttributeError:
    r = "no z"
(p.x + p.y, r, P.__slots__)
