"""Which sandbox an evaluation uses, and the shared backends behind the names.

Precedence, highest first: the ``sandbox=`` argument; the innermost ``with sandbox(name):``
handler (a context variable, so it follows threads' and tasks' own contexts); the environment
variable ``SAFE_EVAL_SANDBOX`` (read when this module is imported; ``reload_environment()``
reads it again). A policy line ``sandbox NAME`` sets a minimum: a weaker choice (including
``off``) is raised to it, never the other way.

Names: ``off``, ``subprocess``, ``bwrap``, ``container``, ``container:runsc``, each optionally
with ``+cpython`` for the plain-CPython mode (``bwrap+cpython``).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from safe_eval.errors import SandboxError

if TYPE_CHECKING:
    from safe_eval.sandbox.base import Backend

__all__ = ["ENV_VAR", "active", "choose", "get_backend", "reload_environment", "sandbox", "shutdown"]

ENV_VAR = "SAFE_EVAL_SANDBOX"
# isolation strength, for the policy minimum (a container adds a kernel boundary only with runsc)
RANK = {"off": 0, "subprocess": 1, "bwrap": 2, "container": 2, "container:runsc": 3}

_handler: ContextVar[str | None] = ContextVar("safe_eval_sandbox", default=None)
# [the environment's choice]: one list read on the hot path, replaced by reload_environment
_from_env: list[str | None] = [None]
_backends: dict[str, Backend] = {}
_lock = threading.Lock()


def normalize(name: str) -> str:
    """The canonical spelling of a sandbox name, or ``SandboxError``."""
    if not isinstance(name, str):
        raise TypeError(f"sandbox must be a str such as 'bwrap', not {type(name).__name__}")
    text = name.strip().lower()
    base, _, mode = text.partition("+")
    if base not in RANK or mode not in ("", "cpython", "interpreter"):
        raise SandboxError(f"unknown sandbox {name!r}: use one of {', '.join(RANK)} "
                           "(optionally with +cpython)")
    return base if mode in ("", "interpreter") else f"{base}+cpython"


def reload_environment() -> None:
    # kept raw: a misspelt value fails the first evaluation (loudly), not ``import safe_eval``
    value = os.environ.get(ENV_VAR, "").strip()
    _from_env[0] = value or None


def active() -> bool:
    """Whether a handler or the environment selects a sandbox (the hot path's one check)."""
    return _handler.get() is not None or _from_env[0] is not None


def choose(argument: str | None, minimum: str | None) -> str | None:
    """The sandbox name an evaluation uses (None: in process)."""
    if argument is not None:
        chosen: str | None = normalize(argument)
    else:
        chosen = _handler.get() or _from_env[0]
        chosen = normalize(chosen) if chosen is not None else None
    if minimum is not None:
        floor = normalize(minimum)
        if chosen is None or RANK[chosen.partition("+")[0]] < RANK[floor.partition("+")[0]]:
            chosen = floor
    return None if chosen in (None, "off") else chosen


@contextmanager
def sandbox(name: str) -> Iterator[None]:
    """Every evaluation in this block (this context) runs in the sandbox ``name``."""
    token = _handler.set(normalize(name))
    try:
        yield
    finally:
        _handler.reset(token)


def get_backend(name: str) -> Backend:
    """The shared backend (with its warm pool) for a sandbox name."""
    name = normalize(name)
    backend = _backends.get(name)
    if backend is not None:
        return backend
    with _lock:
        backend = _backends.get(name)
        if backend is None:
            backend = _backends[name] = make_backend(name)
    return backend


def make_backend(name: str, **options: Any) -> Backend:
    """A new backend for a sandbox name (the caller closes it)."""
    base, _, mode = normalize(name).partition("+")
    mode = mode or "interpreter"
    if base == "subprocess":
        from safe_eval.sandbox.subprocess import SubprocessBackend

        return SubprocessBackend(mode, **options)
    if base == "bwrap":
        from safe_eval.sandbox.bwrap import BwrapBackend

        return BwrapBackend(mode, **options)
    if base.startswith("container"):
        from safe_eval.sandbox.container import ContainerBackend

        return ContainerBackend(mode, runtime="runsc" if base.endswith("runsc") else None, **options)
    raise SandboxError(f"sandbox {name!r} runs in process")


def shutdown() -> None:
    """Close every shared backend (their pooled workers end)."""
    with _lock:
        backends = list(_backends.values())
        _backends.clear()
    for backend in backends:
        backend.close()
    if "safe_eval.sandbox.session" in sys.modules:
        sys.modules["safe_eval.sandbox.session"].join_reapers()


atexit.register(shutdown)
reload_environment()
