"""One running worker, seen from the host: start, talk, kill.

The worker is started in its own session (process group), so one ``killpg`` ends it and
everything it started; bubblewrap's ``--die-with-parent`` and pid namespace take the inside
down with it. Reading and writing are ``select``-driven against the run's deadline (tool calls
included): a worker that goes silent past its time limit, stops reading, floods its output, or
sends garbage or a line too large to decode (``protocol.oversized``) is killed and reported,
never waited on. Before its first request, every process of a worker is put in a pids cgroup
of its own (``cgroup``).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any, NoReturn, Protocol

from safe_eval.errors import (
    OutputLimit,
    PolicyViolation,
    SafeEvalError,
    SandboxCrashed,
    SandboxValueError,
    TimeLimit,
)
from safe_eval.sandbox import codec
from safe_eval.sandbox.cgroup import ProcessLimit
from safe_eval.sandbox.protocol import MAX_LINE, dumps, error_data, error_from_data, oversized, parse_message

__all__ = ["ProcessHandle", "WorkerProcess", "spawn"]

# Every worker is started from this one long-lived thread: bubblewrap's --die-with-parent is
# PR_SET_PDEATHSIG, which fires when the *thread* that started it ends, so a worker started by a
# short-lived thread (a pool refill, a caller's request thread) would be killed with it.
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="safe-eval-spawner")
_STDERR_TAIL = 8192
# a run waits for its worker to start (its ``ready``) within its own deadline: the run's time
# limit + grace + this allowance (``WorkerProcess.request``); a start slower than the allowance
# takes the rest from the run's time. A cold worker starts in ~0.25 s on a loaded 2-core machine.
STARTUP_ALLOWANCE = 2.0
# ``Backend.warm``: starting the pool ahead of any run, no run's deadline to keep
STARTUP_SECONDS = 30.0



class ProcessHandle(Protocol):
    """What a worker needs of its process: ``subprocess.Popen``, or a zygote's ``ForkedProcess``."""

    pid: int
    returncode: int | None
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


def spawn(argv: Sequence[str], *, pass_fds: Sequence[int] = ()) -> subprocess.Popen[bytes]:
    """A long-lived helper process (a zygote), started by the spawner thread, in its own
    session, its output discarded."""
    return _SPAWNER.submit(
        subprocess.Popen, list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, env={}, start_new_session=True, close_fds=True, pass_fds=tuple(pass_fds),
    ).result()


ToolHandler = Callable[[str, tuple[Any, ...], dict[str, Any]], Any]
# a tool call the worker's copy of the policy denied: (name, args, kwargs; None when they were
# not plain data), for the host's audit hook
DenialHandler = Callable[[str, "tuple[Any, ...] | None", "dict[str, Any] | None"], None]
PrintHandler = Callable[[str], None]
# code the worker's copy of the policy refused (a guest exec string): its PolicyViolation and file
RefusalHandler = Callable[[PolicyViolation, str], None]


def tagged_pids(tag: str) -> list[int]:
    """Live host pids whose command line carries ``tag`` (a worker and what it forked)."""
    needle = tag.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if needle not in f.read():
                    continue
            with open(f"/proc/{entry}/stat", "rb") as f:
                if f.read().rpartition(b") ")[2][:1] == b"Z":
                    continue
        except OSError:
            continue
        found.append(int(entry))
    return found


