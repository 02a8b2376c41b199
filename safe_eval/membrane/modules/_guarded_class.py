"""A stand-in for a host data class whose constructor needs a size check first.

``Fraction('1e1000000000')`` computes ``10**1000000000`` inside the constructor: one C call,
gigabytes. The guest gets a stand-in class: calling it checks the arguments, then builds the
real class's instance; ``isinstance``/``issubclass`` answer for the real class, and the listed
class-level helpers (``Fraction.from_float``) are the real ones. Results are real instances.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.annotations import register_stand_in


class GuardedClass(type):
    _real: type
    _check: Callable[..., None]

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._real)

    def __subclasscheck__(cls, sub: Any) -> bool:
        if isinstance(sub, GuardedClass):  # a stand-in stands for its real class here too
            sub = sub._real
        return isinstance(sub, type) and issubclass(sub, cls._real)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        cls._check(*args, **kwargs)
        return cls._real(*args, **kwargs)

    def __repr__(cls) -> str:
        return repr(cls._real)


# an annotation naming the stand-in (``d: Decimal``) means the real class
register_stand_in(GuardedClass, lambda cls: cls._real)


def guarded(real: type, check: Callable[..., None], helpers: list[str]) -> type:
    namespace: dict[str, Any] = {name: getattr(real, name) for name in helpers}
    namespace.update(_real=real, _check=staticmethod(check), __module__=__name__)
    cls = GuardedClass(real.__name__, (), namespace)
    from safe_eval.membrane.modules._hosttypes import allow

    allow(cls, helpers)
    return cls
