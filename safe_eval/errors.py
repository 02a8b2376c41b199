"""The one exception tree of safe-eval.

Everything safe-eval raises at its caller is a ``SafeEvalError``::

    SafeEvalError
    ├── PolicyViolation        the code breaks a rule (static: all diagnostics at once;
    │                          dynamic: a denied tool call, import or attribute)
    ├── GuestError             the guest raised an exception it did not catch
    ├── LimitExceeded          a resource budget ran out
    │   ├── TimeLimit
    │   ├── OpLimit
    │   ├── MemoryLimit
    │   ├── RecursionLimit
    │   └── OutputLimit
    ├── SandboxError           an escalation backend failed
    │   ├── SandboxUnavailable
    │   ├── SandboxCrashed
    │   └── SandboxValueError  (also a TypeError) a value that cannot cross the boundary
    ├── PolicyError            a policy file or object is malformed
    ├── ConcurrentCall         a host call into a run's results while another is under way
    └── InternalError          a bug in safe-eval itself (never the guest's fault)

Guest code can never catch a ``SafeEvalError``: the interpreter's ``except`` clauses do not
match them, so a limit cannot be swallowed by ``except BaseException: pass``.

Every error renders for people and for machines, and reads as feedback a model can act on:

- ``str(err)``: one message, with the place when it is known (``GuestError``:
  ``<safe-eval>:2:5: ZeroDivisionError: division by zero``, as diagnostics are placed);
- ``err.render()``: the message with the source line and a caret under the place (a guest
  traceback for ``GuestError``, every diagnostic for ``PolicyViolation``);
- ``err.to_dict()``: a JSON-able dict. Every error has the keys ``error`` (the class name),
  ``message``, ``filename``, ``line`` and ``col`` (1-based; ``None`` when unknown) and
  ``stdout`` (what the guest printed before the error, "" when nothing); classes add
  their own: ``diagnostics`` (``PolicyViolation``), ``type``, ``traceback`` and ``cause``
  (``GuestError``), ``limit``, ``value`` and ``reached`` (``LimitExceeded``), ``signal``,
  ``exit_code`` and ``stderr`` (``SandboxCrashed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from safe_eval._record import Frozen, Record

if TYPE_CHECKING:
    from safe_eval.diagnostics import Diagnostic


__all__ = [
    "ConcurrentCall",
    "GuestError",
    "GuestFrame",
    "InternalError",
    "LimitExceeded",
    "MemoryLimit",
    "OpLimit",
    "OutputLimit",
    "PolicyError",
    "PolicyViolation",
    "RecursionLimit",
    "SafeEvalError",
    "SandboxCrashed",
    "SandboxError",
    "SandboxUnavailable",
    "SandboxValueError",
    "TimeLimit",
]


class GuestFrame(Frozen, Record):
    """One frame of a guest traceback: where in the guest source an exception passed. A
    frozen, hashable value (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("filename", "line", "col", "name", "source_line")
    _fields = __slots__
    __match_args__ = ("filename", "line", "col", "name", "source_line")

    filename: str
    line: int
    col: int
    name: str
    source_line: str

    def __init__(self, filename: str, line: int, col: int, name: str, source_line: str = "") -> None:
        setattr_ = object.__setattr__
        setattr_(self, "filename", filename)
        setattr_(self, "line", line)
        setattr_(self, "col", col)
        setattr_(self, "name", name)
        setattr_(self, "source_line", source_line)

    def to_dict(self) -> dict[str, Any]:
        return {
            "filename": self.filename,
            "line": self.line,
            "col": self.col,
            "name": self.name,
            "source_line": self.source_line,
        }

    def render(self) -> str:
        text = f'  File "{self.filename}", line {self.line}, in {self.name}'
        if self.source_line.strip():
            text += "\n    " + self.source_line.strip()
        return text


def _caret(source_line: str, col: int | None, width: int = 1) -> list[str]:
    """The source line (indented) and a caret under column ``col`` (1-based)."""
    text = source_line.rstrip().expandtabs(1)
    if not text.strip():
        return []
    if len(text) > 200:
        text = text[:200] + "..."
    start = min(max((col or 1) - 1, 0), len(text))
    return [f"    {text}", "    " + " " * start + "^" * max(1, min(width, len(text) - start))]


class SafeEvalError(Exception):
    """Root of every error safe-eval raises at its caller. ``filename``, ``line`` and ``col``
    (1-based, None when unknown) and ``source_line`` say where in the guest code it happened.
    ``stdout`` is what the guest printed before the error (the run that raised it sets it;
    "" for an error before any guest code ran): the output an agent needs to repair a step."""

    stdout: str = ""

    filename: str = "<safe-eval>"
    line: int | None = None
    col: int | None = None
    source_line: str = ""

    def render(self) -> str:
        """``file:line:col: Class: message``, then the source line and a caret."""
        head = f"{type(self).__name__}: {self}"
        if self.line is None:
            return head
        return "\n".join([f"{self.filename}:{self.line}:{self.col or 1}: {head}",
                          *_caret(self.source_line, self.col)])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict with the keys every error has: ``error`` (the class name),
        ``message``, ``filename``, ``line``, ``col`` (None when unknown) and ``stdout`` (what
        the guest printed before the error, "" when nothing); subclasses add their own keys."""
        return {"error": type(self).__name__, "message": str(self), "filename": self.filename,
                "line": self.line, "col": self.col, "stdout": self.stdout}


class PolicyViolation(SafeEvalError):
    """The code breaks one or more rules; ``diagnostics`` lists every one of them (a run-time
    denial: the one rule, placed at the guest line that broke it)."""

    def __init__(self, diagnostics: Sequence[Diagnostic], source: str = "", *,
                 filename: str = "<safe-eval>") -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        self.source = source
        self.filename = filename
        self._place()
        super().__init__(self._summary())

    def _place(self) -> None:
        first = self.diagnostics[0] if self.diagnostics else None
        self.line = first.line if first is not None and first.line > 0 else None
        self.col = first.col if first is not None and first.line > 0 else None
        lines = self.source.splitlines()
        self.source_line = lines[self.line - 1] if self.line and self.line <= len(lines) else ""

    def _summary(self) -> str:
        if not self.diagnostics:
            return "policy violation"
        rendered = [d.render(self.source, self.filename) for d in self.diagnostics]
        if len(rendered) == 1:
            return rendered[0]
        return "\n".join([f"{len(rendered)} policy violations:", *rendered])

    def locate(self, filename: str, line: int, col: int, source: str) -> None:
        """Place the diagnostics raised at run time without a position (line 0) at the guest
        statement that was running; the innermost guest frame calls this first, and wins."""
        if line <= 0 or not any(d.line == 0 for d in self.diagnostics):
            return
        lines = source.splitlines()
        end = len(lines[line - 1].rstrip()) + 1 if line <= len(lines) else col + 1
        self.diagnostics = tuple(d.placed(line, col, end) if d.line == 0 else d for d in self.diagnostics)
        self.source, self.filename = source, filename
        self._place()
        self.args = (self._summary(),)

    def render(self) -> str:
        """Every diagnostic with its source line, caret and hint."""
        return str(self)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "diagnostics": [d.to_dict() for d in self.diagnostics]}


class GuestError(SafeEvalError):
    """An exception raised by the guest and not caught by it.

    ``type_name`` and ``message`` describe the guest exception; ``traceback`` lists guest
    frames only, outermost first, like CPython's traceback. ``exception`` is the guest
    exception object itself (already stripped of host tracebacks and context). ``cause`` is
    the ``GuestError`` of the exception it was raised ``from`` (None: none).
    """

    def __init__(
        self,
        type_name: str,
        message: str,
        traceback: Sequence[GuestFrame] = (),
        exception: BaseException | None = None,
        cause: GuestError | None = None,
    ) -> None:
        self.type_name = type_name
        self.message = message
        self.traceback: tuple[GuestFrame, ...] = tuple(traceback)
        self.exception = exception
        self.cause = cause
        text = f"{type_name}: {message}" if message else type_name
        if self.traceback:
            last = self.traceback[-1]
            self.filename, self.line, self.col, self.source_line = (  # frames count columns from 0
                last.filename, last.line, last.col + 1, last.source_line)
            text = f"{last.filename}:{last.line}:{last.col + 1}: {text}"  # as diagnostics are placed
        super().__init__(text)

    def render(self) -> str:
        """CPython's traceback format: the cause first, then the guest frames and the message."""
        lines = []
        if self.cause is not None:
            lines += [self.cause.render(), "",
                      "The above exception was the direct cause of the following exception:", ""]
        lines.append("Traceback (most recent call last):")
        lines += [frame.render() for frame in self.traceback]
        lines.append(f"{self.type_name}: {self.message}" if self.message else self.type_name)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "type": self.type_name,
            "message": self.message,
            "traceback": [f.to_dict() for f in self.traceback],
            "cause": None if self.cause is None else self.cause.to_dict(),
        }


