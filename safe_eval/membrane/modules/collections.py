"""Curated ``collections``: the container classes (instances are plain data), the guest-stdlib
``namedtuple`` (``safe_eval/guestlib/namedtuple.py``: a class statement, no exec), the
guest-stdlib ``UserDict``/``UserList``/``UserString`` (``safe_eval/guestlib/collections.py``:
their calls into ``self.data`` are guest calls, priced) and the
``collections.abc`` wrapper as ``abc``. One namespace per evaluation (``PER_RUN``)."""

from __future__ import annotations

import collections
from typing import Any

from safe_eval.membrane.modules._util import pick

PER_RUN = True


def build() -> dict[str, Any]:
    """The host part, built once (the ``abc`` wrapper is immutable and shared)."""
    from safe_eval.membrane.modules import CuratedModule
    from safe_eval.membrane.modules.collections_abc import build as build_abc

    attrs = pick(collections, ["Counter", "defaultdict", "deque", "OrderedDict", "ChainMap"])
    attrs["abc"] = CuratedModule("collections.abc", build_abc())
    return attrs


def guest_attrs() -> dict[str, Any]:
    """The guest-stdlib ``namedtuple``, ``UserDict``, ``UserList`` and ``UserString`` of this run."""
    from safe_eval.guestlib import load

    users = load("collections")
    return {"namedtuple": load("namedtuple")["namedtuple"],
            **{name: users[name] for name in ("UserDict", "UserList", "UserString")}}
