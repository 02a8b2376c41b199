"""One rule registry (``safe_eval/rules.py``): every code the package emits is registered there
and nowhere else, and every registered code is emitted by one of the cases below, through the
public API, with the registry's name, stage and severity."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from safe_eval import PolicyViolation, check, safe_eval
from safe_eval.cli import main
from safe_eval.diagnostics import Diagnostic
from safe_eval.rules import RULES, by_code

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "safe_eval"
CODE_LITERAL = re.compile(r"""["'][PSRTE][0-9]{3}["']""")


def search(query: str, limit: int = 10) -> list[str]:
    return []


def delete_file(path: str) -> None:
    return None


def format_disk() -> None:
    return None


def _static(code: Any, policy: Any = None, env: dict[str, Any] | None = None) -> list[Diagnostic]:
    return list(check(code, policy, env=env).diagnostics)


def _runtime(code: str, env: dict[str, Any]) -> list[Diagnostic]:
    with pytest.raises(PolicyViolation) as info:
        safe_eval(code, env)
    return list(info.value.diagnostics)


# code -> how a user meets it (one case per registered code)
CASES: dict[str, Any] = {
    "P001": lambda: _static(123),
    "P002": lambda: _static(b"x = '\xff'"),
    "P003": lambda: _static("x = 1\0"),
    "P004": lambda: _static("x = '\ud800'"),
    "P005": lambda: _static("1" * 100_001),
    "P006": lambda: _static("def f(:\n    pass"),
    "P007": lambda: _static("(" * 300 + ")" * 300),
    "P008": lambda: _static("x = [" + "-1," * 26_000 + "]"),
    "P009": lambda: _static("break"),
    "R001": lambda: _static("open('x')"),
    "R002": lambda: _static("__import__('os')"),
    "R003": lambda: _static("x = 1\nx.__globals__"),
    "R004": lambda: _static("def g():\n    yield 1\ng().gi_frame"),
    "R005": lambda: _static("import math\nmath._x"),
    "R006": lambda: _static("class A:\n    def __del__(self):\n        pass"),
    "R007": lambda: _static("class A(metaclass=type):\n    pass"),
    "R008": lambda: _static("type('A', (), {'__del__': print})"),
    "R009": lambda: _static("exec('import _thread')"),
    # the parser produces a type alias node from 3.12 on; before, it refuses the text itself
    "R010": lambda: _static("type X = int"),
    "R011": lambda: _static("from math import *"),
    "R012": lambda: _static("import _thread"),
    "R013": lambda: _static("import math\nmath.pi = 3"),
    "T001": lambda: _static("import os"),
    "T002": lambda: _static("helper(1)"),
    "T003": lambda: _static("format_disk()", "agent", {"format_disk": format_disk}),
    "T004": lambda: _static("search('q', limit=500)", "agent", {"search": search}),
    "T005": lambda: _static("delete_file('x')", "agent", {"delete_file": delete_file}),
    "E401": lambda: _runtime("x = 1\ny = v.path", {"v": os}),
}


def test_every_registered_rule_has_a_case_and_every_case_a_rule() -> None:
    assert sorted(CASES) == sorted(RULES)


@pytest.mark.parametrize("code", sorted(CASES), ids=sorted(CASES))
def test_the_rule_is_emitted_with_its_registered_name_stage_and_severity(code: str) -> None:
    if code == "R010" and sys.version_info < (3, 12):
        (diag,) = CASES[code]()
        assert diag.code == "P006"  # 3.10/3.11 cannot even parse a type alias: no R010 to reach
        return
    rule = RULES[code]
    found = [d for d in CASES[code]() if d.code == code]
    assert found, f"{code} was not emitted"
    diag = found[0]
    expected_stage = "runtime" if code == "E401" else rule.stage
    assert (diag.name, diag.stage, diag.severity) == (rule.name, expected_stage, rule.severity)


def test_no_module_writes_a_code_literal_outside_the_registry() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "rules.py" and path.parent == PACKAGE:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CODE_LITERAL.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_every_rule_reference_in_the_package_names_a_registered_rule() -> None:
    names = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        names |= set(re.findall(r"\brules\.([A-Z][A-Z_]+)\b", path.read_text(encoding="utf-8")))
    import safe_eval.rules as registry

    assert sorted(n for n in names if not isinstance(getattr(registry, n, None), registry.Rule)) == []


def test_codes_and_names_are_unique_and_well_formed() -> None:
    names = [r.name for r in RULES.values()]
    assert len(names) == len(set(names))
    for code, rule in RULES.items():
        assert re.fullmatch(r"[PRTE][0-9]{3}", code) and rule.code == code
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        assert rule.summary and rule.message


def test_by_code_answers_none_for_a_code_that_is_not_ours() -> None:
    assert by_code("T003") is RULES["T003"]
    assert by_code("X999") is None


def test_safe_eval_rules_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(RULES)
    assert lines[0].split()[:4] == ["P001", "not-source", "parse", "error"]


def test_safe_eval_rules_json_gives_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in data] == list(RULES)
    assert data[-1] == {"code": "E401", "name": "host-value-refused", "stage": "runtime", "severity": "error",
                        "summary": RULES["E401"].summary, "message": "{detail}", "hint": ""}


def _gen_docs() -> Any:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_rule_table_is_generated_from_the_registry() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _gen_docs().readme_with_rules(readme) == readme, "run python scripts/gen_docs.py"
    for rule in RULES.values():
        assert f"| {rule.code} | `{rule.name}` |" in readme


def test_the_api_reference_is_current() -> None:
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == _gen_docs().api_markdown(), (
        "run python scripts/gen_docs.py")
