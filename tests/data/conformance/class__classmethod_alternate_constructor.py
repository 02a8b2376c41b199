class Date:
    def __init__(self, y, m, d):
        self.y, self.m, self.d = y, m, d
    @classmethod
    def parse(cls, s):
        return cls(*map(int, s.split("-")))
    def __repr__(self):
        return f"{type(self).__name__}({self.y}, {self.m}, {self.d})"
class Holiday(Date):
    pass
(Date.parse("2024-01-31"), Holiday.parse("2024-12-25"))
