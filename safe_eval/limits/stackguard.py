"""Give the main thread's C stack room for everything the guest can afford to nest.

Some CPython C routines recurse into nested data without a recursion check: ``hash()`` of a
tuple nested ~150 000 deep overflows the default 8 MiB stack and kills the host (measured on
3.11; the guest builds it in a plain loop ``t = (); for _ in range(n): t = (t,)``). Each level
costs the guest ~56 bytes of memory and the C recursion ~55 bytes of stack, so a stack of a
few times what the process holds plus the run's memory limit can never overflow before the
memory limit trips (``stack.stack_for``: nesting accumulates across the runs of a session).

On Linux the main thread's stack grows on demand up to the *current* soft ``RLIMIT_STACK``,
read at fault time, so raising the soft limit for the duration of an evaluation is enough
(measured: hashing a 5 000 000-deep tuple works with the limit raised, dies without). Pages the
stack touches count as the evaluation's memory like any other. Other threads have a stack
fixed at their creation: evaluations started there run on a big-stack thread instead
(``stack.call_with_stack``), which costs a thread start.
"""

from __future__ import annotations

import threading

try:
    import resource
except ImportError:  # pragma: no cover - not on Linux/macOS
    resource = None  # type: ignore[assignment]

__all__ = ["ensure_main_thread_stack", "needs_big_stack_thread"]

_MAIN = threading.main_thread()


def needs_big_stack_thread() -> bool:
    """True when this thread's stack cannot be grown in place (any thread but the main one)."""
    return threading.current_thread() is not _MAIN


_raised_to = 0


def ensure_main_thread_stack(stack_bytes: int) -> None:
    """Raise the soft stack limit to ``stack_bytes`` (capped by the hard limit) if it is lower.

    The raise is kept for the life of the process rather than undone after each evaluation:
    the two system calls would cost more than a one-expression evaluation, and a higher soft
    limit only lets the main stack grow further (child processes inherit it).
    """
    global _raised_to
    if stack_bytes <= _raised_to or resource is None:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    want = stack_bytes if hard == resource.RLIM_INFINITY else min(stack_bytes, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
    _raised_to = stack_bytes
