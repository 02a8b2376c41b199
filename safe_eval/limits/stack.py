"""Run an evaluation on a thread with a large C stack, so C-level recursion cannot overflow it.

Some CPython C routines recurse into nested data without any recursion check: ``hash()`` of a
tuple nested 300 000 deep segfaults the host on an 8 MiB stack (measured on 3.11; the guest
builds it in one loop: ``a = (); for _ in range(300000): a = (a,)``, then ``{a}`` or
``hash(a)``). Each nesting level costs the guest at least 64 bytes of memory and the C
recursion well under that of stack, so a stack of ``2 * Limits.memory`` (reserved virtual
memory, only touched pages are real) can never overflow before the memory limit trips.

Threads also let the host recursion limit grow with the stack (``host_recursion_cap``).
Cost: starting a thread, ~100-400 µs per call (measured on a loaded 2-core machine).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

try:
    import resource
except ImportError:  # pragma: no cover - not on Linux/macOS
    resource = None  # type: ignore[assignment]

__all__ = ["BIG_STACK_THREAD", "HOST_CALL_CAP", "HOST_RECURSION_CAP", "MIN_STACK", "HostRecursion",
           "call_with_stack", "host_recursion_cap", "stack_for", "start_with_stack", "thread_stack"]

# the name of the threads call_with_stack starts: a run already on one needs no other
BIG_STACK_THREAD = "safe-eval"

T = TypeVar("T")

MIN_STACK = 64 * 1024 * 1024

# How deep host-to-guest calls may nest (a C routine calling back into guest code: a guest
# ``__eq__``/``__repr__``/``__init__``, a ``key=`` function, a property getter). Each costs host
# stack that CPython counts against a limit of its own, and where that limit trips inside a
# slot's method lookup CPython clears the error and falls back (typeobject.c
# ``lookup_maybe_method``): a recursive ``__eq__`` silently answers False, ``__repr__`` gives
# the default repr. 3.12 counts C calls against ``Py_C_RECURSION_LIMIT`` (1 500), 3-5 per nested
# call: a recursive ``__eq__`` stopped at 374, ``__repr__`` at 299. 3.10, 3.11 and 3.13 spend
# 7-10 units of the host recursion limit (20 000, ``guards.HOST_RECURSION_CAP``) per nested
# call: 2 000-2 855 (measured on every version, ``max_depth`` unbounded). Data nested between
# two calls adds a unit per level (``repr([self])`` stopped at 249 levels on 3.12): the caps
# leave room for three such levels per call on 3.12, many more elsewhere.
HOST_CALL_CAP = 160 if sys.version_info[:2] == (3, 12) else 1000
# Highest host recursion limit at which CPython's C-level recursion (repr, ==, hash, json,
# deepcopy of nested data) still raises RecursionError instead of overflowing an 8 MiB stack.
HOST_RECURSION_CAP = 20_000
MAX_STACK = 4 * 1024 * 1024 * 1024  # keep the reservation sane on 64-bit hosts
_stack_lock = threading.Lock()  # threading.stack_size is process-global


def stack_for(memory_limit: int) -> int:
    """The C stack size that outlasts any nesting that can exist while a run with
    ``memory_limit`` is in progress: what the run can build, plus what earlier runs built.

    Nesting accumulates across the runs of a session (an ``Evaluator`` keeping one ``env``: four
    runs of ``t = (t,)`` 700 000 times, each under 64 MiB, made a tuple 2.8 M deep whose hash
    overflowed a stack sized from one run's limit and killed the host). Whatever nesting
    exists is in the process's memory, so the process's peak resident size bounds it: the
    stack is sized from that plus the run's own limit, whatever C routine walks the data.
    """
    return max(MIN_STACK, min(MAX_STACK, 2 * memory_limit + _held_share()))


def _held_share() -> int:
    """Stack for the nesting earlier runs left: twice the process's peak resident size (never
    below what it holds now; one system call, cheaper than reading the current size). Under
    an address-space limit (``ulimit -v``, a sandbox worker) a thread's stack is reserved out
    of that limit, so there is no share (a forked worker's peak is its parent's; a crash there
    ends the worker, not the host)."""
    if resource is None:  # pragma: no cover - not on Linux/macOS
        return 0
    peak = resource.getrusage(_RUSAGE).ru_maxrss
    share = 2 * (peak if sys.platform == "darwin" else peak * 1024)
    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
        # a sandbox worker (or ``ulimit -v``): the stack would come out of the address space
        # the guest needs, and a forked worker's peak is its parent's (a quarter of the limit
        # left sandboxed runs out of memory); a crash there ends the worker, not the host
        return 0
    return share


# the process's peak size, read without summing every thread's times (RUSAGE_SELF does)
_RUSAGE: int = getattr(resource, "RUSAGE_THREAD", getattr(resource, "RUSAGE_SELF", 0))


def host_recursion_cap(stack_bytes: int) -> int:
    """The highest safe ``sys.setrecursionlimit`` for a stack of this size: C-level repr/==
    recursion costs up to ~300 bytes of stack per level (8 MiB stack: 30 000 levels are safe,
    100 000 segfault, measured)."""
    return max(1000, stack_bytes // 400)


def call_with_stack(fn: Callable[..., T], *args: Any, stack_bytes: int = MIN_STACK) -> T:
    """Call ``fn(*args)`` on a fresh thread with a ``stack_bytes`` C stack and wait for it;
    return its result or re-raise its exception here. The thread-local evaluation context is
    NOT inherited: ``fn`` must activate its own (``run_guarded`` does)."""
    result: list[Any] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn(*args))
        except BaseException as exc:  # re-raised in the caller's thread
            error.append(exc)

    start_with_stack(target, stack_bytes).join()
    if error:
        raise error[0]
    return result[0]  # type: ignore[no-any-return]


def start_with_stack(target: Callable[[], None], stack_bytes: int = MIN_STACK) -> threading.Thread:
    """Start ``target()`` on a fresh daemon thread named ``BIG_STACK_THREAD`` with a
    ``stack_bytes`` C stack, and return the thread (for a caller with other work while it runs)."""

    def sized() -> None:
        _this_thread.stack = stack_bytes  # what ``thread_stack`` answers there
        target()

    with _stack_lock:
        old = threading.stack_size(stack_bytes)
        try:
            thread = threading.Thread(target=sized, name=BIG_STACK_THREAD, daemon=True)
            thread.start()
        finally:
            threading.stack_size(old)
    return thread


_this_thread = threading.local()


def thread_stack() -> int:
    """The C stack of this thread if ``start_with_stack`` started it, in bytes; else 0. A run
    nested in a run on this thread (a tool that evaluates code) needs ``stack_for`` its own
    memory limit, which may be more than this thread was started with."""
    return getattr(_this_thread, "stack", 0)


class HostRecursion:
    """A run's claim on the host recursion limit: room for ``max_depth`` guest frames.

    ``sys.setrecursionlimit`` is one value for the whole process (per interpreter, not per
    thread or run). A run that put back the value it saw at its start would lower the limit
    under a concurrent run deep in recursion (CPython 3.11 aborts the process when a thread is
    more than 50 frames past the limit: "Cannot recover from stack overflow"), or leave the host
    another run's raised limit for good. So the runs in progress are counted here, the only
    place the limit is set: a run raises it when it needs more, nobody lowers it while any run
    is in progress, and the last run out puts back the host's own value.

    Create it before the ``try`` whose ``finally`` calls ``leave``: both methods may be
    re-entered after a watchdog interrupt landed in them and are idempotent.
    """

    __slots__ = ("want",)

    def __init__(self, max_depth: int) -> None:
        # A guest call costs a handful of host frames (call closure, body block, expression
        # nesting); 60 per guest frame is generous, so the guest recursion limit always trips
        # first. Never above the cap where CPython's own C recursion (repr/== of deep data)
        # still fails cleanly instead of overflowing the C stack.
        self.want = min(60 * max_depth + 1000, HOST_RECURSION_CAP)

    def enter(self) -> None:
        global _host_limit
        with _recursion_lock:
            if not _claims:
                _host_limit = sys.getrecursionlimit()
            _claims.add(self)
            if self.want > sys.getrecursionlimit():
                sys.setrecursionlimit(self.want)

    def leave(self) -> None:
        with _recursion_lock:
            _claims.discard(self)
            if not _claims and sys.getrecursionlimit() != _host_limit:
                sys.setrecursionlimit(_host_limit)


_recursion_lock = threading.Lock()
_claims: set[HostRecursion] = set()  # the runs in progress
_host_limit = 1000  # the host's own limit, read when the first run of a series starts
