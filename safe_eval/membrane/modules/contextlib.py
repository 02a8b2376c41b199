"""Curated ``contextlib``: ``contextmanager`` is guest-stdlib code
(``safe_eval/guestlib/contextlib.py``: it drives the generator with guest calls only);
``suppress``, ``nullcontext``, ``closing`` and ``ExitStack`` are the host classes (they call
only the callables and context managers they are handed). Left out: ``redirect_stdout``/
``redirect_stderr`` (they swap host ``sys`` streams) and the async variants.
One namespace per evaluation (``PER_RUN``)."""

from __future__ import annotations

import contextlib
from typing import Any

from safe_eval.membrane.modules._util import pick

PER_RUN = True


def build() -> dict[str, Any]:
    """The host part, built once."""
    from safe_eval.membrane.modules._hosttypes import allow_all

    allow_all([contextlib.suppress, contextlib.nullcontext, contextlib.closing, contextlib.ExitStack])
    return pick(contextlib, ["suppress", "nullcontext", "closing", "ExitStack"])


def guest_attrs() -> dict[str, Any]:
    """The guest-stdlib ``contextmanager`` of this run."""
    from safe_eval.guestlib import load

    return {"contextmanager": load("contextlib")["contextmanager"]}
