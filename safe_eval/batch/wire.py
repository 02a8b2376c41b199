"""Outcomes as JSON text, from executors in other processes and on other machines.

A remote executor (Ray, a ``concurrent.futures`` process pool, Dask) moves Python objects
with pickle. What goes *to* it is the host's own (the settings, the job's tools); what comes
*back* was produced next to guest code, so it comes back as one JSON string that is decoded
here as data: a value through the sandbox codec (plain data types only), an error through the
sandbox protocol's checked error forms. Nothing the remote side sends becomes a host object
of a type it chose.
"""

from __future__ import annotations

import json
from typing import Any

from safe_eval.api import Result
from safe_eval.errors import (
    SafeEvalError,
    SandboxCrashed,
    SandboxError,
    SandboxUnavailable,
    SandboxValueError,
)
from safe_eval.sandbox import codec
from safe_eval.sandbox.protocol import error_data, error_from_data

__all__ = ["decode_outcome", "encode_outcome"]

# escalation errors the sandbox protocol does not carry (a worker never reports them: the
# host side of a worker raises them); here the remote host side reports them
_SANDBOX_ERRORS: dict[str, type[SandboxError]] = {
    "SandboxError": SandboxError, "SandboxUnavailable": SandboxUnavailable,
}


def encode_outcome(outcome: Result | SafeEvalError) -> str:
    if isinstance(outcome, Result):
        try:
            value = codec.encode(outcome.value)
        except SandboxValueError as exc:  # as a sandboxed single evaluation reports it
            return encode_outcome(exc)
        body: dict[str, Any] = {"value": value, "stdout": outcome.stdout, "ops": outcome.ops,
                                "seconds": outcome.seconds}
    elif isinstance(outcome, SandboxCrashed):
        body = {"error": {"kind": "SandboxCrashed", "message": outcome.args[0] if outcome.args else "",
                          "signal": outcome.signal, "exit_code": outcome.exit_code,
                          "stderr": outcome.stderr}}
    elif type(outcome) in _SANDBOX_ERRORS.values():
        body = {"error": {"kind": type(outcome).__name__, "message": str(outcome)}}
    else:
        body = {"error": error_data(outcome)}
    return json.dumps(body, separators=(",", ":"), allow_nan=False)


def decode_outcome(text: Any) -> Result | SafeEvalError:
    """The outcome a remote executor sent; anything malformed is ``SandboxCrashed``."""
    try:
        data = json.loads(text) if type(text) is str else None
        if type(data) is not dict:
            raise ValueError("not an object")
        if "error" not in data:
            stdout, ops, seconds = data.get("stdout"), data.get("ops"), data.get("seconds")
            if type(stdout) is not str or type(ops) is not int or type(seconds) not in (int, float):
                raise ValueError("malformed result")
            return Result(codec.decode(data.get("value")), stdout, ops, float(seconds))  # type: ignore[arg-type]
        return _error(data["error"])
    except (ValueError, TypeError, KeyError, RecursionError, SandboxCrashed):
        return SandboxCrashed("the batch executor sent a malformed outcome")


def _error(data: Any) -> SafeEvalError:
    kind = data.get("kind") if type(data) is dict else None
    if kind == "SandboxCrashed":
        signal, exit_code, stderr = data.get("signal"), data.get("exit_code"), data.get("stderr")
        crashed = SandboxCrashed("", signal=signal if type(signal) is int else None,
                                 exit_code=exit_code if type(exit_code) is int else None,
                                 stderr=stderr if type(stderr) is str else "")
        message = data.get("message")
        crashed.args = (message if type(message) is str else "the sandbox worker crashed",)
        return crashed
    if kind in _SANDBOX_ERRORS:
        message = data.get("message")
        return _SANDBOX_ERRORS[kind](message if type(message) is str else "")
    return error_from_data(data)  # SandboxCrashed when malformed
