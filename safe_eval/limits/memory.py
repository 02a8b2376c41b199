"""A run's memory: the process's resident memory, read cheaply, and attributed per run.

Single large allocations are refused before they happen by the guards (``check_alloc``, an
estimate at the allocation site). Growth by many small allocations in a loop is caught by
sampling the process RSS once per fuel chunk (``Budget.refuel``); reading ``/proc/self/statm``
through a descriptor kept open costs about 1.2 µs (measured), well under 1 % of a guest loop.

Per run, not per process: ``sample(budget)`` attributes the RSS change since the *previous sample
by any run* to the run taking this one, except what other runs announced. A run samples every
``CHUNK`` ops and the GIL lets one thread run at a time, so what changed since the last sample
was allocated or freed by the sampling run itself, plus whatever another run did between its own
last sample and a thread switch. That remainder is the hole one run could push its memory
through onto another (allocate just before a switch, free after the other sampled: the other is
charged, the allocator's own total floors at zero), so every allocation the guards see before it
happens (``Budget.check_alloc``, from ``_ANNOUNCE_ABOVE`` bytes up) is *announced* here, and a
sample charges the announced bytes of other runs to those runs (up to the growth it saw) and only
the rest to the sampler. Two concurrent runs each under their limit therefore both finish, where
the process-wide growth would stop the one that samples after the other allocated.

Why not exact accounting: CPython has no per-thread allocation counter, tracemalloc costs 2-3x on
every allocation, and counting at the interpreter's allocation sites cannot see frees. Known
error: another run's unannounced growth (allocations under ``_ANNOUNCE_ABOVE`` bytes, at most one
chunk of its work) made just before a thread switch is charged to the run that samples next;
host code that allocates between runs is charged to no run (the first sample of a run only
moves the mark, after handing out what others announced). A run's total is never below zero.

Where ``/proc`` is missing (macOS, Windows) ``rss()`` returns 0 and only the up-front size
estimates apply.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from safe_eval.limits.budget import Budget

__all__ = ["announce", "leave", "mark", "release", "rss", "sample", "unsampled"]

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


def _forked() -> None:
    global _fd_pid
    _fd_pid = None  # the child reopens: the inherited descriptor names the parent's statm


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def rss() -> int:
    """Resident set size of this process in bytes (0 when it cannot be read). Every run reads
    it at its start and end: no ``getpid`` system call per read (a fork resets the descriptor)."""
    if _unavailable:
        return 0
    fd = _fd if _fd_pid is not None else _open()
    if fd is None:
        return 0
    try:
        data = os.pread(fd, 128, 0)
        return int(data.split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


# the process RSS at the last sample taken by any run (-1: none yet)
_last = -1
# run -> [bytes it announced before its own last sample, bytes announced since]. An announcement
# outlives the owner's next sample: a guard announces, may then charge ops (a refuel, which
# samples) and only then allocate, so the owner's own sample cannot tell whether it saw it.
_announced: dict[Budget, list[int]] = {}


def announce(budget: Budget, nbytes: int) -> None:
    """``budget``'s run is about to allocate ``nbytes``: another run's sample that sees the
    growth charges it there."""
    entry = _announced.get(budget)
    if entry is None:
        _announced[budget] = [0, nbytes]
    else:
        entry[1] += nbytes


def _settle(sampler: Budget | None, delta: int) -> int:
    """Charge other runs what they announced out of ``delta``; the rest is the sampler's."""
    for run, entry in list(_announced.items()):
        if run is sampler:
            # its own: already in its delta, or (allocated after this sample) in a later one
            if entry[1]:
                entry[0], entry[1] = entry[1], 0
            else:
                _announced.pop(run, None)
            continue
        if delta <= 0:
            continue
        pending = entry[0] + entry[1]
        share = pending if pending < delta else delta
        run.charge_growth(share)
        delta -= share
        if share == pending:
            _announced.pop(run, None)
        else:  # what is left stays announced, the older part consumed first
            older = entry[0] - share
            entry[0], entry[1] = (older, entry[1]) if older >= 0 else (0, entry[1] + older)
    return delta


def mark(budget: Budget | None = None) -> None:
    """Start attributing from now (a run's first sample: what came before is no run's, except
    what other runs announced, which is theirs)."""
    global _last
    now = rss()
    if _last >= 0 and _announced:
        _settle(budget, now - _last)
    _last = now


def sample(budget: Budget | None = None) -> int:
    """The RSS change since the previous sample by any run, in bytes, less what other runs
    announced (charged to them): the sampler's share."""
    global _last
    now = rss()
    delta = now - _last if _last >= 0 else 0
    _last = now
    if _announced:
        delta = _settle(budget, delta)
    return delta


def leave(budget: Budget) -> int:
    """``budget``'s run is over: the growth since the last sample is its own (what it allocated
    last, perhaps its result), except what other runs announced; its announcements go with it,
    so no later run's growth is ever charged to a finished one."""
    global _last
    if _last >= 0:
        now = rss()
        delta = now - _last
        _last = now
        if _announced:
            delta = _settle(budget, delta)
        # kept by the run's budget: a decoded function's later calls draw on it again
        budget.charge_growth(delta)
    _announced.pop(budget, None)
    return budget.mem_used


def unsampled(budget: Budget | None = None) -> int:
    """Growth no run has sampled yet, less what runs other than ``budget`` announced (the
    watchdog adds it to the run it checks)."""
    if _last < 0:
        return 0
    grown = rss() - _last
    for run, entry in list(_announced.items()):
        if run is not budget:
            grown -= entry[0] + entry[1]
    return grown


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
