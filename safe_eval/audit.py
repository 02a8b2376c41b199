"""What a run tells its host about the decisions made: the ``audit=`` hook and the logger.

    Evaluator(..., audit=hook)      ``hook(event)`` for each decision, before it takes effect:
        ToolEvent(name, args, kwargs, decision)   a tool call, allowed or denied, with the
                                                  normalised arguments it was decided on
                                                  (defined in ``policy/enforce.py``)
        Refusal(diagnostics, filename, source)    code the static checks refused (the whole
                                                  program, or a string the guest passed to
                                                  ``exec``/``eval``): none of it ran
    logging.getLogger("safe_eval")  the same decisions as log records: allowed tool calls at
                                    INFO, denied calls and refusals at WARNING. Silent until the
                                    host configures logging (the logger has a ``NullHandler``,
                                    so Python's last-resort handler never prints them).

``report(hook, event)`` is the one place both are told. A log record shows the arguments the
policy decided on, which are plain copies (``policy/plain.py``), through ``reprlib`` so a huge
argument costs a bounded repr. No guest code runs to log: a value kept as it is (a guest object
where the rule places no condition, or a container holding one) is shown by its type name, never
by its ``__repr__``, which would run while the watchdog is paused for the tool call.
"""

from __future__ import annotations

import logging
import reprlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from safe_eval._record import Frozen, Record

if TYPE_CHECKING:
    from safe_eval.diagnostics import Diagnostic

__all__ = ["LOGGER", "Refusal", "report"]

LOGGER = logging.getLogger("safe_eval")
LOGGER.addHandler(logging.NullHandler())

# exact types whose repr is C code of the type itself (containers: reprlib walks their items)
_SHOWN_AS_THEY_ARE = frozenset({str, bytes, int, float, complex, bool, type(None),
                                list, tuple, dict, set, frozenset})


class _Shown(reprlib.Repr):
    """``reprlib`` that never calls a repr the guest could have written."""

    def repr1(self, x: Any, level: int) -> str:
        if type(x) in _SHOWN_AS_THEY_ARE:
            return super().repr1(x, level)
        name = type.__dict__["__name__"].__get__(type(x))  # the type's own field: no guest code
        return f"<{name[:80]} object>"


_SHORT = _Shown()
_SHORT.maxstring = 80
_SHORT.maxother = 80


class Refusal(Frozen, Record):
    """Code the static checks refused, as the audit hook sees it: every diagnostic, the file
    name it was checked under and its source. A frozen value."""

    __slots__ = ("diagnostics", "filename", "source")
    _fields = __slots__
    __match_args__ = ("diagnostics", "filename", "source")

    diagnostics: tuple[Diagnostic, ...]
    filename: str
    source: str

    def __init__(self, diagnostics: tuple[Diagnostic, ...], filename: str, source: str = "") -> None:
        object.__setattr__(self, "diagnostics", tuple(diagnostics))
        object.__setattr__(self, "filename", filename)
        object.__setattr__(self, "source", source)


def report(hook: Callable[[Any], Any] | None, event: Any) -> None:
    """Tell the host's ``hook`` (if any) and the ``safe_eval`` logger about ``event``."""
    if hook is not None:
        hook(event)
    if isinstance(event, Refusal):
        if LOGGER.isEnabledFor(logging.WARNING):
            found = "; ".join(f"{d.code} [{d.name}] line {d.line}: {d.message}" for d in event.diagnostics)
            LOGGER.warning("code refused (%s): %s", event.filename, found)
        return
    decision = event.decision
    level = logging.INFO if decision.allowed else logging.WARNING
    if not LOGGER.isEnabledFor(level):
        return
    shown = [_SHORT.repr(a) for a in event.args]
    shown += [f"{k}={_SHORT.repr(v)}" for k, v in event.kwargs.items()]
    call = f"{event.name}({', '.join(shown)})"
    if decision.allowed:
        LOGGER.info("tool call allowed: %s", call)
    else:
        LOGGER.warning("tool call denied: %s: %s", call, decision.message)
