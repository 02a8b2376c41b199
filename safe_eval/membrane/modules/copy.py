"""Curated ``copy``: the guest-stdlib ``copy`` (``safe_eval/guestlib/copy.py``).

``copy``/``deepcopy`` are guest code: they never honour ``__reduce_ex__`` (so nothing a guest
object says about itself makes host code set attributes or call functions), guest
``__copy__``/``__deepcopy__`` are ordinary guest calls, and the ``deepcopy`` memo is a plain
guest dict that only ever holds guest-visible objects (wrappers are not copied at all).
One namespace per evaluation (``PER_RUN``).
"""

from __future__ import annotations

import copy
from typing import Any

PER_RUN = True


def build() -> dict[str, Any]:
    return {"Error": copy.Error}


def guest_attrs() -> dict[str, Any]:
    """The guest-stdlib functions of this run."""
    from safe_eval.guestlib import load

    namespace = load("copy")
    return {"copy": namespace["copy"], "deepcopy": namespace["deepcopy"]}
