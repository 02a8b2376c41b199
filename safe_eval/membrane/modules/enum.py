"""Curated ``enum``: the enum base classes (registered as subclassable) and helpers.

A guest ``class Color(Enum)`` is built by the host ``EnumType`` from a body the interpreter
ran; guest methods in the body stay guest functions, and the interpreter marks the class as
guest-made. The functional API (``Enum('Color', 'RED GREEN')``) builds the class on the host
from names only (no exec); ``_GuestEnumType`` marks that class too, so the guest may use it
like one it wrote. The guest's ``Enum``/``IntEnum``/... are empty subclasses of the host ones
with that metaclass (``isinstance(x, enum.Enum)`` still holds on the host side).
"""

from __future__ import annotations

import enum
from typing import Any

from safe_eval.interpreter.identity import is_guest_class, register_guest_class
from safe_eval.membrane.modules._util import pick

HELPERS = ["auto", "unique", "verify", "UNIQUE", "CONTINUOUS", "NAMED_FLAGS", "member", "nonmember"]


_MIXINS = (int, str, float, bytes)


def _member_names(names: Any) -> list[Any]:
    if isinstance(names, str):
        return names.replace(",", " ").split()
    if hasattr(names, "keys"):
        return list(names.keys())
    return [item if isinstance(item, str) else item[0] for item in names]


def _check_functional(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """The functional API puts names straight into a class namespace: refuse ``_`` names
    (dunders there would be hooks the class builder's allowlist never saw) and host mixins."""
    names = args[0] if args else kwargs.get("names")
    if names is not None:
        for name in _member_names(names):
            if not isinstance(name, str) or name.startswith("_"):
                raise ValueError(f"enum member name {name!r} is not allowed in safe-eval")
    mixin = kwargs.get("type")
    if mixin is not None and mixin not in _MIXINS and not (isinstance(mixin, type) and is_guest_class(mixin)):
        raise TypeError("enum type= must be int, str, float, bytes or a class defined in guest code")


# ``EnumType`` is the 3.11 name of ``EnumMeta`` (which 3.10 has alone)
_ENUM_TYPE: Any = getattr(enum, "EnumType", enum.EnumMeta)


class _GuestEnumType(_ENUM_TYPE):  # type: ignore[misc]
    def __call__(cls, value: Any, *args: Any, **kwargs: Any) -> Any:
        if args or "names" in kwargs:
            _check_functional(args, kwargs)
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
