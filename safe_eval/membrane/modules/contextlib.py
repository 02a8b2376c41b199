"""Curated ``contextlib``: every name is guest-stdlib code (``safe_eval/guestlib/contextlib.py``):
``contextmanager`` (the generator is driven with guest calls), ``closing``, ``suppress``,
``nullcontext`` and ``ExitStack`` (the host classes are Python: unbound, their methods would run
with host rights on a ``self`` the guest picks, and ExitStack calls what it is handed).
Left out: ``redirect_stdout``/
``redirect_stderr`` (they swap host ``sys`` streams) and the async variants.
One namespace per evaluation (``PER_RUN``)."""

from __future__ import annotations

from typing import Any

PER_RUN = True

GUEST_NAMES = ("contextmanager", "closing", "suppress", "nullcontext", "ExitStack")


def build() -> dict[str, Any]:
    """The host part, built once: nothing (every name is guest-stdlib code)."""
    return {}


def guest_attrs() -> dict[str, Any]:
    """The guest-stdlib classes and ``contextmanager`` of this run."""
    from safe_eval.guestlib import load

    namespace = load("contextlib")
    return {name: namespace[name] for name in GUEST_NAMES}
