"""The process's resident memory, read cheaply, for the budget's growth check.

Guest memory is accounted as the growth of the process RSS since the evaluation started,
sampled once per fuel chunk (``Budget.refuel``). Reading ``/proc/self/statm`` through a file
descriptor kept open costs about 1.2 µs (measured), so sampling every chunk costs well under
1 % of a guest loop. Single large allocations are refused before they happen by the guards
(``check_alloc``); this sampling catches growth by many small allocations in a loop.

Where ``/proc`` is missing (macOS, Windows) ``rss()`` returns 0 and only the up-front size
estimates apply. RSS is process-wide: evaluations running concurrently in several threads
see each other's growth (documented limitation; use a sandbox backend to isolate them).
"""

from __future__ import annotations

import os

__all__ = ["rss"]

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
