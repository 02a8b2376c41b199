"""Guest arguments made plain once, so a host leaf checks exactly what host code then uses.

A curated leaf that checks a guest-controlled argument and then hands the ORIGINAL object to
host code lets the guest answer twice: a ``list`` subclass whose ``__iter__`` yields nothing to
the size check and 100 000 rows to the encoder, an iterable of enum names that is harmless on
the first pass and full of dunders on the second. The rule (docs/security-model.md, invariant
3): a leaf turns each such argument into plain data here, ONCE, checks the copy and passes only
the copy on.

- ``snapshot(value)``: builtin containers and scalars (exact or subclassed) become exact builtin
  ones, deeply, read from their storage by ``policy.plain``'s C routines (no guest method runs);
  shared parts stay shared and cycles stay cycles (so a DAG is not blown up by the copy); any
  other object is a leaf kept as it is. Each container is charged its length.
- ``snapshot_items(value)``: the items of an iterable argument as an exact ``list``: a builtin
  container's storage, else ONE guest iteration, as guest code's ``list(value)`` would do it
  (the guest's ``__iter__`` runs in the interpreter, one op charged per item).
- sizes and counts: ``limits.indices.as_index`` (read once, priced on what the C routine reads).
- ``snapshot_text(value)``: an exact ``str`` (a subclass's stored text), else None.
"""

from __future__ import annotations

from typing import Any

from safe_eval.limits.budget import current
from safe_eval.limits.operators import counting
from safe_eval.membrane.modules._util import charge
from safe_eval.policy.plain import plain, plain_name

__all__ = ["snapshot", "snapshot_items", "snapshot_text"]

_SCALARS: frozenset[type] = frozenset({str, int, float, bool, bytes, complex, type(None)})
_ALL = slice(None)


def snapshot_text(value: Any) -> str | None:
    """``value`` as an exact ``str`` when it is a ``str`` (a subclass: its stored text)."""
    return plain_name(value)


def snapshot_items(value: Any) -> list[Any]:
    """The items of ``value`` as a fresh exact list (not themselves copied)."""
    t = type(value)
    if issubclass(t, list):
        charge(list.__len__(value))
        return list.copy(value)
    if issubclass(t, tuple):
        charge(tuple.__len__(value))
        return list(tuple.__iter__(value))
    if issubclass(t, dict):
        charge(dict.__len__(value))
        return list(dict.__iter__(value))
    if issubclass(t, frozenset):
        charge(frozenset.__len__(value))
        return list(frozenset.__iter__(value))
    if issubclass(t, set):
        charge(set.__len__(value))
        return list(set.__iter__(value))
    if issubclass(t, str):
        text = str.__str__(value)
        charge(len(text))
        return list(text)
    return list(counting(value))


def snapshot(value: Any) -> Any:
    """``value`` as exact builtin data, deeply; other objects are kept as leaves."""
    if type(value) in _SCALARS:
        return value
    return _Copier(current()).copy(value)


class _Copier:
    """One snapshot: the copies made so far (shared parts stay shared, cycles stay cycles)."""

    __slots__ = ("budget", "memo", "path")

    def __init__(self, budget: Any) -> None:
        self.budget = budget
        self.memo: dict[int, Any] = {}
        self.path: set[int] = set()  # tuples and sets being built: they cannot contain themselves

    def pay(self, items: int) -> None:
        if self.budget is not None:
            self.budget.charge(items)

    def copy(self, value: Any) -> Any:
        t = type(value)
        if t in _SCALARS:
            return value
        key = id(value)
        done = self.memo.get(key)
        if done is not None:
            return done
        if issubclass(t, list):
            self.pay(list.__len__(value))
            out: list[Any] = []
            self.memo[key] = out
            out.extend([self.copy(item) for item in list.copy(value)])
            return out
        if issubclass(t, dict):
            self.pay(dict.__len__(value))
            table: dict[Any, Any] = {}
            self.memo[key] = table
            for k, v in list(dict.items(value)):
                table[self.copy(k)] = self.copy(v)
            return table
        if issubclass(t, tuple | set | frozenset):
            if key in self.path:
                # a tuple reached again through a list inside it: it cannot exist before its items
                raise ValueError("Circular reference detected")
            self.path.add(key)
            items = [self.copy(item) for item in snapshot_items(value)]
            self.path.discard(key)
            kind = tuple if issubclass(t, tuple) else frozenset if issubclass(t, frozenset) else set
            built = kind(items)
            self.memo[key] = built
            return built
        copied, complete = plain(value)  # scalar subclasses, bytearray, exact Decimal/Fraction
        return copied if complete else value
