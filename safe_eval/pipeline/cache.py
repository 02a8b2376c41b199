"""A least-recently-used cache bounded in bytes as well as in entries.

Compiled programs are kept so that re-evaluating a text skips every static stage, but a
program's size is set by whoever wrote it: a 45,000-node module weighs about 30 MB once its
tree and the interpreter's closures are built (measured), so a cache bounded only by a count of
entries could hold gigabytes. Each entry carries an estimate of its bytes; the oldest entries
go once the total passes ``max_bytes``, and an entry larger than an eighth of it is not kept
at all (it would evict everything else for one text).

A subclass of ``OrderedDict``, so a hit on the hot path is ``get`` + ``move_to_end`` in C.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

__all__ = ["BoundedCache"]


class BoundedCache(OrderedDict[Hashable, Any]):
    def __init__(self, max_items: int, max_bytes: int) -> None:
        super().__init__()
        self.max_items = max_items
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._sizes: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def put(self, key: Hashable, value: Any, nbytes: int) -> None:
        """Keep ``value`` (estimated at ``nbytes``), evicting the least recently used."""
        if nbytes > self.max_bytes // 8 or self.max_items <= 0:
            return
        with self._lock:
            if key in self._sizes:
                self.nbytes -= self._sizes[key]
            self[key] = value
            self.move_to_end(key)
            self._sizes[key] = nbytes
            self.nbytes += nbytes
            while len(self) > self.max_items or self.nbytes > self.max_bytes:
                old, _ = self.popitem(last=False)
                self.nbytes -= self._sizes.pop(old, 0)

    def clear(self) -> None:
        with self._lock:
            super().clear()
            self._sizes.clear()
            self.nbytes = 0
