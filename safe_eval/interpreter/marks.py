"""How safe-eval tells guest-made objects from host objects.

Every class the guest creates (and the interpreter's own guest-facing types: functions,
generators, bound methods, cells) carries ``MARK`` in its class namespace with the value
``TOKEN``. ``TOKEN`` is a private object the guest can never obtain (``MARK`` is a dunder name
outside every allowlist), so the mark cannot be forged.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MARK", "TOKEN", "is_guest_object", "is_guest_type", "mark"]

MARK = "__safe_eval_guest__"
TOKEN: Any = object()


def mark(cls: type) -> type:
    """Class decorator / helper: mark ``cls`` (and so its subclasses) as guest-made."""
    setattr(cls, MARK, TOKEN)
    return cls


def is_guest_type(cls: type) -> bool:
    return getattr(cls, MARK, None) is TOKEN


def is_guest_object(obj: object) -> bool:
    return getattr(type(obj), MARK, None) is TOKEN
