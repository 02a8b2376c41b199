"""The context of the evaluation running on this thread.

Builtins, module wrappers and tools are shared singletons; when guest code calls one, it
finds the budget to charge, the policy to obey and the audit hook to tell through
``current_context()``. The interpreter activates a context whenever guest code runs: a
top-level evaluation, and every later host call of a guest function (with a fresh budget).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from safe_eval._record import Shown

if TYPE_CHECKING:
    from safe_eval.limits.budget import Budget
    from safe_eval.policy.model import Policy

__all__ = ["RunContext", "activate", "current_context"]


class RunContext(Shown):
    """Mutable, compared by identity (a plain class, not a dataclass: see ``safe_eval._record``)."""

    _fields = ("budget", "policy", "audit", "run_nested", "filename", "extra")
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
    ) -> None:
        self.budget = budget
        self.policy = policy
        self.audit = audit
        self.run_nested = run_nested
        self.filename = filename
        self.extra: dict[str, Any] = {} if extra is None else extra


_local = threading.local()


def _stack() -> list[RunContext]:
    stack: list[RunContext] | None = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def on_run_exit(undo: Callable[[], Any]) -> None:
    """Have the outermost evaluation running on this thread call ``undo`` when it ends, however
    it ends: for host state a curated module must change for the guest's sake and put back
    (the thread's decimal context). ``undo`` must be idempotent: the end of a run retries its
    clean-up when the watchdog interrupts it."""
    stack = _stack()
    if not stack:
        return
    stack[0].extra.setdefault(UNDO_KEY, []).append(undo)


def run_undo_hooks(ctx: RunContext) -> None:
    """Call (newest first) and drop the hooks ``on_run_exit`` registered on ``ctx``; safe to
    call again after an interruption (a hook is dropped only once it has returned)."""
    hooks = ctx.extra.get(UNDO_KEY)
    while hooks:
        hooks[-1]()
        hooks.pop()


UNDO_KEY = "undo-on-exit"


def current_context() -> RunContext | None:
    stack = _stack()
    return stack[-1] if stack else None


@contextmanager
def activate(ctx: RunContext) -> Iterator[RunContext]:
    stack = _stack()
    stack.append(ctx)
    try:
        yield ctx
    finally:
        stack.pop()
