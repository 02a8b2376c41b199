"""The host's side of the zygote (``zygote.py``): one warm zygote per sandbox configuration.

A cold bwrap worker costs bwrap plus a Python start plus importing safe_eval; forking it from
a warm zygote costs a fork and the worker's own isolation (``namespaces.enter`` and
``lockdown.apply``). The zygotes live in this module (``zygote_for``), shared by every backend
with the same configuration, and end at exit (``shutdown``); a zygote that died is started
again at the next request.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable
from typing import IO, Any

from safe_eval.errors import SandboxUnavailable
from safe_eval.sandbox.zygote import MAX_PACKET

__all__ = ["ForkedProcess", "Zygote", "shutdown", "zygote_for"]

START_SECONDS = 30.0
# Every exchange on the control socket is bounded: a zygote that does not answer in time (wedged,
# or compromised by a worker it forked before it was locked down) is killed and the request
# fails with a typed error, never a host thread blocked for ever. A spawn answers after one
# fork; a wait is asked only once the worker's pidfd says it has ended.
SPAWN_SECONDS = 10.0
REAP_SECONDS = 2.0
# builds the zygote's command line: (host directory bound as the workspaces root, control fd)
ArgvFactory = Callable[[str, int], list[str]]


class Zygote:
    def __init__(self, argv_for: ArgvFactory) -> None:
        self._argv_for = argv_for
        self._lock = threading.Lock()
        # every worker's workspace is made here: the zygote sees it as namespaces.WORKSPACES
        self.root = tempfile.mkdtemp(prefix="safe-eval-zygote-")
        self._sock: socket.socket | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def _start(self) -> socket.socket:
        from safe_eval.sandbox.process import spawn

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            argv = self._argv_for(self.root, theirs.fileno())
            self._proc = spawn(argv, pass_fds=(theirs.fileno(),))
        except OSError as exc:
            ours.close()
            raise SandboxUnavailable(f"cannot start the sandbox zygote: {exc}") from None
        finally:
            theirs.close()
        ready, _, _ = select.select([ours], [], [], START_SECONDS)
        hello = ours.recv(MAX_PACKET) if ready else b""
        if not hello:
            ours.close()
            self._stop()
            raise SandboxUnavailable("the sandbox zygote did not start")
        self._sock = ours
        return ours

    def _stop(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        with self._lock:
            self._stop()
            shutil.rmtree(self.root, ignore_errors=True)

    def _request(self, message: dict[str, Any], fds: list[int],
                 seconds: float) -> tuple[dict[str, Any], list[int]]:
        """One request and its answer within ``seconds`` (the caller holds the lock). A zygote
        that does not answer in time, or answers with anything but a JSON object, is stopped:
        ``SandboxUnavailable``."""
        sock = self._sock
        if sock is None or self._proc is None or self._proc.poll() is not None:
            self._stop()
            sock = self._start()
        data = json.dumps(message).encode()
        sock.settimeout(seconds)  # sends and receives alike: a zygote that stops reading too
        try:
            if fds:
                socket.send_fds(sock, [data], fds)
            else:
                sock.send(data)
            answer, got, _, _ = socket.recv_fds(sock, MAX_PACKET, 1)
        except TimeoutError:
            self._stop()
            raise SandboxUnavailable(f"the sandbox zygote did not answer within {seconds:g}s; "
                                     "it was killed") from None
        except OSError:
            answer, got = b"", []
        try:
            reply = json.loads(answer) if answer else None
        except (ValueError, RecursionError):
            reply = None
        if type(reply) is not dict:
            for fd in got:
                os.close(fd)
            self._stop()
            raise SandboxUnavailable("the sandbox zygote ended" if not answer
                                     else "the sandbox zygote answered with garbage; it was killed")
        return reply, got

    # -- workers ---------------------------------------------------------------------------
    def spawn(self, workspace_name: str, config: dict[str, Any]) -> ForkedProcess:
        """A fresh worker forked from the zygote, its pipes ours."""
        pipes = [os.pipe() for _ in range(3)]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        try:
            with self._lock:
                request = {"op": "spawn", "workspace": workspace_name, "config": config}
                reply, fds = self._request(request, theirs, SPAWN_SECONDS)
        except BaseException:
            for r, w in pipes:
                os.close(r)
                os.close(w)
            raise
        for fd in theirs:
            os.close(fd)
        ours = (pipes[0][1], pipes[1][0], pipes[2][0])
        why = None
        if type(reply.get("pid")) is not int or len(fds) != 1:
            why = "the sandbox zygote could not fork a worker"
        else:
            try:
                host_pid = _host_pid(fds[0])
            except (OSError, ValueError, SandboxUnavailable):  # not a live worker's pidfd
                why = "the sandbox zygote answered a spawn without a live worker"
        if why is not None:  # a zygote gone wrong: the next spawn starts a fresh one
            for fd in (*ours, *fds):
                os.close(fd)
            with self._lock:
                self._stop()
            raise SandboxUnavailable(why)
        return ForkedProcess(self, reply["pid"], fds[0], host_pid, os.fdopen(ours[0], "wb"),
                             os.fdopen(ours[1], "rb"), os.fdopen(ours[2], "rb"))

    def reap(self, pid: int) -> int:
        """The wait status of a worker that has ended (SIGKILL when the zygote is gone)."""
        with self._lock:
            # a zygote that ended took its pid namespace, this worker included, with it: never
            # start a new zygote only to ask it about a worker it never had (at exit that start
            # fails: the spawner thread is already shut down)
            if self._sock is None or self._proc is None or self._proc.poll() is not None:
                return signal.SIGKILL
            try:
                reply, fds = self._request({"op": "wait", "pid": pid}, [], REAP_SECONDS)
            except SandboxUnavailable:
                return signal.SIGKILL
        for fd in fds:
            os.close(fd)
        status = reply.get("status")
        return status if type(status) is int else signal.SIGKILL


def _host_pid(pidfd: int) -> int:
    """The host pid behind a pidfd the zygote sent. Only a live process's: the kernel reports
    -1 for one already reaped and 0 for one outside our pid namespace, and the host signals this
    pid's process group (``killpg(0)`` would be the host's own)."""
    with open(f"/proc/self/fdinfo/{pidfd}") as info:
        for line in info:
            if line.startswith("Pid:"):
                pid = int(line.split()[1])
                if pid > 1:
                    return pid
                break
    raise SandboxUnavailable("the zygote's answer names no live worker")


class ForkedProcess:
    """A worker forked by a zygote, with the part of ``subprocess.Popen`` a worker uses."""

    def __init__(self, zygote: Zygote, ns_pid: int, pidfd: int, host_pid: int, stdin: IO[bytes],
                 stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self._zygote = zygote
        self._ns_pid = ns_pid
        self._pidfd: int | None = pidfd
        self.pid = host_pid  # also its process group: it called setsid
        self.stdin: IO[bytes] | None = stdin
        self.stdout: IO[bytes] | None = stdout
        self.stderr: IO[bytes] | None = stderr
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode if self.returncode is not None else self._wait(0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._wait(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0)
        return code

    def _wait(self, timeout: float | None) -> int | None:
        if self.returncode is not None:
            return self.returncode
        assert self._pidfd is not None
        ready, _, _ = select.select([self._pidfd], [], [], timeout)
        if not ready:
            return None
        status = self._zygote.reap(self._ns_pid)
        os.close(self._pidfd)
        self._pidfd = None
        self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self._pidfd is not None:
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass


_ZYGOTES: dict[tuple[Any, ...], Zygote] = {}
_LOCK = threading.Lock()


def zygote_for(key: tuple[Any, ...], argv_for: ArgvFactory) -> Zygote:
    """The zygote of this configuration, made on first use."""
    with _LOCK:
        zygote = _ZYGOTES.get(key)
        if zygote is None:
            zygote = _ZYGOTES[key] = Zygote(argv_for)
        return zygote


def shutdown() -> None:
    with _LOCK:
        zygotes = list(_ZYGOTES.values())
        _ZYGOTES.clear()
    for zygote in zygotes:
        zygote.close()


atexit.register(shutdown)
