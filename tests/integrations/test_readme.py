"""The README's integration examples run as written (each skipped without its framework)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def examples() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Integrations"):text.index("## Security model")]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    return {"smolagents": blocks[0], "mcp": blocks[1]}


@pytest.mark.parametrize("name", ["smolagents", "mcp"])
def test_the_readme_integration_example_runs_as_written(name, monkeypatch):
    pytest.importorskip(name, reason=f"{name} is not installed (pip install -e '.[{name}]')")
    # the example starts `safe-eval` by name: the one installed next to this interpreter
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    exec(compile(examples()[name], f"README.md[{name}]", "exec"), {"__name__": "readme"})
