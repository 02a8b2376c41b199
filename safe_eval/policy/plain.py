"""Plain copies of tool-call arguments: exact builtin types, built without running guest code.

A rule decides on a value and the host then uses it; if the value were a guest ``str`` subclass
with its own ``__str__`` or a ``list`` subclass with its own ``__iter__``, the rule and the host
could see two different things. So every argument of a tool call is replaced, before the rule
sees it, by a plain copy of the data it holds, and the host receives that same copy.

``plain(value) -> (copy, complete)``: ``complete`` is False when some part could not be copied
(a guest object, a proxy, a cycle, nesting deeper than ``MAX_DEPTH``); such parts are kept as
they are (a proxy as the host object it stands for: ``register_handle``), and a rule must not
place a condition on the argument (``conditions`` treats it as "cannot be evaluated").

Each copy is made by a C routine of the builtin type, called on the type, that reads the
object's storage without dispatching to a method a subclass may override (checked per routine
in ``tests/security/test_one_door_out.py``):

    str        str.__str__(x)        (a plain str is returned as is, a subclass copied)
    int        int.__int__(x)        float  float.__float__(x)
    bytes      bytes.__getitem__(x, slice(None))
    complex    complex(complex.real.__get__(x), complex.imag.__get__(x))
    bytearray  bytearray.copy(x)     Decimal (exact type only): kept as it is (its digits are C data)
    Fraction   (exact type only) rebuilt from int copies of its two slots: ``Fraction(GuestInt(5))``
               holds the guest int itself
    list       list.copy(x)          (list_slice: the item array, not __iter__/__getitem__)
    tuple      tuple.__iter__(x)     (tupleiter: the item array)
    dict       dict.items(x)         (a view iterating the hash table, not keys()/__iter__)
    set        set.__iter__(x)       frozenset  frozenset.__iter__(x)

Each container copied is charged its length to the running budget before it is copied.

Not ``dict.copy`` (it calls a subclass's ``keys()`` when ``__iter__`` is overridden), not
``str(x)``/``list(x)``/``dict(x)`` (they dispatch to the subclass). A dict key or set element
that cannot be copied makes the whole container incomplete and it is passed as it is: putting
it into a new dict or set would call its ``__hash__``/``__eq__``, guest code run by the host.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from safe_eval.limits.budget import current

__all__ = ["MAX_DEPTH", "plain", "plain_name", "register_handle"]

# Deeper nesting is not normalised (kept as is, marked incomplete): real tool arguments are
# shallow, and a bound keeps the copy from recursing into Python's own recursion limit.
MAX_DEPTH = 32

_NoneType = type(None)
_EXACT: frozenset[type] = frozenset({str, int, float, bool, bytes, complex, _NoneType})
# subclass -> the base type's own copying routine (see the module docstring)
_ALL = slice(None)
_REAL, _IMAG = complex.real.__get__, complex.imag.__get__  # the C fields, not a guest property


def _bytes_copy(value: bytes) -> bytes:
    # bytes_subscript: a full slice of a subclass copies the stored bytes (3.10 has no
    # bytes.__bytes__; 3.12 lets a class define __buffer__, so not bytes(memoryview(x)))
    return bytes.__getitem__(value, _ALL)


def _complex_copy(value: complex) -> complex:
    return complex(_REAL(value), _IMAG(value))  # 3.10 has no complex.__complex__


_SCALAR_COPIES: tuple[tuple[type, Any], ...] = (
    (str, str.__str__),
    (int, int.__int__),
    (float, float.__float__),
    (bytes, _bytes_copy),
    (complex, _complex_copy),
)


def plain_name(key: Any) -> str | None:
    """A keyword argument's name as an exact ``str`` (None: the key is not a ``str``)."""
    t = type(key)
    if t is str:
        return key  # type: ignore[no-any-return]
    if issubclass(t, str):
        return str.__str__(key)
    return None


# exact type of a host handle -> the host object it stands for (registered by the membrane,
# which owns the handle classes): a tool gets back the very object the host handed out
_HANDLES: dict[type, Callable[[Any], Any]] = {}


def register_handle(kind: type, host_object: Callable[[Any], Any]) -> None:
    """Values of exact type ``kind`` leave the guest as ``host_object(value)``, marked incomplete
    (a rule cannot place a condition on a host object)."""
    _HANDLES[kind] = host_object


def plain(value: Any) -> tuple[Any, bool]:
    """``(copy, complete)``: ``value`` as exact builtin types, deeply (see the module docstring)."""
    if type(value) in _EXACT:
        return value, True
    return _copy(value, 0, set())


