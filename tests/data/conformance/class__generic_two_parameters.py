from typing import Generic, TypeVar
K = TypeVar("K")
V = TypeVar("V")
class Pair(Generic[K, V]):
    def __init__(self, key: K, value: V):
        self.key, self.value = key, value
    def swap(self) -> "Pair[V, K]":
        return Pair(self.value, self.key)
p = Pair[str, int]("a", 1).swap()
(p.key, p.value, type(p).__name__)
