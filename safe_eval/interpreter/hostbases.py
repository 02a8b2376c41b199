"""Guest classes built on host classes (``class L(list)``, ``class C(collections.Counter)``).

Their inherited constructors and methods are host code that may loop in C over an argument
(``list.__init__(range(10**9))`` allocates in one call; ``Counter``'s counting loop runs no
bytecode): neither the op counter nor the watchdog can stop such a loop, so the interpreter
passes the arguments of these calls through ``limits.iteration.consume`` (a sized container is
charged its length up front, a lazy host iterator ticks per element).
"""

from __future__ import annotations

from typing import Any

from safe_eval.interpreter.identity import WeakTypeMap, is_guest_class
from safe_eval.limits.iteration import consume

__all__ = ["builds_on_host_class", "consumed"]

# Host types (``range``, ``int`` ... called on every loop) are answered from a plain dict, one
# lookup; guest classes, created per evaluation, from a weak one so they can be collected.
_host_types: dict[type, bool] = {}
_guest_types: WeakTypeMap[bool] = WeakTypeMap()


def builds_on_host_class(cls: type) -> bool:
    """True for a guest class with a host base other than ``object`` or an exception class."""
    known = _host_types.get(cls)
    if known is not None:
        return known
    if not is_guest_class(cls):
        _host_types[cls] = False
        return False
    known = _guest_types.get(cls)
    if known is None:
        known = any(
            base is not object and not is_guest_class(base) and not issubclass(base, BaseException)
            for base in cls.__mro__[1:]
        )
        _guest_types.set(cls, known)
    return known


def consumed(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple([consume(a) for a in args]) if args else args
