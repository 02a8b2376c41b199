"""The processes a run starts end with the run (runs inside the worker).

The worker is a child subreaper (``PR_SET_CHILD_SUBREAPER``): a process the guest forks whose
parent ends is reparented to the worker, never to the init of the pid namespace, so every
process a run started is a descendant of the worker, reachable through the kernel's
``/proc/<pid>/task/<tid>/children`` lists. After each run the worker SIGKILLs them all and
reaps them before it answers (a session's next run, or a batch pool's next job, starts with no
process of the last one left). They cannot leave the worker's reach first: seccomp denies
``setsid``/``setpgid`` and every new pid namespace (``lockdown``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import time

__all__ = ["become_subreaper", "descendants", "end_descendants"]

_PR_SET_CHILD_SUBREAPER = 36
_ROUNDS = 200  # a process forking while it is killed is caught by a later round


def become_subreaper() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return found


def descendants(pid: int | None = None) -> list[int]:
    """Every live (or not yet reaped) descendant of ``pid`` (this process)."""
    todo = _children(os.getpid() if pid is None else pid)
    seen: list[int] = []
    while todo:
        child = todo.pop()
        if child in seen:
            continue
        seen.append(child)
        todo.extend(_children(child))
    return seen


def end_descendants() -> None:
    """SIGKILL and reap every descendant of this process (bounded)."""
    for _ in range(_ROUNDS):
        pids = descendants()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap()
        time.sleep(0.001)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
