from abc import ABC, abstractmethod
class Shape(ABC):
    @abstractmethod
    def area(self):
        ...
    def describe(self):
        return f"{type(self).__name__} with area {self.area():.1f}"
class Sq(Shape):
    def __init__(self, s):
        self.s = s
    def area(self):
        return self.s ** 2
try:
    Shape()
except TypeError:
    r = "abstract"
(Sq(3).describe(), r)
