"""One price per host routine: the table every path to a host routine looks up.

A host routine (a C slot such as ``str.__mul__``, a method such as ``str.ljust``, a builtin
type called as a function such as ``bytearray``, a module function such as ``math.factorial``)
can be reached by guest code along many paths: an operator, an attribute of an instance or of
its type (``'ab'.__mul__``, ``str.__mul__``), a builtin name, a module attribute, or as a
callback that host C code calls (``max(xs, key=bytearray)``). The price belongs to the
routine, not to the path, so this module keeps one table, keyed by the routine object itself
(the descriptor in its owner's ``__dict__``, the function, the type), and every path asks it:

- attributes (``membrane.attributes``): ``method_price(owner, name)``, ``owner`` being the class
  whose ``__dict__`` defines ``name``; the guest gets the guard bound to the object;
- calls of builtin types (the interpreter's call path): ``ROUTINES.get(cls)``;
- module wrappers (``membrane.modules._metering``): ``price_of(value)`` for every attribute;
- callbacks: the interpreter's call path replaces a priced type among the arguments of a host
  call by a callable that calls it through the priced call path (``is_priced_type``);
- operators compile to ``operators.guarded_binop``, whose slow paths the slot guards share.

A guard takes the routine's arguments with ``self`` first (``fn(self, *args)``), returns what
the routine returns and raises what it raises for normal inputs; it adds the price check.
Registration goes through ``register_methods``/``register_routine``, never by writing here.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable
from typing import Any

from safe_eval.limits.guards import (
    GUARDED_BUILTINS,
    GUARDED_CONSTRUCTORS,
    GUARDED_METHODS,
    GUARDED_MODULE_ATTRS,
    stdlib_guarded_methods,
)
from safe_eval.limits.slots import slot_guards, stdlib_slot_guards
from safe_eval.limits.stdlib_routines import stdlib_routine_guards, time_strftime

__all__ = [
    "OWNERS",
    "ROUTINES",
    "inherits_priced",
    "is_priced_type",
    "method_price",
    "price_of",
    "register_methods",
    "register_routine",
    "register_stdlib",
    "slot_price",
    "super_price",
]

Guard = Callable[..., Any]

# host routine -> its guard. Read it; write it only through the register functions below.
ROUTINES: dict[Any, Guard] = {}
# classes that own at least one priced method (a fast "nothing to look up" test)
OWNERS: set[type] = set()


def register_routine(routine: Any, guard: Guard) -> None:
    """Price ``routine`` (a function, a type called as a constructor) with ``guard``."""
    ROUTINES[routine] = guard


def register_methods(owner: type, table: dict[str, Guard]) -> None:
    """Price the methods ``owner`` defines: ``{name: guard}``, ``guard(self, *args)``."""
    for name, guard in table.items():
        ROUTINES[owner.__dict__[name]] = guard  # KeyError: owner does not define it (a bug)
    OWNERS.add(owner)


def method_price(owner: type, name: str) -> Guard | None:
    """The guard of ``owner.__dict__[name]``, or None when that routine is free."""
    if owner not in OWNERS:
        return None
    routine = owner.__dict__.get(name)
    return None if routine is None else ROUTINES.get(routine)


def slot_price(tp: type, name: str) -> Guard | None:
    """The guard of the routine ``tp.name`` resolves to (the first class in its MRO defining
    ``name``), or None when that routine is free (or a guest class defines it)."""
    if OWNERS.isdisjoint(tp.__mro__):
        return None
    for klass in tp.__mro__:
        if name in klass.__dict__:
            return method_price(klass, name)
    return None


def inherits_priced(tp: type) -> bool:
    """Some class in ``tp``'s MRO owns a priced routine: its attributes must be looked up
    through ``method_price`` (``class S(str, B)`` and ``class S(str, Enum)`` put ``str`` in
    the middle of the MRO, not just before ``object``)."""
    return not OWNERS.isdisjoint(tp.__mro__)


def super_price(sup: Any, name: str) -> Guard | None:
    """The guard of what ``super().name`` resolves to (``super().__mul__`` in a str subclass)."""
    target = sup.__self__
    mro = (target if isinstance(target, type) else type(target)).__mro__
    start = mro.index(sup.__thisclass__) + 1 if sup.__thisclass__ in mro else len(mro)
    for klass in mro[start:]:
        if name in klass.__dict__:
            return method_price(klass, name)
    return None


def price_of(value: Any) -> Guard | None:
    """The guard of ``value`` when it is a priced host routine (None otherwise)."""
    try:
        return ROUTINES.get(value)
    except TypeError:  # unhashable: no routine is
        return None


def is_priced_type(value: Any) -> bool:
    """A builtin or curated type whose construction is priced (``bytearray``, ``deque``)."""
    return type(value) is type and value in ROUTINES


_stdlib_done = False


def register_stdlib() -> None:
    """Price the routines of stdlib types the cold start does not import (``Decimal``,
    ``Fraction``): called by the membrane before any of them can reach guest code."""
    global _stdlib_done
    if _stdlib_done:
        return
    _stdlib_done = True
    for owner, table in stdlib_slot_guards().items():
        register_methods(owner, table)
    for owner, table in stdlib_guarded_methods().items():
        register_methods(owner, table)
    for owner, table in stdlib_routine_guards().items():
        register_methods(owner, table)


def _register_builtins() -> None:
    for owner, table in slot_guards().items():
        register_methods(owner, table)
    for owner, table in GUARDED_METHODS.items():
        register_methods(owner, table)
    for cls, guard in GUARDED_CONSTRUCTORS.items():
        register_routine(cls, guard)
    for name, guard in GUARDED_BUILTINS.items():
        register_routine(getattr(builtins, name), guard)
    for module_name, attrs in GUARDED_MODULE_ATTRS.items():
        module = __import__(module_name)
        for attr, guard in attrs.items():
            register_routine(getattr(module, attr), guard)
    register_routine(time.strftime, time_strftime)


_register_builtins()
