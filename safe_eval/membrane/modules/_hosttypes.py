"""Tell the membrane which attributes of the host data types our modules hand out the guest
may read (``allowlists.allow_host_type``), when the membrane provides that API."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def allow(cls: type, names: Iterable[str] | None = None) -> None:
    try:
        from safe_eval.membrane.allowlists import allow_host_type
    except ImportError:
        return
    allow_host_type(cls, None if names is None else list(names))


def public_methods(cls: type, refused: Iterable[str] = ()) -> list[str]:
    skip = set(refused)
    return [n for n in dir(cls) if not n.startswith("_") and n not in skip]


def allow_all(classes: Iterable[Any], refused: Iterable[str] = ()) -> None:
    refused = tuple(refused)
    for cls in classes:
        allow(cls, public_methods(cls, refused))
