"""Running guest code at the API boundary: a fresh budget and context, and errors mapped to
the safe-eval tree (``GuestError`` with a guest traceback, limits, ``InternalError``).

Used by the public API for every evaluation, and by guest functions the host calls later
when no evaluation is active (``Function.__call__``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from safe_eval import context
from safe_eval.context import RunContext
from safe_eval.errors import (
    GuestError,
    InternalError,
    LimitExceeded,
    MemoryLimit,
    RecursionLimit,
    SafeEvalError,
    TimeLimit,
)
from safe_eval.interpreter import tracebacks
from safe_eval.interpreter.compile_stmt import guest_raised
from safe_eval.limits import watchdog
from safe_eval.limits.budget import current as current_budget
from safe_eval.limits.budget import depth_limit_of
from safe_eval.limits.memory import release as release_memory
from safe_eval.limits.stack import BIG_STACK_THREAD, HostRecursion, call_with_stack, stack_for, thread_stack
from safe_eval.limits.stackguard import ensure_main_thread_stack, needs_big_stack_thread

if TYPE_CHECKING:
    from safe_eval.interpreter.functions import Origin

__all__ = ["call_as_origin", "call_in_run", "run_guarded", "to_api_error"]


def run_guarded(
    ctx: RunContext, fn: Callable[..., Any], *args: Any
) -> Any:
    """Run ``fn(*args)`` with ``ctx`` active; raise only SafeEvalError subclasses.

    The outermost run on a thread is also watched (``watchdog``: host Python code called by the
    guest is interrupted past the deadline or the memory limit) and gets a C stack big enough
    for any nesting the memory limit allows (``stackguard``): grown in place on the main
    thread, a fresh big-stack thread elsewhere.
    """
    if context.current_context() is not None:
        return _run(ctx, fn, args)
    memory = ctx.budget.limits.memory
    # the main thread's id is compared first: threading.current_thread() costs two calls
    if (threading.get_ident() != _MAIN_IDENT and needs_big_stack_thread()
            and threading.current_thread().name != BIG_STACK_THREAD):
        return call_with_stack(run_guarded, ctx, fn, *args, stack_bytes=stack_for(memory))
    global _greenlet_pending
    if _greenlet_pending and "greenlet" in sys.modules:
        # the host loaded greenlet (e.g. gevent): GreenletExit may cross guest code from now on
        from safe_eval.interpreter import generators  # noqa: F401  (marks it uncatchable)

        _greenlet_pending = False
    # the rlimit raise is kept for the process: a no-op unless this run needs more. Sized as a
    # big-stack thread is (``stack_for``: the run's own share plus the nesting earlier runs
    # left; the run's share alone let four runs of one session build a tuple whose hash
    # overflowed it). Every child process inherits the soft limit as its threads' default
    # stack size: safe-eval's own threads there take an explicit size (``watchdog``)
    ensure_main_thread_stack(stack_for(memory))
    budget = ctx.budget
    budget.start_memory()  # before the watch: the watchdog checks every run it watches
    w = watchdog.start(budget)
    token = None
    released = False
    failed: BaseException | None = None
    result: Any = None
    room = HostRecursion(budget.max_depth)
    try:
        # ``_run`` written out: one host call fewer on every evaluation
        token = context.enter_outermost(ctx)
        if "decimal" in _modules:  # the run's Decimal operations use a decimal context of its own
            from safe_eval.membrane.modules.decimal import isolate

            isolate()
        room.enter()
        result = fn(*args)
    except BaseException as e:
        while True:
            try:  # the watchdog may fire in here too (a guest __str__ run for the message)
                err = to_api_error(e)
                break
            except (watchdog.WatchdogTimeLimit, watchdog.WatchdogMemoryLimit) as late:
                # a limit already on its way out keeps its own line (the watchdog can fire the
                # same overrun again while ``back_in_run``'s raise is converted)
                if not isinstance(e, LimitExceeded):
                    e = late
        if isinstance(err, MemoryLimit):
            released = True
        if not isinstance(err, SafeEvalError):
            raise  # the host's own (KeyboardInterrupt)
        failed = err  # raised below, outside this handler: no context chain to the host
    finally:
        # The watchdog may deliver its asynchronous exception at any call or loop boundary,
        # including in here: retry until the context stack, the recursion limit and the
        # watch are all restored. Written inline (a helper function's entry is itself a
        # delivery point); every step is idempotent. Once ``stop`` has run, nothing is
        # pending for this thread and nothing more will be raised.
        while True:
            try:
                if token is not None:
                    try:
                        context.exit_outermost(token)
                    except RuntimeError:  # a delivery after the reset, before ``token = None``
                        pass
                    token = None
                if ctx.extra:
                    context.run_undo_hooks(ctx)
                room.leave()
                if budget.mem_base >= 0:  # the run's last growth is its own (the limit holds)
                    try:
                        budget.finish_memory()
                    except MemoryLimit as over:
                        if failed is None:
                            failed, result, released = over, None, True
                watchdog.stop(w)
                break
            except (watchdog.WatchdogTimeLimit, watchdog.WatchdogMemoryLimit):
                continue
        if released:  # the run hit its memory limit: leave the process where it found it
            release_memory(budget.mem_peak)
    if failed is None:
        return result
    raise _detached(failed)


def _detached(err: BaseException | None) -> BaseException:
    """``err`` without the run's insides: the exception chain it was raised in (every guest
    exception the run unwound, each with its host frames and their locals: a guest that
    raises in ``finally`` builds one thousands long, which the host would keep alive and walk
    when it formats the error) and the traceback through the interpreter. An
    ``InternalError`` keeps its cause: it reports our bug."""
    assert err is not None
    if not isinstance(err, InternalError):
        err.__cause__ = None
        err.__context__ = None
        err.__traceback__ = None
    return err


_greenlet_pending = True
# Only a shortcut: any other id is decided by needs_big_stack_thread() as before (after a
# fork the child's only thread may have another id; it then takes the general test).
_MAIN_IDENT = threading.main_thread().ident
_modules = sys.modules


def _run(ctx: RunContext, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """A run started while another is in progress on this thread (a tool that evaluates code,
    a call into another run's results). With a budget of its own it is a run like any other:
    measured from its start, watched, settled and checked at its end (``_own_run``)."""
    outer = context.current_context()
    if outer is not None and outer.budget is not ctx.budget:
        return _own_run(ctx, fn, args)
    token = context.enter(ctx)
    room = HostRecursion(ctx.budget.max_depth)
    failed: BaseException | None = None
    try:
        room.enter()
        return fn(*args)
    except BaseException as e:
        err = to_api_error(e)
        if not isinstance(err, SafeEvalError):
            raise
        failed = err
    finally:
        context.leave(token)
        room.leave()
    raise _detached(failed)


def _own_run(ctx: RunContext, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """``_run`` for a nested run with a budget of its own: the run-exit bookkeeping of
    ``run_guarded`` (memory mark, watch, final settlement and check, release), so no nested
    run is unwatched or leaves its announcements in the ledger.

    Its C stack is sized for its own memory limit as an outermost run's is (a tool's run with a
    larger limit than the run that called the tool segfaulted the host hashing what it nested
    on the caller's stack): the main thread's grows; a big-stack thread started for less runs
    it on a fresh one, an outermost run there (its generators cannot be resumed from here)."""
    need = stack_for(ctx.budget.limits.memory)
    if threading.get_ident() == _MAIN_IDENT or not needs_big_stack_thread():
        ensure_main_thread_stack(need)
    elif thread_stack() < need:
        # A chain of such threads is bounded here: each starts with an empty Python stack, so
        # the host recursion limit, which bounds runs nested on one thread, never trips (a
        # guest whose tool evaluates the guest's code again nested runs without end)
        hops = getattr(_hops, "n", 0)
        if hops >= _MAX_HOPS:
            raise RecursionLimit("runs nested too deep (each in a tool of the one before)",
                                 value=ctx.budget.max_depth)
        return call_with_stack(_hopped, hops + 1, ctx, fn, args, stack_bytes=need)
    budget = ctx.budget
    budget.start_memory()
    w = watchdog.start(budget)  # a spare watch: the enclosing run's stays as it was
    token = None
    released = False
    failed: BaseException | None = None
    result: Any = None
    room = HostRecursion(budget.max_depth)
    try:
        # a run of its own: its own root (decimal context, event loops, undo hooks), not its
        # caller's (a tool's evaluation computed with the calling guest's decimal precision)
        token = context.enter_root(ctx)
        if "decimal" in _modules:
            from safe_eval.membrane.modules.decimal import isolate

            isolate()
        room.enter()
        result = fn(*args)
    except BaseException as e:
        while True:
            try:
                err = to_api_error(e)
                break
            except (watchdog.WatchdogTimeLimit, watchdog.WatchdogMemoryLimit) as late:
                if not isinstance(e, LimitExceeded):  # as in run_guarded
                    e = late
        if isinstance(err, MemoryLimit):
            released = True
        if not isinstance(err, SafeEvalError):
            raise
        failed = err
    finally:
        while True:  # as in run_guarded: the watch may fire in here until ``stop`` returns
            try:
                if token is not None:
                    context.leave(token)
                    token = None
                if ctx.extra:
                    context.run_undo_hooks(ctx)
                room.leave()
                try:
                    budget.finish_memory()
                except MemoryLimit as over:
                    if failed is None:
                        failed, result, released = over, None, True
                watchdog.stop(w)
                break
            except (watchdog.WatchdogTimeLimit, watchdog.WatchdogMemoryLimit):
                continue
        if released:
            release_memory(budget.mem_peak)
    if failed is None:
        return result
    raise _detached(failed)


# how many runs nested in a tool may each move to a thread with a larger stack, one after the
# other (``_own_run``); the runs nested on each thread are bounded by the host recursion limit
_MAX_HOPS = 8
_hops = threading.local()


def _hopped(hops: int, ctx: RunContext, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    _hops.n = hops  # this thread is the ``hops``-th of a chain of nested runs' threads
    return run_guarded(ctx, fn, *args)


def _message(e: BaseException) -> str:
    try:
        return str(e)  # may run a guest __str__: still under the active budget
    except SafeEvalError:
        raise
    except BaseException:
        return f"<unprintable {type(e).__name__} object>"


def to_api_error(e: BaseException) -> BaseException:
    if isinstance(e, SafeEvalError):
        if type(e) is watchdog.WatchdogTimeLimit or type(e) is watchdog.WatchdogMemoryLimit:
            return _watchdog_limit(e)
        return e
    greenlet_errors = _greenlet_errors()
    if greenlet_errors and isinstance(e, greenlet_errors):
        internal = InternalError(f"interpreter error: {type(e).__name__}: {e}")
        internal.__cause__ = e  # our bug: the host frames say where
        return internal
    max_depth = depth_limit_of(e)
    if max_depth is not None:  # the guest recursion limit, uncaught (or re-raised) by the guest
        return _recursion_limit(e, max_depth)
    if not guest_raised(e):
        if isinstance(e, KeyboardInterrupt):
            return e
        if isinstance(e, MemoryError):
            return MemoryLimit("out of memory")
        if isinstance(e, RecursionError):
            # the host's own limit (on 3.12 also its C recursion limit, see the README) tripped
            # before the guest's: the guest limit is still the one reported
            b = current_budget()
            return _recursion_limit(e, b.max_depth if b is not None else None,
                                    "host stack exhausted (nesting too deep)")
    frames = tracebacks.frames_of(e)
    try:
        message = _message(e)
        cause = _cause(e)
    except SafeEvalError as limit:
        return limit
    # the host gets the exception object without host tracebacks or host objects in it
    from safe_eval.interpreter.compile_stmt import enter_guest

    return GuestError(type(e).__name__, message, frames, _without_host_frames(enter_guest(e)), cause)


def _greenlet_errors() -> tuple[type[BaseException], ...]:
    """greenlet's exception classes, once it is imported (with the first guest generator, or by
    the host). While another thread imports it, ``sys.modules`` holds the module before its
    body has run, without them (reading them raised AttributeError out of the run); no
    greenlet has run yet then, so none of its exceptions can be in flight."""
    gl = sys.modules.get("greenlet")
    if gl is None:
        return ()
    found = (getattr(gl, "GreenletExit", None), getattr(gl, "error", None))
    return tuple(c for c in found if isinstance(c, type) and issubclass(c, BaseException))


def _without_host_frames(e: BaseException) -> BaseException:
    """``e`` and the exceptions it was raised during or from, without their tracebacks (host
    frames of the interpreter, whose locals hold the run) and cut after ``_MAX_CHAIN`` of them:
    the host keeps what it reads (``GuestError.traceback``/``cause``), not the run's insides
    (a guest raising in ``finally`` chains thousands)."""
    todo = [e]
    seen: set[int] = set()
    while todo:
        cur = todo.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        cur.__traceback__ = None
        if len(seen) >= _MAX_CHAIN:
            cur.__cause__ = cur.__context__ = None
            continue
        todo += [x for x in (cur.__context__, cur.__cause__) if x is not None]
    return e


_MAX_CHAIN = 16


def _recursion_limit(
    e: BaseException, limit: int | None, detail: str = "maximum recursion depth exceeded"
) -> RecursionLimit:
    """``RecursionLimit`` located where ``e`` stopped the guest: its innermost guest frame."""
    err = RecursionLimit(detail, value=limit)
    frames = tracebacks.frames_of(e)
    if frames:
        inner = frames[-1]
        err.at_line(inner.line, inner.col)
        err.in_source(inner.filename, inner.source_line)
    return err


def _watchdog_limit(e: LimitExceeded) -> LimitExceeded:
    """The public error for what the watchdog raised (by class, without its setting or what
    the run reached): a plain ``TimeLimit``/``MemoryLimit`` with both, at the same line."""
    b = current_budget()
    err: LimitExceeded
    if isinstance(e, TimeLimit):
        err = TimeLimit(e.detail, value=b.limits.time if b else None,
                        reached=round(b.elapsed, 3) if b else None)
    else:
        err = MemoryLimit(e.detail, value=b.limits.memory if b else None,
                          reached=b.mem_peak or None if b else None)
    if e.line is not None:
        err.at_line(e.line, getattr(e, "col", None))
        err.in_source(getattr(e, "filename", ""), getattr(e, "source_line", ""))
    return err


def _cause(e: BaseException, depth: int = 0) -> GuestError | None:
    """The ``GuestError`` of what ``e`` was raised ``from`` (a short chain: the guest may
    build a long one)."""
    cause = e.__cause__
    if cause is None or depth >= _MAX_CAUSES:
        return None
    return GuestError(type(cause).__name__, _message(cause), tracebacks.frames_of(cause),
                      cause=_cause(cause, depth + 1))


_MAX_CAUSES = 8


def call_in_run(origin: Origin | None, call: Callable[[], Any]) -> Any:
    """Run ``call()`` (guest code the host asked for: a decoded function, a dunder of a returned
    guest object, a resume or close of a returned generator) under ``origin``'s policy and audit
    hook, on a budget drawn from its run's ``ResultBound`` and paid back after: a sequence of
    host calls into one run's results shares one run's limits (``limits/result_bound.py``).
    Inside another run in progress (that run's tool calls back into this one's object) the
    call is nested in it, and still decided, audited and bounded as ``origin``'s run: the
    caller's policy never decides for an object it did not make."""
    if origin is None:
        # Made while no run was active (guest code reached by a path that escaped its run):
        # no policy is its own, and none is assumed for it (a default policy would grant the
        # env's tools under a fresh bound on every call).
        raise InternalError("a guest object that belongs to no run was called: refused (no policy "
                            "is assumed for it)")
    bound = origin.bound
    budget = bound.draw()
    ctx = RunContext(budget, origin.policy, origin.audit, origin.run_nested, origin.filename,
                     bound=bound, keep=origin.keep)
    try:
        return run_guarded(ctx, call)
    finally:
        bound.settle(budget)


def call_as_origin(origin: Origin | None, call: Callable[[], Any]) -> Any:
    """Run ``call()`` (guest code of an object ``origin``'s run made) where the context in
    progress is not that run's: with no run in progress, a host call (``call_in_run``);
    inside another run (a tool of run B calling back a function run A returned), nested in
    it under ``origin``'s policy and audit hook, charged to the caller's budget, so run B's
    policy never decides for run A's code. Objects made during the call belong to ``origin``'s
    run. Callers test first that the active context is not already ``origin``'s
    (``ctx.bound is origin.bound``)."""
    ctx = context.current_context()
    if ctx is None or origin is None:
        return call_in_run(origin, call)
    inner = RunContext(ctx.budget, origin.policy, origin.audit, origin.run_nested, origin.filename,
                       bound=origin.bound, keep=origin.keep)
    token = context.enter(inner)
    try:
        return call()
    except BaseException as e:
        if origin.policy is not ctx.policy:
            from safe_eval.membrane.crossing import foreign_exception

            refusal = foreign_exception(e, ctx.policy)
            if refusal is not None:
                raise refusal from None
        raise
    finally:
        context.leave(token)
