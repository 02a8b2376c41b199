"""Curated ``enum``: the enum base classes (registered as subclassable) and helpers.

A guest ``class Color(Enum)`` is built by the host ``EnumType`` from a body the interpreter
ran; guest methods in the body stay guest functions, and the interpreter marks the class as
guest-made. The functional API (``Enum('Color', 'RED GREEN')``) builds the class on the host
from names only (no exec), from a plain copy of them checked once (``_functional``: the
builder never sees the guest's object); ``_GuestEnumType`` marks that class too, so the guest
may use it like one it wrote. The guest's ``Enum``/``IntEnum``/... are empty subclasses of the host ones
with that metaclass (``isinstance(x, enum.Enum)`` still holds on the host side).
"""

from __future__ import annotations

import enum
from typing import Any

from safe_eval.interpreter.compile_expr import priced_class
from safe_eval.interpreter.identity import is_guest_class, register_guest_class
from safe_eval.limits.indices import as_index
from safe_eval.membrane.modules._util import pick
from safe_eval.membrane.snapshot import snapshot, snapshot_items, snapshot_text

HELPERS = ["auto", "unique", "verify", "UNIQUE", "CONTINUOUS", "NAMED_FLAGS", "member", "nonmember"]


_MIXINS = (int, str, float, bytes)


def _names(names: Any) -> Any:
    """``names`` as plain data, read once: an exact ``str``, a list of exact ``str`` or of
    ``(str, value)`` pairs, or a dict keyed by exact ``str``; every name checked (``_`` names
    refused: dunders there would be hooks the class builder's allowlist never saw). The class
    builder gets this copy only, never the guest's object."""
    text = snapshot_text(names)
    if text is not None:
        names = text.replace(",", " ").split()
    elif issubclass(type(names), dict):
        names = snapshot(names)
        for name in names:
            _check_name(name)
        return names
    else:
        names = [_member(item) for item in snapshot_items(names)]
    for item in names:
        _check_name(item if type(item) is str else item[0])
    return names


def _member(item: Any) -> Any:
    text = snapshot_text(item)
    if text is not None:
        return text
    pair = snapshot_items(item)
    if len(pair) != 2:  # CPython's unpacking error
        if len(pair) > 2:
            raise ValueError("too many values to unpack (expected 2)")
        raise ValueError(f"not enough values to unpack (expected 2, got {len(pair)})")
    name = snapshot_text(pair[0])
    return (pair[0] if name is None else name), pair[1]


def _check_name(name: Any) -> None:
    if type(name) is not str:  # CPython's error is a TypeError too (its builder takes len())
        raise TypeError(f"enum member names must be str, not {type(name).__name__}")
    if name.startswith("_"):
        raise ValueError(f"enum member name {name!r} is not allowed in safe-eval")


def _check_mixin(mixin: Any) -> None:
    if mixin is not None and mixin not in _MIXINS and not (isinstance(mixin, type) and is_guest_class(mixin)):
        raise TypeError("enum type= must be int, str, float, bytes or a class defined in guest code")


def _functional(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The functional API's arguments as the plain copy the host class builder gets."""
    out = dict(kwargs)
    if args:
        args = (_names(args[0]), *args[1:])
    elif "names" in out:
        out["names"] = _names(out["names"])
    if "type" in out:
        # ``int`` handed to a host call comes as a priced callback: the builder gets the class
        out["type"] = priced_class(out["type"]) or out["type"]
        _check_mixin(out["type"])
    for key in ("module", "qualname"):
        if out.get(key) is not None:
            text = snapshot_text(out[key])
            if text is None:
                raise TypeError(f"enum {key}= must be a str")
            out[key] = text
    if "start" in out:
        out["start"] = as_index(out["start"])
    boundary = out.get("boundary")
    if boundary is not None and type(boundary) is not getattr(enum, "FlagBoundary", None):
        raise TypeError("enum boundary= must be an enum.FlagBoundary")
    return args, out


# ``EnumType`` is the 3.11 name of ``EnumMeta`` (which 3.10 has alone)
_ENUM_TYPE: Any = getattr(enum, "EnumType", enum.EnumMeta)


class _GuestEnumType(_ENUM_TYPE):  # type: ignore[misc]
    def __call__(cls, value: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:  # the functional API (every keyword, ``type=`` included, is its)
            args, kwargs = _functional(args, kwargs)
            text = snapshot_text(value)
            value = value if text is None else text
        result = super().__call__(value, *args, **kwargs)
        if isinstance(result, type):  # the functional API made a new enum class
            register_guest_class(result)
        return result


class Enum(enum.Enum, metaclass=_GuestEnumType):
    pass


class IntEnum(enum.IntEnum, metaclass=_GuestEnumType):
    pass


class Flag(enum.Flag, metaclass=_GuestEnumType):
    pass


class IntFlag(enum.IntFlag, metaclass=_GuestEnumType):
    pass


BASES: tuple[type, ...] = (Enum, IntEnum, Flag, IntFlag)

if hasattr(enum, "StrEnum"):  # 3.11+
    class StrEnum(enum.StrEnum, metaclass=_GuestEnumType):
        pass

    BASES += (StrEnum,)


def build() -> dict[str, Any]:
    attrs = pick(enum, [n for n in HELPERS if hasattr(enum, n)])
    attrs.update({cls.__name__: cls for cls in BASES})
    # EnumMeta/EnumType are left out: calling a metaclass builds a class from an arbitrary
    # namespace, around the class builder's dunder allowlist
    return attrs