class LimitExceeded(SafeEvalError):
    """A resource budget ran out. ``limit`` names it, ``value`` is its setting,
    ``reached`` what the guest got to, ``line`` the guest line (when known)."""

    limit_name = "resource"

    def __init__(
        self,
        message: str = "",
        *,
        value: float | int | None = None,
        reached: float | int | None = None,
        line: int | None = None,
    ) -> None:
        self.value = value
        self.reached = reached
        self.line = line
        self.detail = message or f"{self.limit_name} limit exceeded"
        super().__init__(self._text())

    def _text(self) -> str:
        text = self.detail
        if self.value is not None:
            text += f" (limit {self.limit_name}={self.value}"
            text += f", reached {self.reached})" if self.reached is not None else ")"
        if self.line is not None:
            text += f" at line {self.line}"
        return text

    def at_line(self, line: int, col: int | None = None) -> None:
        """Record the guest line where the limit was hit (first one wins)."""
        if self.line is None:
            self.line, self.col = line, col
            self.args = (self._text(),)

    def in_source(self, filename: str, source_line: str) -> None:
        """Record the file and text of the line where the limit was hit (first one wins)."""
        if self.line is not None and not self.source_line:
            self.filename, self.source_line = filename, source_line

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "limit": self.limit_name,
            "value": self.value,
            "reached": self.reached,
        }


