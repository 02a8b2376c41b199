"""The conformance corpus as pytest parameters: a program whose first line is
``# requires: 3.11`` is skipped on older Pythons (which cannot parse its feature)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

CONFORMANCE = Path(__file__).parent / "data" / "conformance"


def required_version(source: str) -> tuple[int, int]:
    first = source.split("\n", 1)[0]
    if not first.startswith("# requires:"):
        return (3, 0)
    major, minor = first[len("# requires:"):].strip().split(".")
    return int(major), int(minor)


def runs_here(source: str) -> bool:
    return sys.version_info >= required_version(source)


def corpus_params(value: Any = None) -> list[Any]:
    """One ``pytest.param`` per program (its path, or ``value(path)``), id'd by its stem."""
    out = []
    for path in sorted(CONFORMANCE.glob("*.py")):
        needs = required_version(path.read_text(encoding="utf-8"))
        mark = pytest.mark.skipif(sys.version_info < needs, reason=f"needs Python {needs[0]}.{needs[1]}")
        out.append(pytest.param(path if value is None else value(path), id=path.stem, marks=mark))
    return out
