"""Curated ``dataclasses``: the guest-stdlib ``dataclasses`` (``safe_eval/guestlib``).

``@dataclass``, ``field``, ``fields``, ``asdict``, ``astuple``, ``replace`` and
``is_dataclass`` are guest code run by the interpreter (their ``__init__``/``__eq__``/... are
guest functions: called on anything, they act with the caller's rights only). The fields are
real ``dataclasses.Field`` objects in ``__dataclass_fields__``, so host code can use the
host's ``fields``/``asdict``/``replace`` on a guest dataclass it got back.

One namespace per evaluation (``PER_RUN``): nothing in it is shared between evaluations.
"""

from __future__ import annotations

import dataclasses
from typing import Any

PER_RUN = True

NAMES = ("dataclass", "field", "fields", "asdict", "astuple", "replace", "is_dataclass")


def build() -> dict[str, Any]:
    """The host part, built once: the sentinel and the exception class."""
    from safe_eval.membrane.modules._hosttypes import allow

    allow(dataclasses.Field, ["name", "type", "default", "default_factory", "init", "repr", "hash",
                              "compare", "metadata", "kw_only"])
    return {"MISSING": dataclasses.MISSING, "FrozenInstanceError": dataclasses.FrozenInstanceError}


def guest_attrs() -> dict[str, Any]:
    """The guest-stdlib functions of this run."""
    from safe_eval.guestlib import load

    namespace = load("dataclasses")
    return {name: namespace[name] for name in NAMES}
