"""Values handed to the host as the exact plain type the host named, without calling guest code.

``to_plain(value, hint)`` walks ``value`` along ``hint`` (``int``, ``list[int]``,
``dict[str, list[float]]``, ``Optional[str]``...). Where the hint names a plain type
(``int float complex str bytes list tuple dict set frozenset``) and the value is an instance
of a subclass of it (a guest ``class Evil(int)`` with its own ``__eq__``/``__hash__``/``__str__``,
a ``list`` subclass with its own ``__iter__``), the host gets a copy of the exact plain type,
read from the object's own storage through the plain type's C slots (``int.__int__``,
``list.copy``, ``dict.items``...), so no method of the subclass runs. ``bool`` (a final,
host-made ``int``) stays as it is. Where the hint is not a plain type (``Any``, a class), the
value is left as it is: the host asked for that object.

An exact container whose items need no change is returned as itself (a host list passed as
an argument stays the host's list, so in-place changes are seen); only what holds a subclass
is copied. Recursion follows the hint, not the value, so it is as deep as the hint is.
"""

from __future__ import annotations

import collections.abc as cabc
import types
import typing
from typing import Any

__all__ = ["to_plain"]

NoneType = type(None)

# exact types that are already what any hint naming them wants
_EXACT_SCALARS = frozenset({int, float, complex, str, bytes, bool, NoneType})
_SEQUENCES = frozenset({list, cabc.Sequence, cabc.MutableSequence, cabc.Iterable, cabc.Collection,
                        cabc.Reversible, cabc.Container})
_SETS = frozenset({set, frozenset, cabc.Set, cabc.MutableSet})
_MAPPINGS = frozenset({dict, cabc.Mapping, cabc.MutableMapping})


def _exact_int(v: Any) -> int:
    return int.__int__(v)  # the C slot: a copy of the digits, never the subclass's __int__


def _exact_float(v: Any) -> float:
    return float.__float__(v)


def _exact_complex(v: Any) -> complex:
    return complex(complex.real.__get__(v), complex.imag.__get__(v))


def _exact_str(v: Any) -> str:
    return str.__str__(v)


def _exact_bytes(v: Any) -> bytes:
    return bytes.__getitem__(v, slice(None))  # a full slice of a subclass is an exact copy


# plain scalar -> the conversion from an instance of a subclass (checked in this order)
_SCALAR_COPIES: tuple[tuple[type, Any], ...] = (
    (int, _exact_int), (float, _exact_float), (complex, _exact_complex),
    (str, _exact_str), (bytes, _exact_bytes),
)
_NUMERIC_HINTS = {int: (int,), float: (int, float), complex: (int, float, complex)}


def to_plain(value: Any, hint: Any) -> Any:
    """``value`` with every part that ``hint`` types as a plain type copied to exactly that
    type (see the module docstring); other parts unchanged."""
    kind = type(value)
    if kind in _EXACT_SCALARS:
        return value
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return _union(value, typing.get_args(hint))
    if origin is None:
        origin, args = hint, ()
    else:
        args = typing.get_args(hint)
    if origin in _NUMERIC_HINTS or origin in (str, bytes):
        return _scalar(value, kind, _NUMERIC_HINTS.get(origin, (origin,)))
    if origin is tuple or (origin in _SEQUENCES and issubclass(kind, tuple)):
        return _tuple(value, kind, args if origin is tuple else (*args, ...))
    if origin in _SEQUENCES and issubclass(kind, list):
        # list.copy reads the stored items: no __iter__/__getitem__ of a subclass runs
        items = value if kind is list else list.copy(value)
        item = args[0] if args else typing.Any
        return _rebuilt(value, items, [to_plain(v, item) for v in items]) if item is not typing.Any else items
    if origin in _SETS and issubclass(kind, (set, frozenset)):
        exact = frozenset if issubclass(kind, frozenset) else set
        # copy() of a subclass reads the stored entries and hashes: no __hash__/__eq__ runs
        members = value if kind is exact else exact.copy(value)
        if not args or args[0] is typing.Any:
            return members
        converted = [to_plain(v, args[0]) for v in members]
        return _rebuilt(value, list(members), converted, exact)
    if origin in _MAPPINGS and issubclass(kind, dict):
        key, val = args if len(args) == 2 else (typing.Any, typing.Any)
        pairs = list(dict.items(value))  # the stored pairs: no keys()/__iter__ of a subclass runs
        converted = [(to_plain(k, key), to_plain(v, val)) for k, v in pairs]
        if kind is dict and all(a is c and b is d for (a, b), (c, d) in zip(pairs, converted, strict=True)):
            return value
        return dict(converted)
    return value


def _rebuilt(value: Any, items: list[Any], converted: list[Any], exact: type = list) -> Any:
    """``value`` itself when it is already exact and no item changed (the host keeps its own
    object, e.g. to see in-place changes), else the converted items in the exact type."""
    if type(value) is exact and all(a is b for a, b in zip(items, converted, strict=True)):
        return value
    return converted if exact is list else exact(converted)


def _union(value: Any, arms: tuple[Any, ...]) -> Any:
    # the first arm whose plain copy conforms (Optional[int] with an int subclass -> int)
    from typeguard import TypeCheckError, check_type

    for arm in arms:
        candidate = to_plain(value, arm)
        try:
            check_type(candidate, arm, collection_check_strategy=_ALL_ITEMS())
        except TypeCheckError:
            continue
        return candidate
    return value


def _scalar(value: Any, kind: type, accepted: tuple[type, ...]) -> Any:
    if kind is bool:
        return value
    for plain, copy in _SCALAR_COPIES:
        if plain in accepted and issubclass(kind, plain):
            return copy(value)
    return value


def _tuple(value: Any, kind: type, args: tuple[Any, ...]) -> Any:
    if not issubclass(kind, tuple):
        return value
    items: tuple[Any, ...] = tuple.__getitem__(value, slice(None))  # exact, for a subclass too
    if not args or args == (typing.Any, ...):
        return items
    if len(args) == 2 and args[1] is Ellipsis:
        converted = [to_plain(v, args[0]) for v in items]
    elif len(args) == len(items):
        converted = [to_plain(v, t) for v, t in zip(items, args, strict=True)]
    else:
        return items  # the check reports the length
    return _rebuilt(items, list(items), converted, tuple)


def _ALL_ITEMS() -> Any:
    from typeguard import CollectionCheckStrategy

    return CollectionCheckStrategy.ALL_ITEMS
