"""Everything a worker sends is untrusted: a compromised worker (plain CPython mode, or a bug)
can write any bytes. The host answers each kind of garbage with a typed error and leaves no
process behind; it never raises anything else and never hangs."""

from __future__ import annotations

import json
import sys

import pytest

from safe_eval.errors import SandboxCrashed, SandboxValueError, TimeLimit
from safe_eval.sandbox import Backend
from safe_eval.sandbox.process import tagged_pids

READY = json.dumps({"jsonrpc": "2.0", "method": "ready", "params": {"layers": {}}})
SCRIPT = """
import sys
out = sys.stdout.buffer
if {ready!r}:
    out.write({ready_line!r}.encode() + b"\\n"); out.flush()
sys.stdin.readline()
out.write({payload!r}); out.flush()
{after}
"""


class ScriptedBackend(Backend):
    """A backend whose 'worker' answers every run with canned bytes."""

    name = "scripted"
    modes = ("interpreter",)

    def __init__(self, payload: bytes, ready: bool = True, after: str = "sys.stdin.readline()") -> None:
        self.payload = payload
        self.ready = ready
        self.after = after
        super().__init__(pool_size=0)

    @classmethod
    def unavailable(cls):
        return None

    def worker_argv(self, workspace, config):
        script = SCRIPT.format(ready=self.ready, ready_line=READY, payload=self.payload, after=self.after)
        return [sys.executable, "-I", "-S", "-c", script, json.dumps(config)], workspace.path


def _reply(result=None, error=None) -> bytes:
    msg = {"jsonrpc": "2.0", "id": 1}
    msg.update({"error": error} if error is not None else {"result": result})
    return json.dumps(msg).encode() + b"\n"


GARBAGE = [
    pytest.param(b"this is not json\n", SandboxCrashed, id="not-json"),
    pytest.param(b"[1, 2, 3]\n", SandboxCrashed, id="json-not-an-object"),
    pytest.param(b'{"id": 1, "result": 1}\n', SandboxCrashed, id="not-json-rpc-2"),
    pytest.param(b"[" * 100_000 + b"\n", SandboxCrashed, id="nesting-bomb"),
    pytest.param(_reply(result=5), SandboxCrashed, id="result-without-bindings"),
    pytest.param(_reply(result={"value": {"$": "int", "v": "zz"}, "bindings": {}}), SandboxValueError,
                 id="malformed-int"),
    pytest.param(_reply(result={"value": {"$": "pickle", "v": "gASV"}, "bindings": {}}), SandboxValueError,
                 id="unknown-tag"),
    pytest.param(_reply(result={"value": {"$": "list", "v": [{"x": 1}]}, "bindings": {}}), SandboxValueError,
                 id="untagged-object"),
    pytest.param(_reply(error={"data": {"kind": "SystemExit"}}), SandboxCrashed, id="unknown-error-kind"),
    pytest.param(_reply(error={"data": {"kind": "GuestError", "type": 1, "message": "m", "traceback": []}}),
                 SandboxCrashed, id="error-with-wrong-field-type"),
    pytest.param(_reply(error={"data": {"kind": "TimeLimit", "detail": "d", "value": "x"}}), SandboxCrashed,
                 id="limit-with-wrong-value-type"),
    pytest.param(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tool", "params": {
        "name": "rm", "args": {"$": "list", "v": []}, "kwargs": {"$": "dict", "v": []}}}).encode() + b"\n",
                 SandboxCrashed, id="call-to-a-tool-not-given"),
    pytest.param(json.dumps({"jsonrpc": "2.0", "method": "print", "params": {"text": 5}}).encode() + b"\n",
                 SandboxCrashed, id="print-of-a-non-string"),
    pytest.param(json.dumps({"jsonrpc": "2.0", "id": 99, "result": 1}).encode() + b"\n", SandboxCrashed,
                 id="answer-to-another-request"),
    pytest.param(json.dumps({"jsonrpc": "2.0", "method": "denied", "params": {"name": 5}}).encode() + b"\n",
                 SandboxCrashed, id="malformed-denial"),
    pytest.param(json.dumps({"jsonrpc": "2.0", "method": "refused", "params": {
        "filename": "f", "data": {"kind": "GuestError", "type": "X", "message": "m", "traceback": []}}}).encode()
                 + b"\n", SandboxCrashed, id="refusal-that-is-not-a-policy-violation"),
    pytest.param(json.dumps({"jsonrpc": "2.0", "method": "refused", "params": {
        "filename": "f", "data": {"kind": "PolicyViolation", "diagnostics": [5]}}}).encode() + b"\n",
                 SandboxCrashed, id="refusal-with-a-malformed-diagnostic"),
]


@pytest.mark.parametrize(("payload", "error"), GARBAGE)
def test_garbage_from_the_worker_is_a_typed_error_and_the_worker_is_gone(payload, error):
    with ScriptedBackend(payload) as backend, backend.session() as s:
        with pytest.raises(error):
            s.run("1")
        assert tagged_pids  # the host ended it, no kill from here(s.workspace.path) == []


def test_a_worker_that_never_says_ready_is_not_waited_on_forever():
    with ScriptedBackend(b"", ready=False) as backend, backend.session() as s:
        proc = s._proc
        with pytest.raises(SandboxCrashed):
            proc.wait_ready(0.3)
        assert tagged_pids(s.workspace.path) == []


def test_a_worker_that_goes_silent_is_killed_at_the_time_limit():
    with ScriptedBackend(b"", after="import time; time.sleep(60)") as backend, backend.session() as s:
        with pytest.raises(TimeLimit):
            s.run("1", limits={"time": 0.2})
        assert tagged_pids(s.workspace.path) == []


def test_a_worker_that_exits_without_answering_is_sandbox_crashed_with_its_status():
    with ScriptedBackend(b"", after="sys.stderr.write('boom'); sys.exit(3)") as backend, backend.session() as s:
        with pytest.raises(SandboxCrashed) as info:
            s.run("1")
        assert (info.value.exit_code, info.value.stderr) == (3, "boom")
