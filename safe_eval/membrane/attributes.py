"""Attribute access across the membrane (PLACEHOLDER: the membrane issue replaces the rules)."""

from __future__ import annotations

from typing import Any

from safe_eval.interpreter.marks import is_guest_object, is_guest_type

_READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__class__", "__doc__", "__dict__"})


def _allowed(obj: object, name: str) -> bool:
    if name.startswith("__") and name.endswith("__"):
        return name in _READABLE_DUNDERS
    if name.startswith("_"):
        return is_guest_object(obj) or (isinstance(obj, type) and is_guest_type(obj))
    return True


def get_attr(obj: object, name: str) -> Any:
    if not _allowed(obj, name):
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
    return getattr(obj, name)


def set_attr(obj: object, name: str, value: object) -> None:
    if not (is_guest_object(obj) or (isinstance(obj, type) and is_guest_type(obj))):
        raise AttributeError(f"'{type(obj).__name__}' object attribute '{name}' is read-only")
    setattr(obj, name, value)


def del_attr(obj: object, name: str) -> None:
    if not (is_guest_object(obj) or (isinstance(obj, type) and is_guest_type(obj))):
        raise AttributeError(f"'{type(obj).__name__}' object attribute '{name}' is read-only")
    delattr(obj, name)
