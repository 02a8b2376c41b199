"""``Limits``: the resource budget of one evaluation, as plain frozen data."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

__all__ = ["Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Time in seconds (wall clock), ops as a deterministic count, memory and output in bytes,
    recursion in guest frames. ``None`` on a field of an override means "keep the base value"."""

    time: float = 2.0
    ops: int = 10_000_000
    memory: int = 256 * 1024 * 1024
    recursion: int = 200
    output: int = 64 * 1024

    def merged(self, override: Limits | dict[str, Any] | None) -> Limits:
        """This limits object with the fields of ``override`` that are set replacing ours."""
        if override is None:
            return self
        if isinstance(override, Limits):
            return override
        return replace(self, **{k: v for k, v in override.items() if v is not None})
