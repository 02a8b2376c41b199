"""Run-time pieces shared by the compiled closures: signals, cells, the builtins table.

A frame is a plain list: ``[globals, budget, return value, slots...]`` (see scopes.FIRST_SLOT).
Statements return ``None`` to go on, or one of the signals ``BREAK``, ``CONTINUE``, ``RETURN``
(the value is in ``frame[RET]``): cheaper than exceptions for control flow, and no flag to reset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.identity import register_internal_type

__all__ = ["BREAK", "CONTINUE", "RETURN", "UNBOUND", "Cell", "Frame", "G", "B", "RET", "NS", "Signal"]

G, B, RET, NS = 0, 1, 2, 3

Frame = list[Any]


class Signal:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


BREAK = Signal("BREAK")
CONTINUE = Signal("CONTINUE")
RETURN = Signal("RETURN")


class _Unbound:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<unbound>"


UNBOUND: Any = _Unbound()


@register_internal_type
class Cell:
    """A closure cell; an unset ``v`` means the variable is unbound."""

    __slots__ = ("v",)
    v: Any

    def __repr__(self) -> str:
        return "<cell>"


Stmt = Callable[[Frame], Any]
Expr = Callable[[Frame], Any]
