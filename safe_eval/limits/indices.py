"""Read a size or count argument once, the way the C routine would read it.

A C routine converts an int-like argument (``width``, ``repeat=``, ``k``) with ``__index__``
when it runs, so a guard that checks ``isinstance(x, int)`` first lets a guest object with
``__index__`` through unpriced, and a guard that reads the object twice (once to price, once
in the routine) can be shown two different numbers. Every priced routine therefore converts
its int-like parameters here, ONCE, prices the converted value and passes only the converted
value on. ``operator.index`` is what CPython itself uses: the same ``TypeError`` for a
non-integer, an exact ``int`` for a guest ``int`` subclass (its digits, without calling its
comparison or arithmetic overrides), and a guest ``__index__`` runs as guest code under the
run's budget.
"""

from __future__ import annotations

import operator
from typing import Any

__all__ = ["as_index", "as_optional_index"]


def as_index(value: Any) -> int:
    """``value`` as the exact ``int`` a C routine would read from it."""
    if type(value) is int:
        return value
    return operator.index(value)


def as_optional_index(value: Any) -> int | None:
    """Like ``as_index``, ``None`` staying ``None`` (``permutations(xs, r=None)``)."""
    if value is None or type(value) is int:
        return value
    return operator.index(value)
