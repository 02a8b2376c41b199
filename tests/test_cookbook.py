"""docs/cookbook.md: every code block runs as written (a fresh namespace each, as a reader
pasting it would have)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

COOKBOOK = Path(__file__).resolve().parent.parent / "docs" / "cookbook.md"
BLOCKS = re.findall(r"```python\n(.*?)```", COOKBOOK.read_text(encoding="utf-8"), re.DOTALL)


def test_the_cookbook_has_its_three_uses() -> None:
    headings = re.findall(r"^## (.+)$", COOKBOOK.read_text(encoding="utf-8"), re.MULTILINE)
    assert headings == ["1. Replacing `eval`", "2. Decoding a generated callable", "3. A check-and-repair loop"]
    assert len(BLOCKS) == 3


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block_{i + 1}" for i in range(len(BLOCKS))])
def test_each_cookbook_example_runs_as_written(block: str) -> None:
    exec(compile(block, str(COOKBOOK), "exec"), {"__name__": "__cookbook__"})
