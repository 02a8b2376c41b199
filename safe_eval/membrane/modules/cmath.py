"""Curated ``cmath``: every public function and constant (all C, fixed-size results)."""

from __future__ import annotations

import cmath
from typing import Any


def build() -> dict[str, Any]:
    return {name: getattr(cmath, name) for name in dir(cmath) if not name.startswith("_")}
