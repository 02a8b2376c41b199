"""The wire between host and worker: newline-delimited JSON-RPC 2.0, and errors as data.

Host -> worker requests: ``run`` (code, env, tools, limits, policy text, mode), ``exit``.
Worker -> host: the ``run`` response; ``print`` notifications (guest output as it is
written); ``tool`` requests (a guest tool call, decided and run by the host, answered with a
result or an error). A ``ready`` notification says the worker finished starting.

Everything that comes from the worker is untrusted: ``parse_message`` checks the envelope,
``error_from_data`` rebuilds only known error kinds from checked fields, and anything else is
``SandboxCrashed`` ("answered with garbage"), never a host exception of another type.
"""

from __future__ import annotations

import builtins
import json
import re
import sys
from typing import Any

from safe_eval.diagnostics import Diagnostic
from safe_eval.errors import (
    GuestError,
    GuestFrame,
    InternalError,
    LimitExceeded,
    MemoryLimit,
    OpLimit,
    OutputLimit,
    PolicyViolation,
    RecursionLimit,
    SafeEvalError,
    SandboxCrashed,
    SandboxValueError,
    TimeLimit,
)

__all__ = [
    "MAX_ITEMS",
    "MAX_LINE",
    "PRINT_CHUNK",
    "dumps",
    "error_data",
    "error_from_data",
    "exception_from_data",
    "oversized",
    "parse_message",
]

# One message at most (a value, an error, a chunk of output); a longer line ends the worker.
# Bounded before ``json.loads`` builds anything, and so is what it would build: its strings by
# the line's length (at most 4 bytes a character), its containers and items by ``MAX_ITEMS``
# (counted outside strings: ``[]`` is 2 bytes on the wire and ~64 in the host, so a line of
# them alone would decode to 32 times its size). The worker checks its own lines the same way
# and refuses a value that would not fit with ``SandboxValueError``.
MAX_LINE = 16 * 1024 * 1024
MAX_ITEMS = 1_000_000
# Guest output goes out in ``print`` notifications of at most this many characters (one write
# may be split; every piece but the last says ``"more": true``): at 6 bytes a character at worst
# (``\u0000`` escapes) a piece stays well within ``MAX_LINE``, so output of any size is output,
# counted against the run's output limit, never a line the host must refuse.
PRINT_CHUNK = 1 << 20
_SCAN_FROM = 64 * 1024  # a shorter line cannot build more than a few MiB: not scanned
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
# a run of digits outside strings longer than any number ``dumps`` writes (plain ints are below
# 2**53, floats are reprs): CPython parses a decimal int in time quadratic in its digits,
# bounded only by the host's int_max_str_digits, which an application may turn off
_LONG_NUMBER = b"0" * 64
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_MAX_TEXT = 64 * 1024  # error messages, tracebacks lines: kept to this many characters

_LIMITS: dict[str, type[LimitExceeded]] = {
    cls.__name__: cls for cls in (TimeLimit, OpLimit, MemoryLimit, RecursionLimit, OutputLimit)
}
# exceptions a host tool may raise that the guest sees by their own type; others arrive as
# RuntimeError with the type name in the message
_TOOL_EXCEPTIONS = frozenset({
    "ArithmeticError", "AssertionError", "AttributeError", "FileNotFoundError", "IndexError",
    "KeyError", "LookupError", "NotImplementedError", "OSError", "OverflowError",
    "PermissionError", "RuntimeError", "TimeoutError", "TypeError", "ValueError",
    "ZeroDivisionError", "UnicodeError", "ConnectionError", "FileExistsError",
    "IsADirectoryError", "NotADirectoryError", "StopIteration",
})


