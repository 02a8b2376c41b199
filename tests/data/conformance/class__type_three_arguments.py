Point = type("Point", (), {"x": 1, "y": 2, "norm": lambda self: self.x + self.y})
Sub = type("Sub", (Point,), {"z": 3, "__repr__": lambda self: f"Sub({self.z})"})
s = Sub()
(Point.x, Point().norm(), s.norm(), repr(s), Sub.__name__, isinstance(s, Point), Sub.__mro__[1] is Point)
