"""Curated ``contextlib``: ``contextmanager`` and ``closing`` are guest-stdlib code
(``safe_eval/guestlib/contextlib.py``: the generator is driven, ``close()`` called, with guest
calls only); ``suppress`` (isinstance checks on exception types), ``nullcontext`` and
``ExitStack`` are the host classes (ExitStack calls the ``__enter__``/``__exit__`` of the type
of what it is handed, as a ``with`` statement would). Left out: ``redirect_stdout``/
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

    allow_all([contextlib.suppress, contextlib.nullcontext, contextlib.ExitStack])
    return pick(contextlib, ["suppress", "nullcontext", "ExitStack"])


def guest_attrs() -> dict[str, Any]:
    """The guest-stdlib ``contextmanager`` and ``closing`` of this run."""
    from safe_eval.guestlib import load

    namespace = load("contextlib")
    return {"contextmanager": namespace["contextmanager"], "closing": namespace["closing"]}
