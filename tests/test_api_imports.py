"""Cold start: a fresh process that evaluates one expression under the default policy must not
import the heavy optional dependencies (lark parses policy text, typeguard checks decoded
callables and type conditions: neither is needed for ``1 + 1``), nor the stdlib modules the
first evaluation can do without (dataclasses and inspect, decimal and fractions)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("lark", "typeguard", "unittest", "asyncio", "difflib", "ctypes", "greenlet", "safe_eval.policy.dsl",
         "safe_eval.policy.conditions", "safe_eval.policy.rules", "safe_eval.policy.enforce",
         "safe_eval.checking", "importlib.resources", "dataclasses", "inspect", "decimal", "fractions",
         "RestrictedPython", "platform")


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
    ("import safe_eval; safe_eval.safe_eval('sum(x for x in range(3))')", "greenlet"),
    ("import safe_eval; safe_eval.safe_eval('import decimal')", "decimal"),
    ("import safe_eval; safe_eval.safe_eval('len(xs)', {'xs': [1]})", "fractions"),
    ("import safe_eval; safe_eval.safe_eval('f(1)', {'f': abs})", "inspect"),
    ("import safe_eval; safe_eval.safe_eval('def f(a): pass\\nf').__signature__", "inspect"),
])
def test_lazy_modules_load_when_used(snippet: str, needed: str) -> None:
    assert needed in _modules_after(snippet)


@pytest.mark.parametrize("snippet", [
    "import safe_eval\nsafe_eval.safe_eval('def g():\\n    yield 1\\nlist(g())')",  # loaded by a generator
    "import greenlet\nimport safe_eval\nsafe_eval.safe_eval('1')",  # loaded by the host
])
def test_greenlet_exit_is_never_catchable_once_greenlet_is_loaded(snippet: str) -> None:
    code = (f"{snippet}\nfrom safe_eval.interpreter.compile_stmt import _NOT_CATCHABLE\n"
            "import greenlet\nassert greenlet.GreenletExit in _NOT_CATCHABLE, _NOT_CATCHABLE")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("prelude", ["", "import decimal\n"])
def test_decimal_guards_hold_when_decimal_is_loaded_after_safe_eval(prelude: str) -> None:
    # lazy: decimal first imported by the host after safe_eval (the membrane registers
    # Decimal's guarded methods when the value crosses); eager: imported before safe_eval
    code = (f"{prelude}import safe_eval\nfrom decimal import Decimal\nfrom safe_eval.errors import TimeLimit\n"
            "try:\n    safe_eval.safe_eval('d.as_integer_ratio()', {'d': Decimal('1E+999999')})\n"
            "except TimeLimit:\n    print('refused')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    assert out.strip() == "refused"


_RESTRICT_REPORT = """
import json, pathlib, runpy
import safe_eval
from safe_eval.pipeline.program import analyse
corpus = runpy.run_path(str(pathlib.Path("tests/data/attacks/corpus.py")))["CORPUS"]
out = {}
for case in corpus:
    _, diagnostics = analyse(case["code"].replace("{CANARY}", "/tmp/x"))
    out[case["id"]] = [(d.code, d.line, d.col, d.message) for d in diagnostics]
import sys
assert "RestrictedPython" in sys.modules or "RestrictedPython.transformer" not in sys.modules
print(json.dumps(out, sort_keys=True))
"""


def test_restrict_stage_is_the_same_with_restrictedpython_loaded_by_the_host_or_not() -> None:
    # safe-eval loads RP's transformer without its package __init__ unless the host imported
    # RestrictedPython: both must refuse the same code with the same diagnostics
    runs = [subprocess.run([sys.executable, "-c", prelude + _RESTRICT_REPORT], capture_output=True,
                           text=True, timeout=120, check=True).stdout
            for prelude in ("", "import RestrictedPython\n")]
    assert '"R0' in runs[0]
    assert runs[0] == runs[1]


def test_host_can_import_restrictedpython_after_the_first_evaluation() -> None:
    code = ("import safe_eval\nsafe_eval.safe_eval('1')\nimport RestrictedPython\n"
            "import RestrictedPython.transformer as t\n"
            "assert t.RestrictingNodeTransformer is RestrictedPython.RestrictingNodeTransformer\n"
            "RestrictedPython.compile_restricted('x = 1', '<s>', 'exec')\n"
            "from safe_eval.errors import PolicyViolation\n"
            "try:\n    safe_eval.safe_eval('().__class__.__base__.__subclasses__()')\nexcept PolicyViolation:\n    print('refused')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    assert out.strip() == "refused"


_TABLE = """
import json
from safe_eval.membrane import allowlists
out = {}
for module_name, names in allowlists._STDLIB_TYPES:
    module = __import__(module_name)
    for name in names:
        entry = allowlists.HOST_TYPE_NAMES.get(getattr(module, name))
        out[f"{module_name}.{name}"] = None if entry is None else sorted(entry)
print(json.dumps(out, sort_keys=True))
"""


@pytest.mark.parametrize("trigger", [
    "safe_eval.safe_eval('import datetime\\ndatetime.date(2020, 1, 1).year')",
    "safe_eval.safe_eval('d.year', {'d': __import__('datetime').date(2020, 1, 1)})",
    "safe_eval.safe_eval('len(xs)', {'xs': [1]})",
])
def test_lazily_registered_stdlib_types_match_eager_registration(trigger: str) -> None:
    # eager: the host imported the modules before safe_eval; lazy: registered at first need
    eager = subprocess.run(
        [sys.executable, "-c", "import datetime, decimal, fractions, uuid\nimport safe_eval\n" + _TABLE],
        capture_output=True, text=True, timeout=60, check=True).stdout
    lazy = subprocess.run(
        [sys.executable, "-c", f"import safe_eval\n{trigger}\n" + _TABLE],
        capture_output=True, text=True, timeout=60, check=True).stdout
    assert '"datetime.date": [' in eager
    assert lazy == eager
