"""Curated ``fractions``: the Fraction class (instances are plain data)."""

from __future__ import annotations

import fractions
from typing import Any


def build() -> dict[str, Any]:
    return {"Fraction": fractions.Fraction}
