"""Curated ``collections.abc``: the abstract base classes, for ``isinstance`` checks and as
bases of guest classes. (``register`` on these host classes would change host-wide
``isinstance`` answers: the membrane's attribute allowlist must not offer it.)"""

from __future__ import annotations

import collections.abc as cabc
from typing import Any

NAMES = ["Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator", "AsyncGenerator", "Hashable",
         "Iterable", "Iterator", "Generator", "Reversible", "Sized", "Container", "Callable",
         "Collection", "Set", "MutableSet", "Mapping", "MutableMapping", "MappingView", "KeysView",
         "ItemsView", "ValuesView", "Sequence", "MutableSequence", "ByteString"]


def build() -> dict[str, Any]:
    return {name: getattr(cabc, name) for name in NAMES if hasattr(cabc, name)}
