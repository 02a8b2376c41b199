"""The modules a policy may name in ``imports``: the membrane's curated set, nothing else.

The membrane owns the list (``safe_eval.membrane.modules.CURATED``). Until it exposes one we
keep the same names here, in this one place, so a policy can never allow an uncurated module.
Looked up lazily: the membrane imports the policy package, so importing it at our import time
would be circular.
"""

from __future__ import annotations

import functools
import importlib

__all__ = ["curated"]

_FALLBACK = frozenset(
    "math cmath re json string itertools functools operator collections heapq bisect statistics "
    "fractions decimal datetime random copy typing dataclasses enum abc contextlib textwrap time "
    "hashlib base64 uuid asyncio".split()
)


@functools.cache
def curated() -> frozenset[str]:
    """The names a policy may import."""
    try:
        modules = importlib.import_module("safe_eval.membrane.modules")
    except ImportError:  # pragma: no cover - the membrane package is part of safe_eval
        return _FALLBACK
    names = getattr(modules, "CURATED", None)
    return frozenset(names) if names else _FALLBACK
