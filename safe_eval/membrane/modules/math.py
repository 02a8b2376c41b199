"""Curated ``math``: every public function and constant.

The functions whose result can be huge (``factorial``, ``comb``, ``perm``, ``prod``, ``gcd``,
``lcm``, ``floor`` ...) are host routines with a price of their own in ``limits.routines``;
``meter_attrs`` replaces each by that one guard when the wrapper is built, so the module path
costs what every other path to the same routine costs (no second, weaker price here)."""

from __future__ import annotations

import math
from typing import Any

PUBLIC = [n for n in dir(math) if not n.startswith("_")]
# functions of numbers only (no iterable argument): left unmetered for speed (see _metering.py)
SCALAR_ONLY = frozenset(PUBLIC) - {"fsum", "prod", "dist", "gcd", "lcm", "hypot", "sumprod"}


def build() -> dict[str, Any]:
    return {name: getattr(math, name) for name in PUBLIC}
