"""``Limits``: the resource budget of one evaluation, as plain frozen data."""

from __future__ import annotations

import math
from typing import Any

from safe_eval._record import Frozen, Record

__all__ = ["Limits"]

class _Unset:
    """A field left out (``None`` is a mistake, refused as before: only a dict override may say
    it). Its repr is what signatures and the API reference show for the default."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<default>"


_UNSET: Any = _Unset()

# What each field means, for error messages.
_UNITS = {
    "time": "seconds (wall clock)",
    "ops": "operations",
    "memory": "bytes",
    "recursion": "guest frames",
    "output": "bytes of output",
}


class Limits(Frozen, Record):
    """Time in seconds (wall clock), ops as a deterministic count, memory and output in bytes,
    recursion in guest frames. ``None`` on a field of an override means "keep the base value".

    A ``Limits`` remembers which fields its caller gave: merged onto a base (an ``Evaluator``'s
    policy limits, a run's limits), only those replace the base's, as a dict override does, so
    ``Evaluator("strict", Limits(time=1.0))`` keeps strict's ops, memory, recursion and output.
    Fields left out take the defaults below when the object is used on its own.

    Every field must be a positive number (``time`` may be a float, the rest are ints); a bad
    value raises ``TypeError``/``ValueError`` naming the field, at construction.

    A frozen, hashable value (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("time", "ops", "memory", "recursion", "output", "given")
    _fields = ("time", "ops", "memory", "recursion", "output")
    __match_args__ = ("time", "ops", "memory", "recursion", "output")

    time: float
    ops: int
    memory: int
    recursion: int
    output: int
    # the fields the caller gave (the ones a merge onto a base replaces); not compared
    given: frozenset[str]

    def __init__(
        self,
        time: float = _UNSET,
        ops: int = _UNSET,
        memory: int = _UNSET,
        recursion: int = _UNSET,
        output: int = _UNSET,
    ) -> None:
        given = []
        for name, value in zip(self._fields, (time, ops, memory, recursion, output), strict=True):
            if value is _UNSET:
                value = _DEFAULTS[name]
            else:
                _validate(name, value)
                given.append(name)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "given", frozenset(given))

    def merged(self, override: Limits | dict[str, Any] | None) -> Limits:
        """This limits object with the fields of ``override`` that are set replacing ours."""
        if override is None:
            return self
        if isinstance(override, Limits):
            override = {name: getattr(override, name) for name in override.given}
        unknown = sorted(set(override) - set(_UNITS))
        if unknown:
            raise TypeError(f"unknown limit(s) {', '.join(unknown)}; known: {', '.join(_UNITS)}")
        values: dict[str, Any] = self.to_dict()
        values.update({k: v for k, v in override.items() if v is not None})
        return Limits(**values)

    @classmethod
    def off(cls) -> Limits:
        """Limits that never trigger in practice (for benchmarks measuring the accounting's
        own cost). Recursion keeps its default: it protects the host's stack, not a budget."""
        return cls(time=1e9, ops=10**18, memory=2**62, output=2**62)

    def to_dict(self) -> dict[str, float | int]:
        return {name: getattr(self, name) for name in self._fields}


_DEFAULTS: dict[str, float | int] = {
    "time": 3.0,
    "ops": 10_000_000,
    "memory": 256 * 1024 * 1024,
    "recursion": 1000,
    "output": 64 * 1024,
}


def _validate(name: str, value: object) -> None:
    if name == "time":
        ok_type = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        ok_type = isinstance(value, int) and not isinstance(value, bool)
    if not ok_type:
        kind = "a number" if name == "time" else "an int"
        raise TypeError(f"Limits.{name} must be {kind} of {_UNITS[name]}, got {value!r}")
    assert isinstance(value, int | float)
    if not value > 0 or (isinstance(value, float) and not math.isfinite(value)):
        raise ValueError(f"Limits.{name} must be a positive finite number of {_UNITS[name]}, got {value!r}")