def dumps(message: dict[str, Any]) -> bytes:
    """One message as a newline-terminated line (no NaN literals: floats are tagged). A str may
    hold a lone surrogate (``'\\ud800'``, a guest's value or output): it is written as its
    three UTF-8-style bytes (``surrogatepass``), which ``json.loads`` of bytes reads back as the
    same str, so every str crosses as it is, as it would be returned in process."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8", "surrogatepass") + b"\n"


def _no_constant(name: str) -> Any:
    # NaN / Infinity / -Infinity: JSON has no such literals and ``dumps`` never writes them
    raise ValueError(f"{name} is not JSON")


def oversized(line: bytes) -> str | None:
    """Why this line is too large to decode (None: it is not)."""
    if len(line) > MAX_LINE:
        return f"a line longer than the protocol allows ({MAX_LINE} bytes)"
    if len(line) <= _SCAN_FROM:
        # a 64 KiB number parses in ~50 ms; the int limit stops longer ones in json.loads
        return None
    bare = _STRING.sub(b'""', line) if b'"' in line else line
    if _long_number(bare):
        return "a number longer than the protocol writes"
    items = bare.count(b"[") + bare.count(b"{") + bare.count(b",") + bare.count(b":")
    if items > MAX_ITEMS:
        return f"a message of more than {MAX_ITEMS} JSON items"
    return None


def _long_number(bare: bytes) -> bool:
    """Whether ``bare`` (strings blanked) holds a run of more than 63 digits, looked for only
    where ``json.loads`` would not refuse a long int itself (the host turned
    ``int_max_str_digits`` off or above its default): ~70 ms for 12 MiB, a regex took 400."""
    limit = sys.get_int_max_str_digits()
    if 0 < limit <= sys.int_info.default_max_str_digits:
        return False
    return bare.translate(_DIGITS_TO_ZERO).find(_LONG_NUMBER) >= 0


def parse_message(line: bytes) -> dict[str, Any]:
    """A JSON-RPC 2.0 message object from one line, or ``SandboxCrashed``; the line's size is
    checked before it is decoded (``oversized``)."""
    why = oversized(line)
    if why is not None:
        raise SandboxCrashed(f"the sandbox worker sent {why}")
    try:
        # bytes: decoded as UTF-8 with lone surrogates passed (``dumps``), anything else that is
        # not UTF-8 is a ValueError (UnicodeDecodeError)
        msg = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise SandboxCrashed("the sandbox worker sent a line that is not JSON") from None
    if type(msg) is not dict or msg.get("jsonrpc") != "2.0":
        raise SandboxCrashed("the sandbox worker sent a message that is not JSON-RPC 2.0")
    return msg


def _text(value: Any, what: str) -> str:
    if type(value) is not str:
        raise SandboxCrashed(f"the sandbox worker sent a malformed error ({what})")
    return value[:_MAX_TEXT]


def _opt_int(value: Any, what: str) -> int | None:
    if value is None or type(value) is int:
        return value
    raise SandboxCrashed(f"the sandbox worker sent a malformed error ({what})")


def _opt_num(value: Any, what: str) -> float | int | None:
    if value is None or type(value) in (int, float):
        return value  # type: ignore[no-any-return]
    raise SandboxCrashed(f"the sandbox worker sent a malformed error ({what})")


# -- errors as data --------------------------------------------------------------------------

def error_data(exc: BaseException) -> dict[str, Any]:
    """The wire form of an error raised in the worker (the worker side of ``error_from_data``).
    Texts the guest chose (a message, a refused source) are cut here to what the host keeps
    (``_MAX_TEXT``): a guest error with a 20 MiB message is that error, not an answer too large
    for the wire."""
    if isinstance(exc, PolicyViolation):
        return {"kind": "PolicyViolation", "source": exc.source[:_MAX_TEXT],
                "diagnostics": [d.to_dict() for d in exc.diagnostics]}
    if isinstance(exc, GuestError):
        frames = [{**f.to_dict(), "source_line": f.source_line[:_MAX_TEXT]} for f in exc.traceback]
        return {"kind": "GuestError", "type": exc.type_name[:_MAX_TEXT], "message": exc.message[:_MAX_TEXT],
                "traceback": frames}
    if isinstance(exc, LimitExceeded):
        return {"kind": type(exc).__name__ if type(exc).__name__ in _LIMITS else "LimitExceeded",
                "detail": exc.detail, "value": exc.value, "reached": exc.reached, "line": exc.line,
                "col": exc.col, "filename": exc.filename, "source_line": exc.source_line}
    if isinstance(exc, SandboxValueError):
        return {"kind": "SandboxValueError", "message": str(exc)}
    if isinstance(exc, SafeEvalError):
        return {"kind": "InternalError", "message": f"{type(exc).__name__}: {exc}"}
    return {"kind": "exception", "type": type(exc).__name__, "message": str(exc)}


def error_from_data(data: Any) -> SafeEvalError:
    """The host-side error for an error the worker reported (checked field by field)."""
    if type(data) is not dict:
        raise SandboxCrashed("the sandbox worker sent a malformed error")
    kind = data.get("kind")
    if kind == "GuestError":
        frames = data.get("traceback")
        if type(frames) is not list or len(frames) > 10_000:
            raise SandboxCrashed("the sandbox worker sent a malformed traceback")
        return GuestError(_text(data.get("type"), "type"), _text(data.get("message"), "message"),
                          [_frame(f) for f in frames])
    if kind in _LIMITS or kind == "LimitExceeded":
        cls = _LIMITS.get(kind, LimitExceeded)
        limit = cls(_text(data.get("detail"), "detail"), value=_opt_num(data.get("value"), "value"),
                    reached=_opt_num(data.get("reached"), "reached"), line=_opt_int(data.get("line"), "line"))
        # where in the guest code, as an in-process run places it (older workers send none)
        limit.col = _opt_int(data.get("col"), "col")
        if limit.line is not None:
            limit.in_source(_text(data.get("filename", limit.filename), "filename"),
                            _text(data.get("source_line", ""), "source_line"))
        return limit
    if kind == "PolicyViolation":
        diags = data.get("diagnostics")
        if type(diags) is not list or len(diags) > 10_000:
            raise SandboxCrashed("the sandbox worker sent malformed diagnostics")
        return PolicyViolation([_diagnostic(d) for d in diags], _text(data.get("source", ""), "source"))
    if kind == "SandboxValueError":
        return SandboxValueError(_text(data.get("message"), "message"))
    if kind == "InternalError":
        return InternalError("in the sandbox worker: " + _text(data.get("message"), "message"))
    if kind == "exception":
        return InternalError(f"the sandbox worker failed: {_text(data.get('type'), 'type')}: "
                             f"{_text(data.get('message'), 'message')}")
    raise SandboxCrashed("the sandbox worker sent an error of an unknown kind")


def _frame(d: Any) -> GuestFrame:
    if type(d) is not dict:
        raise SandboxCrashed("the sandbox worker sent a malformed traceback frame")
    line, col = _opt_int(d.get("line"), "line"), _opt_int(d.get("col"), "col")
    return GuestFrame(_text(d.get("filename"), "filename"), line or 0, col or 0, _text(d.get("name"), "name"),
                      _text(d.get("source_line", ""), "source_line"))


def _diagnostic(d: Any) -> Diagnostic:
    if type(d) is not dict:
        raise SandboxCrashed("the sandbox worker sent a malformed diagnostic")
    ints = [_opt_int(d.get(k), k) or 0 for k in ("line", "col", "end_line", "end_col")]
    stage = _text(d.get("stage"), "stage")
    # a warning stays a warning (it renders differently); anything else is an error
    severity = "warning" if d.get("severity") == "warning" else "error"
    return Diagnostic(_text(d.get("code"), "code"), _text(d.get("name"), "name"),
                      _text(d.get("message"), "message"), ints[0], ints[1], ints[2], ints[3],
                      stage, _text(d.get("hint", ""), "hint"), severity)  # type: ignore[arg-type]


def exception_from_data(data: Any) -> BaseException:
    """Worker side: the exception a host tool's error becomes inside the sandbox. Known
    safe-eval errors keep their type; a host exception becomes a builtin exception of the
    same name (from a fixed list), else ``RuntimeError``."""
    if type(data) is dict and data.get("kind") == "exception":
        name, message = str(data.get("type")), str(data.get("message"))
        if name in _TOOL_EXCEPTIONS:
            cls = getattr(builtins, name)
            return KeyError(message) if cls is KeyError else cls(message)
        return RuntimeError(f"{name}: {message}")
    try:
        return error_from_data(data)
    except SandboxCrashed as exc:
        return InternalError(str(exc))
