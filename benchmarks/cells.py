"""A table cell: the measured median (or why there is none) and how it is shown."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Cell:
    #: What a cell without a measurement says ("not installed", "n/a: ...", "error: ...").
    reason: str = ""
    seconds: float | None = None
    #: Median over rounds of (this contender / CPython in the same round).
    ratio: float | None = None
    samples: list[float] = field(default_factory=list)
    rounds: int = 0
    #: The ``limits-cost`` case: median over rounds of (limits on / limits off) - 1.
    overhead: float | None = None
    off_seconds: float | None = None

    def text(self, planned_rounds: int) -> str:
        if self.seconds is None:
            return self.reason
        if self.overhead is not None:
            assert self.off_seconds is not None
            return (f"{self.overhead * 100:+.0f}% ({fmt_seconds(self.seconds)} on, "
                    f"{fmt_seconds(self.off_seconds)} off)")
        out = fmt_seconds(self.seconds)
        if self.ratio is not None:
            out += f" · {fmt_ratio(self.ratio)}"
        if 0 < self.rounds < planned_rounds:
            out += f" ({self.rounds} of {planned_rounds} rounds: slow)"
        if self.reason:
            out += f" ({self.reason})"
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text(self.rounds),
            "reason": self.reason or None,
            "median_s": self.seconds,
            "ratio_to_cpython": self.ratio,
            "rounds": self.rounds,
            "samples_s": self.samples,
            "limits_overhead": self.overhead,
            "limits_off_median_s": self.off_seconds,
        }


def fmt_seconds(s: float) -> str:
    """Three significant digits in the largest unit that keeps the number under 1000 once
    rounded (999.7 µs is "1 ms", never "1e+03 µs")."""
    for scale, unit in ((1e9, "ns"), (1e6, "µs"), (1e3, "ms")):
        if float(f"{s * scale:.3g}") < 1000:
            return f"{s * scale:.3g} {unit}"
    return f"{s:.3g} s"


def fmt_ratio(r: float) -> str:
    return f"{r:.2g}x" if r < 10 else f"{r:.0f}x"


def short_error(exc: BaseException, limit: int = 90) -> str:
    """One line for a table cell: the exception type and the start of its message."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    # Multi-line messages (asteval echoes the source first) end with the actual complaint.
    msg = " ".join(lines[-1].split()) if lines else ""
    name = type(exc).__name__
    text = msg if msg.startswith(name + ":") else (f"{name}: {msg}" if msg else name)
    return text if len(text) <= limit else text[: limit - 1] + "…"
