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
    └── InternalError          a bug in safe-eval itself (never the guest's fault)

Guest code can never catch a ``SafeEvalError``: the interpreter's ``except`` clauses do not
match them, so a limit cannot be swallowed by ``except BaseException: pass``.

Every error renders for people (``str(err)``: message, source line, caret) and for machines
(``err.to_dict()``), and reads as feedback a model can act on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from safe_eval._record import Frozen, Record

if TYPE_CHECKING:
    from safe_eval.diagnostics import Diagnostic


__all__ = [
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


class SafeEvalError(Exception):
    """Root of every error safe-eval raises at its caller.

    ``stdout`` is what the guest printed before the error (the run that raised it sets it;
    "" for an error before any guest code ran): the output an agent needs to repair a step."""

    stdout: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"error": type(self).__name__, "message": str(self)}


class PolicyViolation(SafeEvalError):
    """The code breaks one or more rules; ``diagnostics`` lists every one of them."""

    def __init__(self, diagnostics: Sequence[Diagnostic], source: str = "") -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        self.source = source
        super().__init__(self._summary())

    def _summary(self) -> str:
        if not self.diagnostics:
            return "policy violation"
        if len(self.diagnostics) == 1:
            return self.diagnostics[0].render(self.source)
        parts = [f"{len(self.diagnostics)} policy violations:"]
        parts += [d.render(self.source) for d in self.diagnostics]
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": type(self).__name__,
            "message": str(self),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


class GuestError(SafeEvalError):
    """An exception raised by the guest and not caught by it.

    ``type_name`` and ``message`` describe the guest exception; ``traceback`` lists guest
    frames only, outermost first, like CPython's traceback. ``exception`` is the guest
    exception object itself (already stripped of host tracebacks and context).
    """

    def __init__(
        self,
        type_name: str,
        message: str,
        traceback: Sequence[GuestFrame] = (),
        exception: BaseException | None = None,
    ) -> None:
        self.type_name = type_name
        self.message = message
        self.traceback: tuple[GuestFrame, ...] = tuple(traceback)
        self.exception = exception
        super().__init__(f"{type_name}: {message}" if message else type_name)

    @property
    def line(self) -> int | None:
        return self.traceback[-1].line if self.traceback else None

    def render(self) -> str:
        lines = ["Traceback (most recent call last):"]
        lines += [frame.render() for frame in self.traceback]
        lines.append(f"{self.type_name}: {self.message}" if self.message else self.type_name)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": type(self).__name__,
            "type": self.type_name,
            "message": self.message,
            "traceback": [f.to_dict() for f in self.traceback],
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

    def at_line(self, line: int) -> None:
        """Record the guest line where the limit was hit (first one wins)."""
        if self.line is None:
            self.line = line
            self.args = (self._text(),)

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": type(self).__name__,
            "message": str(self),
            "limit": self.limit_name,
            "value": self.value,
            "reached": self.reached,
            "line": self.line,
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
        return {"error": type(self).__name__, "message": str(self), "signal": self.signal,
                "exit_code": self.exit_code, "stderr": self.stderr}


class SandboxValueError(SandboxError, TypeError):
    """A value that cannot cross the sandbox boundary (not plain data, a cycle, too large),
    or a malformed value sent by the worker."""


class PolicyError(SafeEvalError):
    """A policy (file, text or object) is malformed. ``line``/``col`` point into the file."""

    def __init__(
        self, message: str, *, filename: str = "<policy>", line: int | None = None, col: int | None = None
    ) -> None:
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        where = filename if line is None else f"{filename}:{line}:{col or 1}"
        super().__init__(f"{where}: {message}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": type(self).__name__,
            "message": self.message,
            "filename": self.filename,
            "line": self.line,
            "col": self.col,
        }


class InternalError(SafeEvalError):
    """A bug in safe-eval. The guest did nothing wrong; please report it."""