def _group_running(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is still more than a zombie. (bubblewrap's init
    inside the pid namespace becomes an orphaned zombie that the host's init reaps when it
    gets to it, a second or more later: it runs nothing, and waiting for it would add that to
    every call.)"""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return bool(_group_members(pgid))


def _group_members(pgid: int) -> list[int]:
    """Host pids of the live processes of group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rpartition(b") ")[2].split()
        except OSError:
            continue
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def _threads(pid: int) -> int:
    """How many threads host process ``pid`` runs (0: it ended)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def _wait_group_gone(pgid: int) -> None:
    """Wait (bounded) until every process of the killed group is dead: SIGKILL is delivered at
    once, but processes in a pid namespace finish dying after its init does."""
    for _ in range(500):
        if not _group_running(pgid):
            return
        time.sleep(0.002)


def _kill_tagged(tag: str) -> None:
    """Belt and braces after ``killpg``: SIGKILL anything still carrying the worker's tag
    (a sandbox runtime may hold the worker outside the group), until none is left (bounded)."""
    for _ in range(50):
        pids = tagged_pids(tag)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)


class WorkerProcess:
    """A started worker. Not thread-safe: one request at a time."""

    def __init__(self, argv: Sequence[str], *, cwd: str | None = None, tag: str = "",
                 outside_group: bool = False, started: ProcessHandle | None = None) -> None:
        """Start ``argv``, or take over ``started`` (a worker a zygote forked)."""
        self.tag = tag
        # the worker runs outside our process group (a container runtime starts it): killing
        # the group is not enough, find its processes by their tag
        self.outside_group = outside_group
        self.proc: ProcessHandle = started if started is not None else _SPAWNER.submit(
            subprocess.Popen, list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env={}, cwd=cwd, start_new_session=True, close_fds=True,
        ).result()
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._err = self.proc.stderr.fileno()
        # every host <-> worker transfer waits in select() against a deadline, never in a
        # blocking read or write: a worker that stops reading must not hang the host
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        os.set_blocking(self._err, False)
        self._buf = bytearray()
        self._lines: list[bytes] = []
        self._stderr = bytearray()
        self.ready = False
        self.layers: dict[str, bool] = {}
        self.dead = False
        self._limit: ProcessLimit | None = None
        # the worker's processes when it said ready (bubblewrap and its init, the worker), with
        # their thread counts: after a plain-CPython run any other process of its group, or
        # thread of one of them, outlived the run (``_left_behind``)
        self._started: dict[int, int] = {}

    @property
    def pid(self) -> int:
        return self.proc.pid

    # -- reading ---------------------------------------------------------------------------
    def _next_message(self, deadline: float) -> dict[str, Any] | None:
        """The next message, or None at the deadline; ``SandboxCrashed`` at end of output."""
        while not self._lines:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._out, self._err], [], [], left)
            if self._err in ready:
                self._drain_stderr()
            if self._out in ready:
                chunk = self._read(self._out)
                if chunk is None:
                    continue
                if not chunk:
                    self._drain_stderr()
                    raise self._crashed("the sandbox worker ended without answering", ended=True)
                self._buf += chunk
                if b"\n" in chunk:
                    *lines, rest = bytes(self._buf).split(b"\n")
                    self._lines.extend(lines)
                    self._buf = bytearray(rest)
                if len(self._buf) > MAX_LINE:
                    raise self._crashed("the sandbox worker sent a line longer than the protocol allows")
        try:
            return parse_message(self._lines.pop(0))
        except SandboxCrashed as exc:  # garbage, or too large to decode: the worker ends here
            raise self._crashed(str(exc)) from None

    def _read(self, fd: int) -> bytes | None:
        """Bytes read, b"" at end of file, None when nothing was there after all."""
        try:
            return os.read(fd, 1 << 20)
        except BlockingIOError:
            return None

    def _drain_stderr(self) -> None:
        while True:
            try:
                chunk = os.read(self._err, 1 << 16)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self._stderr += chunk
            if len(self._stderr) > _STDERR_TAIL:
                del self._stderr[:-_STDERR_TAIL]

    def _crashed(self, message: str, *, ended: bool = False) -> SandboxCrashed:
        if ended:  # the output closed: let the worker report how it ended before we kill it
            try:
                self.proc.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        rc = self.proc.returncode
        self._drain_stderr()
        tail = self._stderr.decode("utf-8", "replace")
        sig = -rc if rc is not None and rc < 0 else None
        if rc is not None and 128 < rc <= 128 + 64:  # bwrap and container runtimes: 128 + signal
            sig = rc - 128
        return SandboxCrashed(message, signal=sig, exit_code=rc if sig is None else None, stderr=tail)

    # -- talking ---------------------------------------------------------------------------
    def wait_ready(self, timeout: float = STARTUP_SECONDS) -> None:
        self._await_ready(time.monotonic() + timeout, f"within {timeout:g}s")

    def _await_ready(self, deadline: float, within: str) -> None:
        """Read the worker's ``ready`` before ``deadline``; else it is killed, SandboxCrashed."""
        if self.ready:
            return
        msg = self._next_message(deadline)
        if msg is None:
            raise self._crashed(f"the sandbox worker did not start {within}")
        if msg.get("method") != "ready":
            raise self._crashed("the sandbox worker did not start with a ready message")
        params = msg.get("params")
        layers = params.get("layers") if type(params) is dict else None
        self.layers = {str(k): bool(v) for k, v in layers.items()} if type(layers) is dict else {}
        self.layers["pids"] = self._bound_processes()
        self._started = {pid: _threads(pid) for pid in _group_members(self.proc.pid)}
        self.ready = True

    def _bound_processes(self) -> bool:
        """Put every process of the worker (started, no guest code yet) in a pids cgroup of
        its own: what the guest forks later is counted there (``cgroup``)."""
        if not self.tag:
            return False
        self._limit = ProcessLimit.create(os.path.basename(self.tag))
        if self._limit is None:
            return False
        # a started command (bubblewrap, its init, the worker) is a process group; a worker a
        # zygote forked is one process so far
        started = isinstance(self.proc, subprocess.Popen)
        return self._limit.add(_group_members(self.proc.pid) if started else [self.proc.pid])

    def send(self, message: dict[str, Any], deadline: float) -> bool:
        """Write one message before ``deadline``; False (nothing more written) when the worker
        did not take it in time, ``SandboxCrashed`` when it closed its input. A message the
        worker would refuse as too large (``protocol.oversized``, the bound the host puts on the
        worker's lines) is ``SandboxValueError``, nothing written: a run whose values do not
        fit is refused before it starts, the worker untouched."""
        return self._write(self._line(message), deadline)

    @staticmethod
    def _line(message: dict[str, Any]) -> bytes:
        """The wire line of ``message``; ``SandboxValueError`` when the worker would refuse it."""
        message["jsonrpc"] = "2.0"
        line = dumps(message)
        why = oversized(line)
        if why is not None:
            raise SandboxValueError(f"too large to cross the sandbox boundary: {why}")
        return line

    def _write(self, line: bytes, deadline: float) -> bool:
        view = memoryview(line)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            readable, writable, _ = select.select([self._err], [self._in], [], left)
            if readable:
                self._drain_stderr()  # a worker blocked on a full stderr pipe reads nothing
            if not writable:
                continue
            try:
                view = view[os.write(self._in, view):]
            except BlockingIOError:
                continue
            except OSError:  # EPIPE: the worker closed its end (or ended)
                raise self._crashed("the sandbox worker stopped reading") from None
        return True

    def request(self, method: str, params: dict[str, Any], *, seconds: float, grace: float,
                output_limit: int, on_print: PrintHandler, on_tool: ToolHandler,
                on_denied: DenialHandler | None = None, on_refused: RefusalHandler | None = None,
                denials_end_the_run: bool = False, startup: float = STARTUP_ALLOWANCE) -> Any:
        """Send one request and serve the worker (output, tool calls) until it answers. Past
        ``seconds`` (+ ``grace``) of wall time, tool calls and every transfer included, or
        ``output_limit`` characters of output, the worker is killed and the limit raised.
        A worker not started yet is waited for within the same deadline, extended by
        ``startup`` seconds: the whole call ends within ``startup + seconds + grace`` (a
        worker that never says ready: SandboxCrashed), and a worker that took longer than
        ``startup`` to start leaves the run only the rest of its time.
        ``denials_end_the_run``: a tool call the policy denies kills the worker and raises here,
        instead of reaching guest code that could catch it (plain CPython mode)."""
        end = time.monotonic() + startup + seconds + grace
        self._await_ready(end, f"within the run's time limit ({seconds:g}s) and its start-up "
                               f"allowance ({startup:g}s)")
        deadline = min(time.monotonic() + seconds + grace, end)
        line = self._line({"id": 1, "method": method, "params": params})  # too large: worker untouched
        try:
            if not self._write(line, deadline):
                self._too_slow(seconds)
            msg = self._serve(deadline, seconds, output_limit, on_print, on_tool, on_denied, on_refused,
                              denials_end_the_run)
        except BaseException:
            # the request is under way in the worker (or half written): whatever it sends
            # next, this run's output and answer, would reach the next request as its own.
            # A host callback that raised (on_print, an audit hook), a cancel: the worker ends
            self.kill()
            raise
        if denials_end_the_run:
            self._left_behind()
        if "error" in msg:
            error = msg["error"]
            try:
                reported = error_from_data(error.get("data") if type(error) is dict else None)
            except SandboxCrashed:
                self.kill()
                raise
            raise reported
        return msg.get("result")

    def _serve(self, deadline: float, seconds: float, output_limit: int, on_print: PrintHandler,
               on_tool: ToolHandler, on_denied: DenialHandler | None, on_refused: RefusalHandler | None,
               denials_end_the_run: bool) -> dict[str, Any]:
        """Serve the worker's output, tool calls and reports until it answers request 1: that
        answer (an error it reports is the caller's to raise)."""
        printed = 0
        # the pieces of one guest write so far (``protocol.PRINT_CHUNK``): shown once the write
        # is whole, so a write the output limit cuts is not shown, as in process
        pending: list[str] = []
        while True:
            msg = self._next_message(deadline)
            if msg is None:
                self._too_slow(seconds)
            kind = msg.get("method")
            if kind == "print":
                note = msg.get("params")
                text = note.get("text") if type(note) is dict else None
                # a worker never sends an empty piece (``GuestOutput.write``): empty pieces
                # would count nothing against the output limit, and be kept until the deadline
                if type(text) is not str or not text:
                    raise self._crashed("the sandbox worker sent malformed output")
                printed += len(text)
                if printed > output_limit:
                    self.kill()
                    raise OutputLimit("too much output; the worker was killed", value=output_limit,
                                      reached=printed)
                pending.append(text)
                if type(note) is not dict or note.get("more") is not True:
                    on_print("".join(pending))
                    pending.clear()
            elif kind == "denied":
                self._denied(msg, on_denied)
            elif kind == "refused":
                self._refused(msg, on_refused)
            elif kind == "tool":
                # the tool's time is the run's time: a run that calls slow tools ends at its
                # limit like any other (tools are host code: they are not interrupted, the run
                # ends when the answer would go back)
                reply = self._tool_reply(msg, on_tool, denials_end_the_run)
                if time.monotonic() >= deadline or not self._send_reply(reply, deadline):
                    self._too_slow(seconds)
            elif kind is None and msg.get("id") == 1:
                return msg
            else:
                raise self._crashed("the sandbox worker sent an unexpected message")

    def _left_behind(self) -> None:
        """Plain CPython: the guest is the worker process, so its own sweep of the run's
        processes (``processes.end_descendants``) is guest-writable state, and a thread is no
        process at all. The host checks: a process of the worker's group (seccomp keeps every
        one in it) that was not there when the worker said ready, or a thread more than it had
        then, outlived the run, and the worker ends with it (the next run starts a fresh one)."""
        members = _group_members(self.proc.pid)
        if any(pid not in self._started or _threads(pid) > self._started[pid] for pid in members):
            self.kill()

    def _send_reply(self, reply: dict[str, Any], deadline: float) -> bool:
        """Answer a tool call; a result too large to cross is the guest's ``SandboxValueError``
        (as one that is not plain data is), not a line the worker would misread."""
        try:
            return self.send(reply, deadline)
        except SandboxValueError as exc:
            return self.send({"id": reply.get("id"), "error": {
                "code": -32001, "message": "SandboxValueError", "data": error_data(exc)}}, deadline)

    def _denied(self, msg: dict[str, Any], on_denied: DenialHandler | None) -> None:
        params = msg.get("params")
        if type(params) is not dict or type(params.get("name")) is not str:
            raise self._crashed("the sandbox worker sent a malformed denial")
        args = None if params.get("args") is None else self._decode(params["args"])
        kwargs = None if params.get("kwargs") is None else self._decode(params["kwargs"])
        if (args is not None and type(args) is not list) or (kwargs is not None and (
                type(kwargs) is not dict or any(type(k) is not str for k in kwargs))):
            raise self._crashed("the sandbox worker sent a malformed denial")
        if on_denied is not None:
            on_denied(params["name"], None if args is None else tuple(args), kwargs)

    def _refused(self, msg: dict[str, Any], on_refused: RefusalHandler | None) -> None:
        params = msg.get("params")
        if type(params) is not dict or type(params.get("filename")) is not str:
            raise self._crashed("the sandbox worker sent a malformed refusal")
        data = params.get("data")
        refused = None
        if type(data) is dict and data.get("kind") == "PolicyViolation":
            try:  # checked field by field, as a reported error is
                refused = error_from_data(data)
            except SandboxCrashed:
                pass
        if not isinstance(refused, PolicyViolation):
            raise self._crashed("the sandbox worker sent a malformed refusal")
        if on_refused is not None:
            on_refused(refused, params["filename"][:1024])

    def _decode(self, data: Any) -> Any:
        """A value the worker sent in a call; a malformed one ends the worker."""
        try:
            return codec.decode(data)
        except SandboxValueError:
            self.kill()
            raise

    def _too_slow(self, seconds: float) -> NoReturn:
        self.kill()
        raise TimeLimit("the sandboxed run took too long; the worker was killed", value=seconds)

    def _tool_reply(self, msg: dict[str, Any], on_tool: ToolHandler,
                    denials_end_the_run: bool) -> dict[str, Any]:
        ident = msg.get("id")
        params = msg.get("params")
        if type(params) is not dict or type(params.get("name")) is not str or type(ident) is not int:
            raise self._crashed("the sandbox worker sent a malformed tool call")
        args, kwargs = self._decode(params.get("args")), self._decode(params.get("kwargs"))
        if type(args) is not list or type(kwargs) is not dict or any(type(k) is not str for k in kwargs):
            raise self._crashed("the sandbox worker sent a malformed tool call")
        try:
            result = codec.encode(on_tool(params["name"], tuple(args), kwargs))
        except SandboxCrashed:  # a protocol violation (a tool this run does not have): end it
            self.kill()
            raise
        except PolicyViolation as exc:
            if denials_end_the_run:
                self.kill()
                raise
            return {"id": ident, "error": {"code": -32001, "message": "PolicyViolation",
                                           "data": error_data(exc)}}
        except (SafeEvalError, Exception) as exc:  # the tool's failure is the guest's to see
            return {"id": ident, "error": {"code": -32001, "message": type(exc).__name__,
                                           "data": error_data(exc)}}
        return {"id": ident, "result": result}

    # -- ending ----------------------------------------------------------------------------
    def signal_group(self) -> None:
        """SIGKILL the worker's whole process group now (``kill`` reaps and checks)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        """SIGKILL the worker's whole process group, reap it, and wait until it is dead."""
        if self.dead:
            return
        self.dead = True
        self.signal_group()
        try:
            self.proc.kill()
        except OSError:
            pass
        try:
            self.proc.wait()
            _wait_group_gone(self.proc.pid)
            if self.outside_group and self.tag:
                _kill_tagged(self.tag)
        finally:
            if self._limit is not None:
                self._limit.remove()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass

    def close(self) -> None:
        """End the worker and everything it started. A worker is never reused by another
        caller and holds nothing to flush, so it is killed rather than asked (an orderly exit
        would only add its interpreter shutdown to the caller's latency)."""
        self.kill()
