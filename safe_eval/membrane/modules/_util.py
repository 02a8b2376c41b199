"""Helpers shared by the curated module files: picking names, charging the running budget."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

from safe_eval.limits.budget import current

__all__ = ["pick", "charge", "check_alloc", "FuelIter"]


def pick(module: ModuleType, names: Iterable[str]) -> dict[str, Any]:
    """``{name: module.name}`` for an explicit allowlist (a missing name is a bug here)."""
    return {name: getattr(module, name) for name in names}


def charge(ops: int) -> None:
    """Charge ``ops`` operations to the running evaluation, if any."""
    budget = current()
    if budget is not None and ops > 0:
        budget.charge(ops)


def check_alloc(nbytes: int) -> None:
    """Refuse an allocation of about ``nbytes`` before a host C call makes it."""
    budget = current()
    if budget is not None:
        budget.check_alloc(nbytes)
    elif nbytes > 1 << 30:
        raise MemoryError(f"allocation of about {nbytes} bytes refused")


class FuelIter:
    """An iterator that charges one operation per item, so that a host C consumer
    (``list``, ``sum``, ``max``...) of a long or infinite iterator stops at the budget."""

    __slots__ = ("_it",)

    def __init__(self, it: Iterator[Any]) -> None:
        self._it = it

    def __iter__(self) -> FuelIter:
        return self

    def __next__(self) -> Any:
        budget = current()
        if budget is not None:
            budget.fuel -= 1
            if budget.fuel < 0:
                budget.refuel()
        return next(self._it)

    def __repr__(self) -> str:
        return repr(self._it)  # CPython's: ``count(5)``, ``repeat('x', 3)``
