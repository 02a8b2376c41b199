"""Cold start: a fresh process that evaluates one expression under the default policy must not
import the heavy optional dependencies (lark parses policy text, typeguard checks decoded
callables and type conditions: neither is needed for ``1 + 1``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("lark", "typeguard", "unittest", "asyncio", "difflib", "ctypes", "safe_eval.policy.dsl",
         "safe_eval.policy.conditions", "safe_eval.policy.rules", "safe_eval.policy.enforce",
         "safe_eval.checking", "importlib.resources")


def _modules_after(snippet: str) -> set[str]:
    code = f"{snippet}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    return set(out.split())


def test_first_evaluation_imports_no_heavy_module() -> None:
    mods = _modules_after("import safe_eval\nassert safe_eval.safe_eval('x + 1', {'x': 41}) == 42")
    assert "safe_eval.api" in mods
    assert sorted(m for m in HEAVY if m in mods) == []


@pytest.mark.parametrize("snippet, needed", [
    ("from safe_eval.policy import IsType; IsType('list[int]')", "typeguard"),
    ("import safe_eval; safe_eval.safe_eval('1', policy='agent')", "lark"),
    ("from safe_eval import check; check('x = 1')", "safe_eval.checking"),
    ("from safe_eval.policy import allow; allow('search')", "safe_eval.policy.rules"),
    ("import safe_eval; safe_eval.safe_eval('f(1)', {'f': abs})", "safe_eval.policy.enforce"),
])
def test_lazy_modules_load_when_used(snippet: str, needed: str) -> None:
    assert needed in _modules_after(snippet)
