"""Curated module wrappers (PLACEHOLDER: the membrane issue replaces this with wrappers)."""

from __future__ import annotations

import importlib
from typing import Any

_ALLOWED = frozenset(
    "math cmath re json string itertools functools operator collections heapq bisect statistics "
    "fractions decimal datetime random copy typing dataclasses enum abc contextlib textwrap time "
    "hashlib base64 uuid asyncio".split()
)


def import_module(name: str, policy: Any = None) -> Any:
    if name not in _ALLOWED:
        raise ImportError(f"import of '{name}' is not allowed")
    return importlib.import_module(name)