class TimeLimit(LimitExceeded):
    limit_name = "time"


class OpLimit(LimitExceeded):
    limit_name = "ops"


class MemoryLimit(LimitExceeded):
    limit_name = "memory"


class RecursionLimit(LimitExceeded):
    limit_name = "recursion"


class OutputLimit(LimitExceeded):
    limit_name = "output"


class SandboxError(SafeEvalError):
    """An escalation backend failed."""


class SandboxUnavailable(SandboxError):
    """The requested backend is not installed; the message says how to install it."""


class SandboxCrashed(SandboxError):
    """The sandboxed worker died or answered with garbage. ``signal`` is the signal that ended
    it (when one did), ``stderr`` the tail of what it wrote there."""

    def __init__(self, message: str, *, signal: int | None = None, exit_code: int | None = None,
                 stderr: str = "") -> None:
        self.signal = signal
        self.exit_code = exit_code
        self.stderr = stderr
        text = message
        if signal is not None:
            text += f" (killed by signal {signal})"
        elif exit_code is not None:
            text += f" (exit status {exit_code})"
        if stderr.strip():
            text += "\n--- worker stderr (tail) ---\n" + stderr.rstrip()
        super().__init__(text)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "signal": self.signal, "exit_code": self.exit_code,
                "stderr": self.stderr}


class SandboxValueError(SandboxError, TypeError):
    """A value that cannot cross the sandbox boundary (not plain data, a cycle, too large),
    or a malformed value sent by the worker."""


class PolicyError(SafeEvalError):
    """A policy (file, text or object) is malformed. ``line``/``col`` point into the file."""

    def __init__(
        self, message: str, *, filename: str = "<policy>", line: int | None = None, col: int | None = None,
        source_line: str = "",
    ) -> None:
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        where = filename if line is None else f"{filename}:{line}:{col or 1}"
        super().__init__(f"{where}: {message}")

    def render(self) -> str:
        """``file:line:col: message``, then the policy line and a caret."""
        return "\n".join([str(self), *(_caret(self.source_line, self.col) if self.line else [])])

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "message": self.message}


class ConcurrentCall(SafeEvalError):
    """The host called into a run's results (a decoded function, a returned guest object or
    generator) while another host call into that same run's results was still under way on
    another thread or greenlet. Such calls share one bound (``limits/result_bound.py``) and
    are refused rather than queued: serialise calls into one run's objects (a lock), or give
    each worker its own run."""


class InternalError(SafeEvalError):
    """A bug in safe-eval. The guest did nothing wrong; please report it."""
