from typing import TypedDict
class Point(TypedDict):
    x: int
    y: int
class Point3(Point):
    z: int
q = Point3(x=1, y=2, z=3)
(q, Point3(x=0, y=0, z=0) == {"x": 0, "y": 0, "z": 0})
