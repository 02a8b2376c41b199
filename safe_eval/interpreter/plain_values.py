"""Values handed to the host as exact plain types, without calling guest code.

``to_plain(value, hint)`` walks ``value`` along ``hint`` (``int``, ``list[int]``,
``dict[str, list[float]]``, ``Optional[str]``, ``Iterable[str]``...). A value whose type is a
subclass of a plain type (``int float complex str bytes bytearray list tuple dict set
frozenset``), where the hint is a class that plain type satisfies (``int``; ``float`` for an ``int``;
``Sequence``/``Iterable``/``Collection``/``object`` for a ``list``...), reaches the host as
exactly that plain type: a guest ``class Evil(int)`` with its own ``__eq__``/``__hash__``/
``__str__``, a ``list`` subclass with its own ``__iter__``. The copy is read from the object's
own storage through the plain type's C slots (``int.__int__``, ``list.copy``, ``dict.items``...),
so no method of the subclass runs. ``bool`` (a final, host-made ``int``) stays as it is. Where
the hint is ``Any`` (or a type variable, a ``Literal``...), the value is left as it is: the host
asked for whatever the guest made.

An exact container whose items need no change is returned as itself (a host list passed as
an argument stays the host's list, so in-place changes are seen); only what holds a subclass
is copied. Recursion follows the hint, not the value, so it is as deep as the hint is.
"""

from __future__ import annotations

import types
import typing
from typing import Any

__all__ = ["to_plain"]

NoneType = type(None)

# exact types that are already what any hint accepting them wants
_EXACT_SCALARS = frozenset({int, float, complex, str, bytes, bool, NoneType})
# the plain types, in the order a subclass is matched to its plain base
_PLAIN = (int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset)
# plain types a hint accepts though they are not subclasses of it, as typeguard accepts them
_ALSO_ACCEPTED = {float: (int,), complex: (int, float), bytes: (bytearray,)}


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


_SCALAR_COPIES: dict[type, Any] = {
    int: _exact_int, float: _exact_float, complex: _exact_complex, str: _exact_str,
    bytes: _exact_bytes, bytearray: bytearray.copy,
}


def to_plain(value: Any, hint: Any) -> Any:
    """``value`` with every part that ``hint`` accepts as a plain type copied to exactly that
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
    if origin is typing.Any or not isinstance(origin, type):  # Any, a TypeVar, Literal...
        return value  # the host takes it as it is
    plain = next((p for p in _PLAIN if issubclass(kind, p)), None)
    if plain is None or not (issubclass(plain, origin) or plain in _ALSO_ACCEPTED.get(origin, ())):
        return value  # not a plain value, or one the hint refuses: the type check reports it
    copy = _SCALAR_COPIES.get(plain)
    if copy is not None:
        return copy(value)
    if plain is tuple:
        return _tuple(value, args if origin is tuple else (args[0], ...) if args else ())
    if plain is dict:
        if len(args) == 2:
            return _dict(value, *args)
        # Iterable[str] (or a bare hint) over a dict: what it types is the keys
        return _dict(value, args[0] if args else typing.Any, typing.Any)
    item = args[0] if len(args) == 1 else typing.Any
    if plain is list:
        # list.copy reads the stored items: no __iter__/__getitem__ of a subclass runs
        return _rebuilt(value, value if kind is list else list.copy(value), item, list)
    # set.copy/frozenset.copy of a subclass read the stored entries and hashes: no
    # __iter__/__hash__/__eq__ of the subclass runs
    copier: Any = plain
    return _rebuilt(value, value if kind is plain else copier.copy(value), item, plain)


def _union(value: Any, arms: tuple[Any, ...]) -> Any:
    # the first arm whose plain copy conforms (Optional[int] with an int subclass -> int)
    from typeguard import CollectionCheckStrategy, TypeCheckError, check_type

    for arm in arms:
        candidate = to_plain(value, arm)
        try:
            check_type(candidate, arm, collection_check_strategy=CollectionCheckStrategy.ALL_ITEMS)
        except TypeCheckError:
            continue
        return candidate
    return value


def _rebuilt(value: Any, items: Any, item: Any, exact: type) -> Any:
    """``value`` itself when it is already exact and no item changes (the host keeps its own
    object), else the items, each made plain along ``item``, in the exact type."""
    if item is typing.Any:
        return items
    members = list(items)
    converted = [to_plain(v, item) for v in members]
    if type(value) is exact and all(a is b for a, b in zip(members, converted, strict=True)):
        return value
    return converted if exact is list else exact(converted)


def _tuple(value: Any, args: tuple[Any, ...]) -> Any:
    items: tuple[Any, ...] = tuple.__getitem__(value, slice(None))  # exact, for a subclass too
    if not args or args == (typing.Any, ...):
        return items
    if len(args) == 2 and args[1] is Ellipsis:
        converted = [to_plain(v, args[0]) for v in items]
    elif len(args) == len(items):
        converted = [to_plain(v, t) for v, t in zip(items, args, strict=True)]
    else:
        return items  # the check reports the length
    if all(a is b for a, b in zip(items, converted, strict=True)):
        return items
    return tuple(converted)


def _dict(value: Any, key: Any, val: Any) -> Any:
    pairs = list(dict.items(value))  # the stored pairs: no keys()/__iter__ of a subclass runs
    converted = [(to_plain(k, key), to_plain(v, val)) for k, v in pairs]
    unchanged = all(a is c and b is d for (a, b), (c, d) in zip(pairs, converted, strict=True))
    if type(value) is dict and unchanged:
        return value
    return dict(converted)
