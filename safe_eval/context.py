"""The context of the run in progress: per run, not per thread.

Builtins, module wrappers and tools are shared singletons; when guest code calls one, it
finds the budget to charge, the policy to obey and the audit hook to tell through
``current_context()``. The interpreter activates a context whenever guest code runs: a
top-level evaluation, and every later host call of a guest function (under the run's
``ResultBound``, see ``limits/result_bound.py``).

The active context is a ``contextvars.ContextVar``, never a ``threading.local``: threads,
asyncio tasks and greenlets (gevent/eventlet servers interleave requests on one thread) each
see their own. Two requests interleaved on one thread therefore each have their tool calls
decided by their own policy and audited by their own hook. Guest generator bodies run on
greenlets of their own; ``interpreter/generators.py`` hands each resumed body the context
of whoever resumed it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from safe_eval._record import Shown

if TYPE_CHECKING:
    from safe_eval.limits.budget import Budget
    from safe_eval.limits.result_bound import ResultBound
    from safe_eval.policy.model import Policy

__all__ = ["RunContext", "activate", "back_from_host", "current_context", "enter_root", "guest_again",
           "host_again", "on_host_code", "on_run_exit", "outermost", "to_host"]


class RunContext(Shown):
    """Mutable, compared by identity (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("budget", "policy", "audit", "run_nested", "filename", "extra", "bound", "keep", "root")
    _fields = ("budget", "policy", "audit", "run_nested", "filename", "extra", "bound")
    __match_args__ = ("budget", "policy", "audit", "run_nested", "filename", "extra")

    def __init__(
        self,
        budget: Budget,
        policy: Policy,
        # called with one event per tool call: (tool name, args, kwargs, decision)
        audit: Callable[..., Any] | None = None,
        # runs guest ``eval``/``exec`` strings through the whole pipeline under this context:
        # run_nested(source: str, mode: "eval" | "exec", globals: dict | None) -> Any
        run_nested: Callable[..., Any] | None = None,
        filename: str = "<safe-eval>",
        extra: dict[str, Any] | None = None,
        # the bound every later host call into what this run returns draws on (None: the
        # run's objects get a bound of their own when first created, see compiler._origin)
        bound: ResultBound | None = None,
        # what every guest object made in this run keeps alive (the guest namespace of the
        # host's env dict, which the registry holds only weakly: see interpreter/namespace.py)
        keep: Any = None,
    ) -> None:
        self.budget = budget
        self.policy = policy
        self.audit = audit
        self.run_nested = run_nested
        self.filename = filename
        self.extra: dict[str, Any] = {} if extra is None else extra
        self.bound = bound
        self.keep = keep
        # the outermost context of the run this one is nested in (itself when outermost)
        self.root: RunContext = self


# The one place the active run is kept. Its value is private to this module: other modules
# read it through current_context() and change it through activate()/enter()/leave().
_current: ContextVar[RunContext | None] = ContextVar("safe_eval_run", default=None)

current_context = _current.get  # the hot read: a bound C method, no Python frame
# the hot entry and exit of an outermost run (``session.run_guarded``, where no run is active,
# so the context is its own root): bound C methods, no Python frame
enter_outermost = _current.set
exit_outermost = _current.reset


def enter(ctx: RunContext) -> Any:
    """Make ``ctx`` the active context (nested in the active one, if any); returns the token
    ``leave`` takes. For callers that must restore in a retry loop (``session.run_guarded``)."""
    parent = _current.get()
    ctx.root = ctx if parent is None else parent.root
    return _current.set(ctx)


def leave(token: Any) -> None:
    """Undo ``enter``; idempotent (a watchdog delivery may interrupt the caller's clean-up,
    which then calls this again)."""
    try:
        _current.reset(token)
    except RuntimeError:  # already reset by the interrupted attempt
        pass


def enter_root(ctx: RunContext) -> Any:
    """``enter`` for a run of its own started inside another (a tool that evaluates code:
    ``session._own_run``): it is its own root, so what a run keeps on its outermost context
    (its decimal context, its event loops, its undo hooks) is its own, not its caller's."""
    ctx.root = ctx
    return _current.set(ctx)


@contextmanager
def activate(ctx: RunContext) -> Iterator[RunContext]:
    token = enter(ctx)
    try:
        yield ctx
    finally:
        _current.reset(token)


def outermost() -> RunContext | None:
    """The outermost context of the run in progress (None outside any run)."""
    ctx = _current.get()
    return None if ctx is None else ctx.root


def _register_once(key: str, fn: Callable[..., Any]) -> None:
    """Add ``fn`` to the list under ``key`` in the outermost context's ``extra`` (no run in
    progress: nothing to add it to; already there, by identity: a no-op)."""
    root = outermost()
    if root is None:
        return
    fns = root.extra.setdefault(key, [])
    if not any(f is fn for f in fns):
        fns.append(fn)


def on_run_exit(undo: Callable[[], Any]) -> None:
    """Have the outermost context of the run in progress call ``undo`` when it ends, however
    it ends: for host state a curated module must change for the guest's sake and put back
    (the thread's decimal context), or host caches the run may have filled with its objects
    (typing's). ``undo`` must be idempotent: the end of a run retries its clean-up when the
    watchdog interrupts it. Registering the same ``undo`` again in one run is a no-op."""
    _register_once(UNDO_KEY, undo)


def on_host_code(swap: Callable[[], Callable[[], Any]]) -> None:
    """Have the run in progress call ``swap`` whenever it hands the thread to the host's own
    code (a tool call, a host iterator: ``to_host``): ``swap`` puts the host's state back for
    that code (the thread's decimal context) and returns what puts the run's back after it
    (``back_from_host``). Registering the same ``swap`` again in one run is a no-op."""
    _register_once(HOST_SWAPS_KEY, swap)


def to_host() -> list[Callable[[], Any]] | None:
    """The run in progress hands the thread to the host's own code: put back the host state
    its curated modules changed (``on_host_code``); returns what ``back_from_host`` takes."""
    ctx = _current.get()
    if ctx is None:
        return None
    swaps = ctx.root.extra.get(HOST_SWAPS_KEY)
    if not swaps:
        return None
    restores = [swap() for swap in swaps]
    ctx.root.extra.setdefault(IN_HOST_KEY, []).append(restores)  # for ``guest_again``
    return restores


def back_from_host(restores: list[Callable[[], Any]] | None) -> None:
    """The host code ``to_host`` started returned to the run: put the run's state back."""
    if restores:
        for restore in reversed(restores):
            restore()
        ctx = _current.get()
        stack = ctx.root.extra.get(IN_HOST_KEY) if ctx is not None else None
        if stack:
            stack.pop()


def guest_again(ctx: RunContext) -> list[Callable[[], Any]] | None:
    """Host code the run ``ctx`` handed the thread to (``to_host``) calls guest code of that
    run back (``Function.__call__``): the run's state for the call; returns what
    ``host_again`` takes after it (None: the run is not in host code)."""
    stack = ctx.root.extra.get(IN_HOST_KEY)
    if not stack:
        return None
    for restore in reversed(stack[-1]):
        restore()
    swaps: list[Callable[[], Any]] = ctx.root.extra[HOST_SWAPS_KEY]
    return swaps


def host_again(ctx: RunContext, swaps: list[Callable[[], Any]]) -> None:
    """The guest call ``guest_again`` started returned to the host code: the host's state again."""
    stack = ctx.root.extra.get(IN_HOST_KEY)
    if stack:
        stack[-1] = [swap() for swap in swaps]


def run_undo_hooks(ctx: RunContext) -> None:
    """Call (newest first) and drop the hooks ``on_run_exit`` registered on ``ctx``; safe to
    call again after an interruption (a hook is dropped only once it has returned)."""
    hooks = ctx.extra.get(UNDO_KEY)
    while hooks:
        hooks[-1]()
        hooks.pop()


UNDO_KEY = "undo-on-exit"
HOST_SWAPS_KEY = "swap-for-host-code"
IN_HOST_KEY = "in-host-code"  # the restores of the host code in progress, innermost last
