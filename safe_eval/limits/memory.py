"""A run's memory: the process's resident memory, read cheaply, and attributed per run.

Single large allocations are refused before they happen by the guards (``check_alloc``, an
estimate at the allocation site). Growth by many small allocations in a loop is caught by
sampling the process RSS once per fuel chunk (``Budget.refuel``); reading ``/proc/self/statm``
through a descriptor kept open costs about 1.2 µs (measured), well under 1 % of a guest loop.

Per run, not per process: ``sample()`` attributes the RSS change since the *previous sample by
any run* to the run taking this one. A run samples every ``CHUNK`` ops, and the GIL lets one
thread run at a time, so what changed since the last sample was (up to one chunk of another
run's work at a thread switch) allocated or freed by the sampling run itself. Two concurrent
runs each under their limit therefore both finish, where the process-wide growth would stop
the one that samples after the other allocated. Why not exact accounting: CPython has no
per-thread allocation counter, tracemalloc costs 2-3x on every allocation, and counting at the
interpreter's allocation sites cannot see frees. Known error: a thread switch in the middle of
a chunk charges the other run's unsampled growth (at most one chunk of work, which may hold one
large allocation the guards let through: ``[0] * 10**7`` just before a switch is charged to the
run that samples next) to this one; and
host code that allocates between runs is charged to no run (the first sample of a run only
sets the mark). A run's total is never below zero.

Where ``/proc`` is missing (macOS, Windows) ``rss()`` returns 0 and only the up-front size
estimates apply.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["mark", "release", "rss", "sample", "unsampled"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

_fd: int | None = None
_fd_pid: int | None = None
_unavailable = False


def _open() -> int | None:
    global _fd, _fd_pid, _unavailable
    pid = os.getpid()
    if _fd is not None and _fd_pid == pid:
        return _fd
    # After a fork the inherited descriptor still names the parent's statm: reopen.
    try:
        _fd = os.open("/proc/self/statm", os.O_RDONLY)
    except OSError:
        _unavailable = True
        return None
    _fd_pid = pid
    return _fd


def rss() -> int:
    """Resident set size of this process in bytes (0 when it cannot be read)."""
    if _unavailable:
        return 0
    fd = _fd if _fd_pid == os.getpid() else _open()
    if fd is None:
        return 0
    try:
        data = os.pread(fd, 128, 0)
        return int(data.split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


# the process RSS at the last sample taken by any run (-1: none yet)
_last = -1


def mark() -> None:
    """Start attributing from now (a run's first sample: what came before is no run's)."""
    global _last
    _last = rss()


def sample() -> int:
    """The RSS change since the previous sample by any run, in bytes, charged to the caller."""
    global _last
    now = rss()
    delta = now - _last if _last >= 0 else 0
    _last = now
    return delta


def unsampled() -> int:
    """Growth no run has sampled yet (the watchdog adds it to each run it checks)."""
    return rss() - _last if _last >= 0 else 0


def release() -> None:
    """After a run stopped by its memory limit: collect its garbage (its frames and the
    exception's traceback form cycles) and hand the freed heap back to the system, so the
    process is left where the run found it. glibc keeps freed chunks of up to 32 MB in its
    heap (its mmap threshold grows with each freed mapping); ``malloc_trim`` returns them.
    A few milliseconds, paid only by runs that hit the limit."""
    import gc

    gc.collect()
    global _trim
    if _trim is None:
        try:
            import ctypes

            _trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):  # not glibc
            _trim = False
    if _trim:
        _trim(0)


_trim: Any = None
