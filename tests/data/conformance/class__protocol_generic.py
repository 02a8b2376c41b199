from typing import Generic, Protocol, TypeVar, runtime_checkable
T = TypeVar("T")
@runtime_checkable
class Getter(Protocol[T]):
    def get(self) -> T: ...
class Base(Generic[T]):
    def __init__(self, v: T):
        self.v = v
class Impl(Base[int], Getter[int]):
    def get(self) -> int:
        return self.v
class NotOne:
    pass
(Impl(7).get(), isinstance(Impl(1), Getter), isinstance(NotOne(), Getter))
