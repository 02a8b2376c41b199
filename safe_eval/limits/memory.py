"""A run's memory: the process's resident memory, read cheaply, and attributed per run.

Single large allocations are refused before they happen by the guards (``check_alloc``, an
estimate at the allocation site). Growth by many small allocations in a loop is caught by
sampling the process RSS once per fuel chunk (``Budget.refuel``); reading ``/proc/self/statm``
through a descriptor kept open costs about 1.2 µs (measured), well under 1 % of a guest loop.

Per run, not per process. Every run marks the RSS when it starts (``Budget.start_memory``: one
read), and ``sample(budget)`` attributes the change since the *previous sample by any run* to
the run taking it, except what other runs announced. A run samples every ``CHUNK`` ops, before
each allocation of a megabyte or more, when it hands the thread to host code (a tool call, a
sleep: ``checkpoint``) and when it ends (``leave``, which the budget checks against the limit;
a run too short to have grown past its headroom, ending while no other run is in progress,
only ``forget``s its announcements: ``alone``).
The GIL lets one thread run at a time, so what changed since the last sample was allocated or
freed by the sampling run itself, plus whatever another run did between its own last sample and
an involuntary thread switch. Three rules keep that remainder from moving memory between runs:

- growth: every allocation the guards see before it happens (``Budget.check_alloc``, from
  ``_ANNOUNCE_ABOVE`` bytes up) is *announced*; a sample charges the announced bytes of other
  runs to those runs (up to the growth it saw) and only the rest to the sampler;
- announcements are estimates (upper bounds): the owner's own next sample settles its fresh
  announcement against the growth that sample saw and carries only the rest, to its next own
  sample at most; a checkpoint or its end drops them all. A surplus is therefore never left for
  other runs' growth to pay while the owner is parked;
- frees: a fall is credited in full only to the run that took the previous sample too; across
  another run's sample (or a run's end) the sampler is credited at most the growth of its own
  that others' samples charged to it since its own last sample. Other frees are no run's (the
  run that freed stays charged until its memory is measured again: the error fails closed).

Known error (what the rules cannot see): what another run allocates in pieces under
``_ANNOUNCE_ABOVE`` bytes, or frees, within the one chunk (< ``CHUNK`` ops) it has run since its
own last sample, when an involuntary thread switch falls there: that growth is charged to, and
that free credited to, the run that samples next. Host code that allocates between runs is
charged to no run (a run's mark settles only what other runs announced). A run's total is never
below zero.

Where ``/proc`` is missing (macOS, Windows) ``rss()`` returns 0 and only the up-front size
estimates apply.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from safe_eval.limits.budget import Budget

__all__ = ["alone", "announce", "begin", "checkpoint", "forget", "leave", "mark", "release", "rss", "sample",
           "unsampled"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

_fd: int | None = None
_fd_pid: int | None = None
_unavailable = False


def _open() -> int | None:
    """Open ``/proc/self/statm`` (``rss`` calls it first and after a fork: the inherited
    descriptor still names the parent's statm, and is closed here)."""
    global _fd, _fd_pid, _unavailable
    if _fd is not None:
        os.close(_fd)
        _fd = None
    try:
        _fd = os.open("/proc/self/statm", os.O_RDONLY)
    except OSError:
        _unavailable = True
        return None
    _fd_pid = os.getpid()
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


# the process RSS at the last sample taken by any run (-1: none yet), and the run that took it
# (None: a run that ended, or none yet)
_last = -1
_last_by: Budget | None = None
# run -> [bytes announced before its own last sample and not seen there, bytes announced since].
# An announcement may outlive the owner's next sample by one: a guard announces, may then charge
# ops (a refuel, which samples) and only then allocate. What the owner's own sample saw of its
# fresh announcement is settled there; only the rest is carried, and only to its next own
# sample (or its next tool call, ``checkpoint``, where no guard is between announcing and
# allocating): the surplus of an over-estimate is never left for other runs' growth to pay.
_announced: dict[Budget, list[int]] = {}


def announce(budget: Budget, nbytes: int) -> None:
    """``budget``'s run is about to allocate ``nbytes``: another run's sample that sees the
    growth charges it there."""
    entry = _announced.get(budget)
    if entry is None:
        _announced[budget] = [0, nbytes]
    else:
        entry[1] += nbytes


def _others(sampler: Budget | None, delta: int) -> int:
    """Charge other runs what they announced out of growth ``delta``; the rest is the sampler's."""
    for run, entry in list(_announced.items()):
        if run is sampler:
            continue
        if delta <= 0:
            break
        pending = entry[0] + entry[1]
        share = pending if pending < delta else delta
        run.charge_growth(share)
        run.mem_lent += share  # its own growth, seen by another: it may be credited its free
        delta -= share
        if share == pending:
            _announced.pop(run, None)
        else:  # what is left stays announced, the older part consumed first
            older = entry[0] - share
            entry[0], entry[1] = (older, entry[1]) if older >= 0 else (0, entry[1] + older)
    return delta


def _own(sampler: Budget, delta: int, final: bool) -> int:
    """The sampler's share of ``delta`` (the change since the last sample by any run, less what
    others announced). A fall is credited in full only when the sampler took that last sample:
    otherwise the span holds another run's activity (or the end of a finished one), whose frees
    are not the sampler's; it is then credited at most the growth of its own that other runs'
    samples charged to it since its own last sample (memory it may have freed since). Its own
    announcements are settled against what it grew (``final``: all of them)."""
    if delta < 0 and _last_by is not sampler:
        lent = sampler.mem_lent
        delta = -lent if lent < -delta else delta
    sampler.mem_lent = 0
    entry = _announced.get(sampler)
    if entry is not None:
        carry = entry[1] - (delta if delta > 0 else 0)
        if final or carry <= 0:
            _announced.pop(sampler, None)
        else:
            entry[0], entry[1] = carry, 0
    return delta


# One sample at a time: reading the RSS releases the GIL (``os.pread``), and a sample that read
# it before another run's later sample, then stored its older reading as the mark, moved the
# mark backwards: the next sample counted that run's growth again (an idle 2-core machine
# charged one of two concurrent 80 MB runs 66 MB of the other's in a single sample).
_sampling = threading.Lock()


def _take(budget: Budget | None, final: bool = False) -> int:
    global _last, _last_by
    with _sampling:
        now = rss()
        delta = now - _last
        _last = now
        if delta > 0 and _announced:
            delta = _others(budget, delta)
        if budget is not None:
            delta = _own(budget, delta, final)
        _last_by = budget
    return delta


# The runs in progress, from ``begin`` (a run's start) to ``leave``/``forget`` (its end). Only a
# run that ends with no other run in progress may skip its end sample (``alone``): the growth
# it leaves unsampled is then charged to no run (the next run's ``mark``). With another run in
# progress, that run's next sample would pay it: short runs each keeping a megabyte charged a
# concurrent run that allocated nothing 48 MB.
_running: set[Budget] = set()


def begin(budget: Budget) -> None:
    """``budget``'s run starts: mark the RSS (``mark``) and count it as in progress."""
    mark(budget)
    _running.add(budget)


def alone(budget: Budget) -> bool:
    """True when ``budget``'s run is the only run in progress (its end may then skip a sample:
    ``forget``)."""
    return len(_running) == 1 and budget in _running


def mark(budget: Budget | None = None) -> None:
    """Start attributing from now (a run's start: the change before is no run's, except what
    other runs announced, which is theirs)."""
    global _last, _last_by
    if _last < 0:
        with _sampling:
            if _last < 0:
                _last = rss()
    else:
        _take(None)
    _last_by = budget


def sample(budget: Budget | None = None) -> int:
    """The RSS change since the previous sample by any run, in bytes, less what other runs
    announced (charged to them): the sampler's share (see ``_own`` for a fall)."""
    if _last < 0:
        mark(budget)
        return 0
    return _take(budget)


def checkpoint(budget: Budget) -> None:
    """``budget``'s run hands the thread to host code (a tool call, a sleep): charge it its growth
    so far and settle all its announcements (no guard is between announcing and allocating
    here), so a run parked in a tool leaves neither growth nor announcements for others."""
    if _last >= 0 and budget.mem_base >= 0:
        budget.charge_growth(_take(budget, final=True))


def leave(budget: Budget) -> int:
    """``budget``'s run is over: the growth since the last sample is its own (what it allocated
    last, perhaps its result), except what other runs announced; its announcements go with it,
    so no later run's growth is ever charged to a finished one. Returns what it holds."""
    global _last_by
    _running.discard(budget)
    if _last >= 0:
        # kept by the run's budget: a decoded function's next call draws on it again
        budget.charge_growth(_take(budget, final=True))
        _last_by = None  # what it leaves behind and frees later is no later run's credit
    _announced.pop(budget, None)
    return budget.mem_used


def forget(budget: Budget) -> None:
    """``budget``'s run ended too soon after its start to have grown past its limit, with no
    other run in progress (``alone``, ``Budget.finish_memory``): its announcements go, without
    an RSS read; the little it may have grown is charged to no run (the next run's ``mark``)."""
    global _last_by
    _running.discard(budget)
    _announced.pop(budget, None)
    if _last_by is budget:
        _last_by = None


def unsampled(budget: Budget | None = None) -> int:
    """Growth no run has sampled yet, less what runs other than ``budget`` announced (the
    watchdog adds it to the run it checks; a fall counts as none)."""
    if _last < 0:
        return 0
    grown = rss() - _last
    for run, entry in list(_announced.items()):
        if run is not budget:
            grown -= entry[0] + entry[1]
    return grown if grown > 0 else 0


# a run that grew less than this leaves nothing worth a collection (a refused allocation)
_RELEASE_ABOVE = 1 << 20
# full collections take at most this share of the process's time (the rest are generation 1)
_FULL_SHARE = 0.1
_full_at = -1e9  # when the last full collection ended (monotonic seconds)
_full_cost = 0.0  # and how long it took


def release(grown: int) -> None:
    """After a run stopped by its memory limit: collect its garbage (its frames and the
    exception's traceback form cycles) and hand the freed heap back to the system, so the
    process is left where the run found it. glibc keeps freed chunks of up to 32 MB in its
    heap (its mmap threshold grows with each freed mapping); ``malloc_trim`` returns them.

    Bounded, since a guest chooses how often it hits its limit and a collection walks the
    host's whole heap with the GIL held: nothing for a run that grew less than
    ``_RELEASE_ABOVE`` (``grown``: its peak, bytes; a refused allocation ends a run at once),
    and a full collection only while full collections stay under ``_FULL_SHARE`` of the time,
    else the young generations (where a run's last garbage is)."""
    global _full_at, _full_cost, _trim
    if grown < _RELEASE_ABOVE:
        return
    import gc
    import time

    start = time.monotonic()
    if start - _full_at >= _full_cost / _FULL_SHARE:
        gc.collect()
        _full_at = time.monotonic()
        _full_cost = _full_at - start
    else:
        gc.collect(1)
    if _trim is None:
        try:
            import ctypes

            _trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):  # not glibc
            _trim = False
    if _trim:
        _trim(0)


_trim: Any = None
