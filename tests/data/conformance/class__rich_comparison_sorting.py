class Ver:
    def __init__(self, s):
        self.parts = tuple(int(p) for p in s.split("."))
    def __lt__(self, other):
        return self.parts < other.parts
    def __repr__(self):
        return ".".join(map(str, self.parts))
vs = [Ver("1.10"), Ver("1.2"), Ver("1.2.1"), Ver("0.9")]
(sorted(vs), max(vs), min(vs))
