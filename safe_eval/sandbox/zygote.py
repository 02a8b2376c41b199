"""The zygote: a warm process inside the bwrap sandbox that forks one fresh worker per request.

It imports the pipeline and pays the first evaluation's lazy imports once, then waits on its
control socket (a ``SOCK_SEQPACKET`` pair with the host, one message per packet). It never runs
guest code and never reads what a worker does: each worker is forked from this pristine state,
so nothing of one job (module state, files, environment) can reach the next.

Requests (JSON, fds attached with ``SCM_RIGHTS``):

- ``{"op": "spawn", "workspace": NAME, "config": {...}}`` with the worker's stdin, stdout and
  stderr: fork; the child enters its own namespaces (``namespaces.enter``), locks itself down
  and serves; the answer is ``{"pid": PID}`` with a pidfd of the child attached (the host reads
  the child's host pid from it, signals through it and polls it for the exit);
- ``{"op": "wait", "pid": PID}``: reap that child, answer ``{"status": WAITSTATUS}``.

End of the control socket ends the zygote; bwrap's pid namespace then ends every worker.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import traceback
from typing import Any

__all__ = ["main", "MAX_PACKET"]

MAX_PACKET = 1 << 16


def send(sock: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    if fds:
        socket.send_fds(sock, [data], fds)
    else:
        sock.send(data)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    config = json.loads(argv[0])
    control = socket.socket(fileno=int(config["control"]))
    from safe_eval.sandbox import lockdown, namespaces  # noqa: F401  (imported before any fork)
    from safe_eval.sandbox.worker import _warm_up

    _warm_up()
    lockdown.preload()
    send(control, {"ready": os.getpid()})
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, MAX_PACKET, 3)
        except OSError:
            return
        if not data:
            return
        msg = json.loads(data)
        if msg.get("op") == "spawn" and len(fds) == 3:
            pid = os.fork()
            if pid == 0:
                _child(control, msg, fds)
            for fd in fds:
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            send(control, {"pid": pid}, [pidfd])
            os.close(pidfd)
        elif msg.get("op") == "wait" and type(msg.get("pid")) is int:
            for fd in fds:
                os.close(fd)
            try:
                _, status = os.waitpid(msg["pid"], 0)
            except ChildProcessError:
                status = signal.SIGKILL  # already reaped: report it killed
            send(control, {"status": status})
        else:
            for fd in fds:
                os.close(fd)
            send(control, {"error": "malformed request"})


def _child(control: socket.socket, msg: dict[str, Any], fds: list[int]) -> None:
    """The forked worker: never returns into the zygote's loop."""
    code = 1
    try:
        control.close()
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        # its own session and group: the host kills the worker by its group id
        os.setsid()
        from safe_eval.sandbox import namespaces
        from safe_eval.sandbox.worker import serve

        namespaces.enter(str(msg["workspace"]))
        config = msg.get("config")
        serve(config if type(config) is dict else {}, warm=False)
        code = 0
    except SystemExit as exc:
        if exc.code not in (None, 0):
            print(exc.code, file=sys.stderr)
        code = 0 if exc.code in (None, 0) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stderr.flush()
        finally:
            os._exit(code)


if __name__ == "__main__":
    main()
