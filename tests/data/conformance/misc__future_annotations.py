from __future__ import annotations
def f(x: UndefinedType) -> AlsoUndefined:
    return x * 2
class C:
    field: NotDefined = 3
(f(21), C.field)
