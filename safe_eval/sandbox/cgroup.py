"""How many processes a worker may have: a pids cgroup of its own (host side).

RLIMIT_NPROC (set by ``lockdown``) counts the processes of a *host* user and is ignored for
host root: under bubblewrap started by root, uid 65534 inside maps to host uid 0, so the rlimit
does not bind there. A pids cgroup does, whatever the uid: each worker gets one under
``/sys/fs/cgroup/pids/safe-eval/`` (the v1 controller) with ``pids.max`` = ``MAX_PROCESSES``,
and every process of the worker is moved into it before the first request, so everything the
guest forks is counted there (fork fails with EAGAIN past the bound).

Where the host may not create it (not root, no v1 pids controller), ``create`` returns None
and the worker reports the ``pids`` layer as not in force; RLIMIT_NPROC then binds (a non-root
host user), or nothing does (documented).
"""

from __future__ import annotations

import atexit
import os
import threading
import time

__all__ = ["MAX_PROCESSES", "ProcessLimit"]

ROOT = "/sys/fs/cgroup/pids"
MAX_PROCESSES = 64
_BASE = os.path.join(ROOT, "safe-eval")
# cgroups whose last process was not reaped yet when their worker ended: removed later
_LEFT: set[str] = set()
_LOCK = threading.Lock()
# an empty cgroup older than this was left by a process that ended first (killed, or its
# workers outlived its exit handlers): any process making a new one removes it
_STALE_SECONDS = 60.0
_swept = [0.0]


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


class ProcessLimit:
    """One worker's pids cgroup."""

    def __init__(self, path: str) -> None:
        self.path = path

    @classmethod
    def create(cls, name: str, limit: int = MAX_PROCESSES) -> ProcessLimit | None:
        """A new cgroup allowing ``limit`` processes, or None where this host cannot make one."""
        if not os.path.isdir(ROOT) or not os.access(ROOT, os.W_OK):
            return None
        _remove_left()
        _sweep_stale()
        path = os.path.join(_BASE, name)
        try:
            os.makedirs(_BASE, exist_ok=True)
            os.mkdir(path)
            _write(os.path.join(path, "pids.max"), str(limit))
        except OSError:
            return None
        return cls(path)

    def add(self, pids: list[int]) -> bool:
        """Move these processes in (False: one could not be moved, the bound is not in force)."""
        ok = True
        for pid in pids:
            try:
                _write(os.path.join(self.path, "cgroup.procs"), str(pid))
            except ProcessLookupError:
                continue  # ended meanwhile
            except OSError:
                ok = False
        return ok

    def remove(self) -> None:
        """Remove the cgroup (later, if a process of it is still to be reaped)."""
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            return
        except OSError:
            with _LOCK:
                _LEFT.add(self.path)


def _remove_left() -> None:
    with _LOCK:
        for path in list(_LEFT):
            try:
                os.rmdir(path)
            except FileNotFoundError:
                pass
            except OSError:
                continue
            _LEFT.discard(path)


def _sweep_stale() -> None:
    """Remove empty cgroups under ``_BASE`` older than ``_STALE_SECONDS`` (at most once a
    minute; rmdir of a cgroup that still has a process fails and leaves it)."""
    now = time.time()
    if now - _swept[0] < _STALE_SECONDS:
        return
    _swept[0] = now
    try:
        entries = os.listdir(_BASE)
    except OSError:
        return
    for entry in entries:
        path = os.path.join(_BASE, entry)
        try:
            if os.path.isdir(path) and now - os.stat(path).st_mtime > _STALE_SECONDS:
                os.rmdir(path)
        except OSError:
            continue


atexit.register(_remove_left)