def _copy(value: Any, depth: int, path: set[int]) -> tuple[Any, bool]:
    t = type(value)
    if t in _EXACT:
        return value, True
    for base, routine in _SCALAR_COPIES:
        if issubclass(t, base):
            return routine(value), True
    if _exact_decimal(t):
        return value, True  # immutable C data, nothing a guest object can hide in
    fraction = _exact_fraction(t)
    if fraction is not None:
        return _fraction_copy(fraction, value)
    host_object = _HANDLES.get(t)
    if host_object is not None:
        return host_object(value), False
    if depth >= MAX_DEPTH or id(value) in path:
        return value, False
    if issubclass(t, list):
        _pay(list.__len__(value))
        return _items(list.copy(value), list, value, depth, path)
    if issubclass(t, tuple):
        _pay(tuple.__len__(value))
        return _items(tuple.__iter__(value), tuple, value, depth, path)
    if issubclass(t, dict):
        _pay(dict.__len__(value))
        return _dict(value, depth, path)
    if issubclass(t, frozenset):
        _pay(frozenset.__len__(value))
        return _set(frozenset.__iter__(value), frozenset, value, depth, path)
    if issubclass(t, set):
        _pay(set.__len__(value))
        return _set(set.__iter__(value), set, value, depth, path)
    if issubclass(t, bytearray):
        return bytearray.copy(value), True
    return value, False


def _pay(items: int) -> None:
    # copying is work the guest asked for, one op per item, charged before it is done (as
    # ``list(x)`` is): a tool called in a loop with a large list cannot multiply it for free
    budget = current()
    if budget is not None:
        budget.charge(items)


def _exact_decimal(t: type) -> bool:
    # looked up, not imported: a run that never imported decimal holds none; only the C
    # implementation keeps its digits out of reach (``_pydecimal`` stores Python ints)
    decimal = sys.modules.get("decimal")
    return decimal is not None and t is decimal.Decimal and t.__module__ == "decimal" and (
        "_decimal" in sys.modules and t is sys.modules["_decimal"].Decimal
    )


def _exact_fraction(t: type) -> Any:
    fractions = sys.modules.get("fractions")
    return fractions.Fraction if fractions is not None and t is fractions.Fraction else None


def _fraction_copy(fraction: Any, value: Any) -> tuple[Any, bool]:
    # the slots read by their descriptors (not the ``numerator`` property); Fraction is pure
    # Python, so a guest can make them hold anything (``Fraction(I(3))`` for an int subclass
    # whose ``numerator`` is a guest object): only two ints, copied as any int argument is and
    # normalised again by host arithmetic on exact ints, make a plain Fraction
    num = fraction._numerator.__get__(value)
    den = fraction._denominator.__get__(value)
    if not all(issubclass(type(n), int) and type(n) is not bool for n in (num, den)):
        return value, False
    num, den = int.__int__(num), int.__int__(den)
    if den == 0:
        return value, False
    return fraction(num, den), True


def _items(items: Any, kind: type, value: Any, depth: int, path: set[int]) -> tuple[Any, bool]:
    path.add(id(value))
    out = []
    complete = True
    for item in items:
        copy, ok = _copy(item, depth + 1, path)
        out.append(copy)
        complete = complete and ok
    path.discard(id(value))
    return (out if kind is list else tuple(out)), complete


def _dict(value: Any, depth: int, path: set[int]) -> tuple[Any, bool]:
    path.add(id(value))
    out: dict[Any, Any] = {}
    complete = True
    for key, item in list(dict.items(value)):
        plain_key, key_ok = _copy(key, depth + 1, path)
        if not key_ok:
            path.discard(id(value))
            return value, False
        copy, ok = _copy(item, depth + 1, path)
        if plain_key in out:
            # two guest keys whose plain texts are equal: the host would see one of them only
            path.discard(id(value))
            return value, False
        out[plain_key] = copy
        complete = complete and ok
    path.discard(id(value))
    return out, complete


def _set(items: Any, kind: type, value: Any, depth: int, path: set[int]) -> tuple[Any, bool]:
    path.add(id(value))
    out = []
    for item in items:
        copy, ok = _copy(item, depth + 1, path)
        if not ok:
            path.discard(id(value))
            return value, False
        out.append(copy)
    path.discard(id(value))
    copied = kind(out)
    if len(copied) != len(out):
        return value, False  # two guest elements with equal plain data: ambiguous
    return copied, True
