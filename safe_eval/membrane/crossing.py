"""Values and exceptions crossing the membrane (PLACEHOLDER: the membrane issue owns this)."""

from __future__ import annotations

from typing import Any


def enter_value(value: Any, policy: Any = None) -> Any:
    """A host value entering the guest (env values, tool results)."""
    return value


def guest_exception(exc: BaseException) -> BaseException:
    """A host exception entering the guest: a fresh copy without traceback or context."""
    exc.__traceback__ = None
    exc.__context__ = None
    exc.__cause__ = None
    return exc


def format_value(value: Any, spec: str = "") -> str:
    return format(value, spec)
