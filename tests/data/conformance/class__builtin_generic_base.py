class IntList(list[int]):
    def total(self):
        return sum(self)
class Registry(dict[str, int]):
    pass
r = Registry(a=1)
(IntList([1, 2, 3]).total(), r, type(r).__name__, isinstance(r, dict))
