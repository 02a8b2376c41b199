"""Prices of the data dunders of builtin and stdlib number types, as routines.

``'ab'.__mul__(10**9)``, ``(7).__pow__(10**8)``, ``int.__lshift__(1, 10**10)`` and
``Decimal('1E+999999').__int__()`` reach the same C routines as ``'ab' * 10**9`` or
``int(d)``; the operators are priced by ``operators.guarded_binop``, and these guards give the
slots the same prices (they share the slow paths), so the routine costs the same whichever
path reaches it. Each guard has the slot's own calling convention (``fn(self, other)``) and
returns what the slot returns, ``NotImplemented`` included; only the price check is added.
``slot_guards()`` returns ``{owner type: {dunder: guard}}`` for ``routines`` to register.
"""

from __future__ import annotations

import operator
import sys
from collections import deque
from collections.abc import Callable
from typing import Any

from safe_eval.limits.estimates import SEQ_TYPES, repr_bytes, seq_item_size
from safe_eval.limits.guards import price_round, show_as
from safe_eval.limits.iteration import metered, update_source
from safe_eval.limits.numbers import check_operands, check_to_int
from safe_eval.limits.operators import (
    add_slow,
    charge_bytes,
    divlike_slow,
    guarded_contains,
    lshift_slow,
    mul_slow,
    pow_modular_check,
    pow_slow,
    price_slice,
)
from safe_eval.limits.sharing import check_walk

__all__ = ["slot_guards"]

Guard = Callable[..., Any]
Slow = Callable[[Any, Any, Callable[[Any, Any], Any]], Any]


