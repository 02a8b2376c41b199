class Point:
    __match_args__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y
def where(p):
    match p:
        case Point(0, 0):
            return "origin"
        case Point(x, 0):
            return f"x-axis {x}"
        case Point(0, y=y):
            return f"y-axis {y}"
        case Point(x, y):
            return f"{x},{y}"
[where(Point(*c)) for c in ((0, 0), (3, 0), (0, 4), (1, 2))]
