"""``Limits``: the resource budget of one evaluation, as plain frozen data."""

from __future__ import annotations

import math
from typing import Any

from safe_eval._record import Frozen, Record

__all__ = ["Limits"]

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

    Every field must be a positive number (``time`` may be a float, the rest are ints); a bad
    value raises ``TypeError``/``ValueError`` naming the field, at construction.

    A frozen, hashable value (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("time", "ops", "memory", "recursion", "output")
    _fields = ("time", "ops", "memory", "recursion", "output")
    __match_args__ = ("time", "ops", "memory", "recursion", "output")

    time: float
    ops: int
    memory: int
    recursion: int
    output: int

    def __init__(
        self,
        time: float = 3.0,
        ops: int = 10_000_000,
        memory: int = 256 * 1024 * 1024,
        recursion: int = 1000,
        output: int = 64 * 1024,
    ) -> None:
        for name, value in zip(self._fields, (time, ops, memory, recursion, output), strict=True):
            _validate(name, value)
            object.__setattr__(self, name, value)

    def merged(self, override: Limits | dict[str, Any] | None) -> Limits:
        """This limits object with the fields of ``override`` that are set replacing ours."""
        if override is None:
            return self
        if isinstance(override, Limits):
            return override
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
