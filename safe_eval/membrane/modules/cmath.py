"""Curated ``cmath``: every public function and constant (all C, fixed-size results)."""

from __future__ import annotations

import cmath
from typing import Any

# numbers in, numbers out: nothing to meter (see _metering.py)
SCALAR_ONLY = frozenset(name for name in dir(cmath) if not name.startswith("_"))


def build() -> dict[str, Any]:
    return {name: getattr(cmath, name) for name in dir(cmath) if not name.startswith("_")}
