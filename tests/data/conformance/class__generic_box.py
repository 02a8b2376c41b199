from typing import Generic, TypeVar
T = TypeVar("T")
class Box(Generic[T]):
    def __init__(self, item: T) -> None:
        self.item = item
    def get(self) -> T:
        return self.item
class IntBox(Box[int]):
    def double(self):
        return self.item * 2
b = Box[str]("hi")
(b.get(), Box(4).get(), IntBox(5).double(), isinstance(IntBox(1), Box), type(b).__name__)