def _sequence_repeat(raw: Guard) -> Guard:
    """``seq.__mul__``/``__rmul__``/``__imul__``: the count is read once (a guest
    ``__index__`` cannot show the check one number and the slot another)."""

    def repeat(self: Any, count: Any) -> Any:
        if type(count) is not int:  # an int subclass too: its digits, not its comparisons
            try:
                count = operator.index(count)
            except TypeError:
                return NotImplemented
        n = len(self)
        if n and 0 < count <= sys.maxsize:
            charge_bytes(sys.getsizeof(self) // 2 + n * count * seq_item_size(self))
        return raw(self, count)

    return repeat


def _forward(slow: Slow, raw: Guard) -> Guard:
    """``self OP other``: the operator's slow path, computing with the raw slot."""

    def slot(self: Any, other: Any) -> Any:
        return slow(self, other, lambda a, b: raw(self, other))

    return slot


def _reflected(slow: Slow, raw: Guard) -> Guard:
    """``other OP self`` (``__rmul__`` ...): priced with the operands in operator order."""

    def slot(self: Any, other: Any) -> Any:
        return slow(other, self, lambda a, b: raw(self, other))

    return slot


def _int_mul(raw: Guard) -> Guard:
    def slot(self: Any, other: Any) -> Any:
        if isinstance(other, int):
            return mul_slow(self, other, lambda a, b: raw(self, other))
        return raw(self, other)  # NotImplemented for sequences and other types

    return slot


def _pow(raw: Guard, reflected: bool) -> Guard:
    def slot(self: Any, other: Any, mod: Any = None) -> Any:
        base, exp = (other, self) if reflected else (self, other)
        if mod is None:
            return pow_slow(base, exp, lambda a, b: raw(self, other))
        pow_modular_check(base, exp, mod)
        return raw(self, other, mod)

    return slot


def _priced_text(raw: Guard) -> Guard:
    """``x.__repr__()``/``x.__str__()``: escaping can make the text many times the data."""

    def slot(self: Any) -> Any:
        if type(self) is int:
            check_to_int(self)
        nbytes = repr_bytes(self)
        if nbytes:
            charge_bytes(nbytes)
        return raw(self)

    return slot


def _to_int(raw: Guard) -> Guard:
    """``Decimal.__int__``/``__floor__``/``__round__`` ...: an exact (huge) int."""

    def slot(self: Any, *args: Any) -> Any:
        if not args:
            check_to_int(self)
        else:
            check_operands(self, args[0])
        return raw(self, *args)

    return slot


def _exact_binop(raw: Guard, pow_: bool, reflected: bool) -> Guard:
    """Decimal and Fraction arithmetic: ``numbers.check_operands``."""

    def slot(self: Any, other: Any, *rest: Any) -> Any:
        if reflected:
            check_operands(other, self, pow_)
        else:
            check_operands(self, other, pow_)
        return raw(self, other, *rest)

    return slot


def _walk1(raw: Guard) -> Guard:
    """``t.__hash__()`` of a nested container: one C walk of the whole tree."""

    def slot(self: Any) -> Any:
        check_walk(self)
        return raw(self)

    return slot


def _walk2(raw: Guard) -> Guard:
    """``a.__eq__(b)``/``__lt__`` ... of nested containers: one C walk of both trees."""

    def slot(self: Any, other: Any) -> Any:
        check_walk(self, other)
        return raw(self, other)

    return slot


def _round(raw: Guard) -> Guard:
    def slot(self: Any, *args: Any) -> Any:
        if not args:
            price_round(self, None)
            return raw(self)
        return raw(self, price_round(self, args[0]), *args[1:])

    return slot


def _contains(raw: Guard) -> Guard:
    def slot(self: Any, item: Any) -> bool:
        return guarded_contains(item, self)

    return slot


def _extend(raw: Guard) -> Guard:
    """``list.__iadd__``: extends from any iterable, pulled through the metered door."""

    def slot(self: Any, other: Any) -> Any:
        return raw(self, metered(other))

    return slot


def _store(raw: Guard) -> Guard:
    """``list.__setitem__``/``bytearray.__setitem__``: a slice assignment copies its value."""

    def slot(self: Any, key: Any, value: Any) -> Any:
        if type(key) is slice:
            value = metered(value)
        return raw(self, key, value)

    return slot


def _update(raw: Guard) -> Guard:
    """``dict.__ior__``: a mapping or an iterable of pairs, pulled in C through the door."""

    def slot(self: Any, other: Any) -> Any:
        return raw(self, update_source(other))

    return slot


_INT_SLOTS: dict[str, Callable[[Guard], Guard]] = {
    "__mul__": _int_mul,
    "__rmul__": _int_mul,
    "__pow__": lambda raw: _pow(raw, False),
    "__rpow__": lambda raw: _pow(raw, True),
    "__lshift__": lambda raw: _forward(lshift_slow, raw),
    "__rlshift__": lambda raw: _reflected(lshift_slow, raw),
    "__mod__": lambda raw: _forward(divlike_slow, raw),
    "__rmod__": lambda raw: _reflected(divlike_slow, raw),
    "__floordiv__": lambda raw: _forward(divlike_slow, raw),
    "__rfloordiv__": lambda raw: _reflected(divlike_slow, raw),
    "__divmod__": lambda raw: _forward(divlike_slow, raw),
    "__rdivmod__": lambda raw: _reflected(divlike_slow, raw),
    "__repr__": _priced_text,
    "__str__": _priced_text,
    "__round__": lambda raw: _round(raw),
}

def _slice_getitem(raw: Guard) -> Guard:
    """``seq.__getitem__(slice)``: the copy the subscript prices (``operators.price_slice``)."""

    def slot(self: Any, key: Any) -> Any:
        if type(key) is slice:
            price_slice(self, key)
        return raw(self, key)

    return slot


_SEQ_SLOTS: dict[str, Callable[[Guard], Guard]] = {
    "__getitem__": _slice_getitem,
    "__mul__": _sequence_repeat,
    "__rmul__": _sequence_repeat,
    "__imul__": _sequence_repeat,
    "__add__": lambda raw: _forward(add_slow, raw),
    "__iadd__": lambda raw: _forward(add_slow, raw),
    "__repr__": _priced_text,
    "__str__": _priced_text,
}

# ``deque * n`` copies n times like a list (one pointer per item)
_REPEAT_SLOTS: dict[str, Callable[[Guard], Guard]] = {
    name: _sequence_repeat for name in ("__mul__", "__rmul__", "__imul__")
}

_TEXT_SLOTS: dict[str, Callable[[Guard], Guard]] = {
    **_SEQ_SLOTS,
    "__mod__": lambda raw: _forward(divlike_slow, raw),
    "__rmod__": lambda raw: _reflected(divlike_slow, raw),
}

_WALKS: dict[str, Callable[[Guard], Guard]] = {
    "__hash__": _walk1,
    **{name: _walk2 for name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")},
}
_CONTAINER_SLOTS: dict[str, Callable[[Guard], Guard]] = {
    "__repr__": _priced_text,
    "__str__": _priced_text,
    **_WALKS,
}

_EXACT_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "divmod", "pow")
_TO_INT = ("__int__", "__floor__", "__ceil__", "__trunc__", "__round__")


def _exact_slots(cls: type) -> dict[str, Guard]:
    table: dict[str, Guard] = {}
    for op in _EXACT_ARITHMETIC:
        for name, reflected in ((f"__{op}__", False), (f"__r{op}__", True)):
            if name in cls.__dict__:
                table[name] = _exact_binop(getattr(cls, name), op == "pow", reflected)
    for name in _TO_INT:
        if name in cls.__dict__:
            table[name] = _to_int(getattr(cls, name))
    for name in ("__repr__", "__str__"):
        if name in cls.__dict__:
            table[name] = _priced_text(getattr(cls, name))
    return table


def _table(cls: type, makers: dict[str, Callable[[Guard], Guard]]) -> dict[str, Guard]:
    return {name: make(cls.__dict__[name]) for name, make in makers.items() if name in cls.__dict__}


def _shown_as_their_slots(table: dict[type, dict[str, Guard]]) -> dict[type, dict[str, Guard]]:
    """Each guard answers to its slot's name and text (``str.__str__`` is ``<slot wrapper
    '__str__' of 'str' objects>`` to the guest, as in CPython, not the guard's own)."""
    for owner, guards in table.items():
        for name, guard in guards.items():
            raw = owner.__dict__.get(name)
            if raw is None or not hasattr(guard, "__code__"):
                continue
            guard.__name__ = name
            guard.__qualname__ = f"{owner.__qualname__}.{name}"
            show_as(guard, repr(raw))
    return table


def slot_guards() -> dict[type, dict[str, Guard]]:
    """The priced slots of the builtin types (``{owner: {dunder: guard}}``)."""
    table: dict[type, dict[str, Guard]] = {int: _table(int, _INT_SLOTS)}
    for cls in SEQ_TYPES:
        table[cls] = _table(cls, _TEXT_SLOTS if cls in (str, bytes, bytearray) else {**_SEQ_SLOTS, **_WALKS})
    for container in (dict, set, frozenset):
        table[container] = _table(container, _CONTAINER_SLOTS)
    table[range] = {"__contains__": _contains(range.__contains__)}
    table[list]["__iadd__"] = _extend(list.__dict__["__iadd__"])
    for store in (list, bytearray):
        table[store]["__setitem__"] = _store(store.__dict__["__setitem__"])
    table[dict]["__ior__"] = _update(dict.__dict__["__ior__"])
    table[deque] = _table(deque, _REPEAT_SLOTS)
    return _shown_as_their_slots(table)


def stdlib_slot_guards() -> dict[type, dict[str, Guard]]:
    """The priced slots of ``decimal.Decimal`` and ``fractions.Fraction`` (imports them)."""
    import decimal
    import fractions

    return _shown_as_their_slots({cls: _exact_slots(cls) for cls in (decimal.Decimal, fractions.Fraction)})
