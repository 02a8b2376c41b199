"""Meter every host C loop a curated module can run over guest data, generically.

Applied to each module's attributes once, when its wrapper is built (``import_module``):

- a host routine with a price of its own in ``limits.routines`` (``math.factorial``,
  ``operator.pow``) is replaced by that guard;
- other host functions, builtin functions and bound methods are wrapped by
  ``limits.iteration.metered_function``: host iterators they receive tick, long ranges become
  ticking sequences (``math.fsum(range(10**9))``, ``heapq.nlargest(1, range(10**9))``,
  ``operator.countOf(range(10**18), -1)`` stop at the budget);
- host classes (metaclass ``type``, so the interpreter's constructor hook applies) get a
  metered constructor in ``limits.routines`` (``deque(it, maxlen=0)``,
  ``Counter(range(10**9))``), and their bulk-consuming methods (``BULK_METHODS``: ``extend``,
  ``update`` ...) a metered replacement through the membrane's guarded-method table. The class
  itself stays the real class (``isinstance``, subclassing, ``deque[int]``).

A module file may list ``SCALAR_ONLY`` names (functions whose arguments are numbers only,
``math.sqrt``): they are left unwrapped to keep hot numeric loops fast. Everything else is
metered: the safe default.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterable
from typing import Any

from safe_eval.interpreter.identity import is_interpreter_type
from safe_eval.limits.iteration import metered_constructor, metered_function, metered_method
from safe_eval.limits.routines import ROUTINES, price_of, register_routine

__all__ = ["BULK_METHODS", "meter_attrs"]

# Method names that consume whole iterables in C on the host classes curated modules expose.
BULK_METHODS = frozenset(
    {
        "extend",
        "extendleft",
        "__iadd__",  # deque += iterable: extend
        "__ior__",  # OrderedDict |= pairs: update
        "update",
        "subtract",
        "fromkeys",
        "union",
        "intersection",
        "difference",
        "symmetric_difference",
        "issubset",
        "issuperset",
        "isdisjoint",
        "intersection_update",
        "difference_update",
        "symmetric_difference_update",
    }
)

_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial)


def meter_attrs(attrs: dict[str, Any], scalar_only: Iterable[str] = ()) -> dict[str, Any]:
    """``attrs`` with every host callable metered (see the module docstring)."""
    skip = frozenset(scalar_only)
    out: dict[str, Any] = {}
    for name, value in attrs.items():
        priced = price_of(value) if isinstance(value, _FUNCTIONS) else None
        if priced is not None:  # the routine's own price (``math.factorial``, ``operator.pow``)
            value = priced
        elif name not in skip and isinstance(value, _FUNCTIONS):
            value = metered_function(value)
        elif type(value) is type and not is_interpreter_type(value) and not issubclass(value, BaseException):
            _meter_class(value)
        out[name] = value
    return out


def _meter_class(cls: type) -> None:
    from safe_eval.membrane.attributes import register_guarded_methods

    if cls not in ROUTINES:
        register_routine(cls, metered_constructor(cls))
    table: dict[str, Any] = {}
    for name in BULK_METHODS:
        owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
        # builtin owners (dict.update, set.union) are guarded by the limits package already
        if owner is not None and owner.__module__ != "builtins":
            table[name] = metered_method(owner, name)
            if owner is not cls:
                register_guarded_methods(owner, {name: table.pop(name)})
    if table:
        register_guarded_methods(cls, table)
