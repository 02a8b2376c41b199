"""``safe-eval policy check`` warns on a rule an earlier rule of the same tool covers.

The first matching rule decides, so ``allow g(x: int)`` followed by ``deny g(x: int in 1..3)``
lets ``g(2)`` through: the deny is shadowed. Coverage is reported only when the conditions
decide it (``safe_eval/policy/coverage.py``); every warned pair is checked here against the
policy's real decisions on sample calls.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from safe_eval import safe_eval
from safe_eval.cli import main
from safe_eval.policy import parse_policy
from safe_eval.policy.lint import lint_policy

SHADOWED = ("matches first, and allows, every call it is meant to deny "
            "(plain values for the arguments it names)")
NEVER = "matches every call it matches"


def _warning(earlier: str, later: str) -> str | None:
    """"never", "shadowed" or None: what ``policy check`` says of ``later`` after ``earlier``."""
    report = lint_policy(f"policy p\n{earlier}\n{later}\n", "p.policy")
    assert report.ok, report.errors
    if not report.warnings:
        return None
    (warning,) = report.warnings
    assert warning.startswith("p.policy:3:1: warning: ")
    return "never" if warning.endswith(NEVER) else "shadowed" if warning.endswith(SHADOWED) else warning


def test_an_allow_that_decides_first_what_a_later_deny_names_is_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.policy"
    path.write_text('policy p\nallow g(x: int)\ndeny g(x: int in 1..3) "no"\n', encoding="utf-8")
    assert main(["policy", "check", str(path)]) == 0  # a warning, not an error
    captured = capsys.readouterr()
    assert captured.err == (f"{path}:3:1: warning: `deny g(x: int in 1..3) \"no\"` is shadowed: "
                            f"`allow g(x: int)` (line 2) {SHADOWED}\n")
    assert captured.out == f"{path}: policy 'p' is valid (0 imports, 2 tool rules)\n"
    # what the warning is about: g(2) is allowed
    assert safe_eval("g(2)", tools={"g": lambda x: x * 10}, policy=parse_policy(path.read_text())) == 20


def test_the_json_report_lists_the_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.policy"
    path.write_text("policy p\nallow h(n: int in 1..10, *)\nallow h(n: int in 2..5)\n", encoding="utf-8")
    assert main(["policy", "check", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["ok"], data["exit_code"], data["errors"]) == (True, 0, [])
    assert data["warnings"] == [f"{path}:3:1: warning: `allow h(n: int in 2..5)` never decides: "
                                f"`allow h(n: int in 1..10, *)` (line 2) {NEVER}"]


COVERED = [
    # opposite effect: an allow decides first what the deny names
    ("allow g(x: int)", 'deny g(x: int in 1..3) "no"', "shadowed"),
    ("allow g(x in 1..3)", "deny g(x == 2)", "shadowed"),
    ("allow g(x in {\"a\", \"b\"}, *)", 'deny g(x == "a", y: int)', "shadowed"),
    ("allow g(x: int | str)", "deny g(x: int)", "shadowed"),
    ('allow g(p matches r"a.*")', 'deny g(p matches r"a.*")', "shadowed"),
    ("allow g(s len 1..10)", "deny g(s in {\"ab\", \"abc\"})", "shadowed"),
    # same effect: the later rule never decides
    ("allow g(n: int in 1..10, *)", "allow g(n: int in 2..5)", "never"),
    ("allow g(x: int, y: str)", "allow g(x: int)", "never"),
    ('deny g(a in {"x", "y"}, b len 1..5)', 'deny g(a == "x", b len 2..3, c: str)', "never"),
    ("deny g(n in ..10)", "deny g(n in 0..5)", "never"),
    ("deny g(n in 0..5)", "allow g(n: int in 0..5)", None),  # a call without n is allowed
    ("deny g(*)", "allow g(x: int)", "never"),
    ("allow g*(*)", "deny go(x: int)", "never"),
    ("allow g(x: int in 1..3)", "deny g(x: int)", None),
    ("allow g(x: int)", "deny g(x in 1..3)", None),  # 1.5 is denied, not allowed
    ('allow g(p matches r"a.*")', 'deny g(p matches r"ab.*")', None),  # not decided: said nothing
    ("allow g(x: list[int])", "deny g(x: list[int] len 1..3)", "shadowed"),  # identical types
    ("allow g(x: list[int])", "deny g(x: list[bool])", None),  # types with arguments: not decided
    ("allow g(x: int)", "allow g(x: int, *)", None),  # the later lets other arguments through
    ("allow g(x: int)", "allow g(x: Any)", None),  # Any lets a value that is not plain data through
    ("allow g(x: int | object)", "allow g(x: object)", None),  # ... and so does object
    ("allow g(x: int | str)", "allow g(x: str)", "never"),
    ("deny g(x: int)", "deny g(x: int, y: int)", "never"),
    ("deny g(x: int, y: int)", "deny g(x: int)", None),
    ("deny g(x in {1, True})", "deny g(x == 1)", None),  # the same doubt needs the same types
    ('deny g(x in {"a", "b"})', 'deny g(x == "a")', "never"),
    ("allow h(x: int)", "deny g(x: int)", None),  # another tool
    ("allow g(x == 1)", "deny g(x: int)", None),
    ("allow g(x: int | float)", "deny g(x == 1)", "shadowed"),
]


@pytest.mark.parametrize(("earlier", "later", "expected"), COVERED)
def test_coverage_is_reported_when_the_conditions_decide_it(earlier: str, later: str, expected: str | None) -> None:
    assert _warning(earlier, later) == expected


SAMPLES: list[Any] = [None, True, False, 0, 1, 2, 2.0, 1.5, 3, 4, 7, 11, -1, "", "a", "ab", "abc", "x", "y",
                      "abcdef", b"a", [1], [True], [1, 2, 3, 4], {"k": 1}, object()]


def _calls(names: list[str], later: list[str]) -> list[dict[str, Any]]:
    """Every combination of sample values for the arguments the later rule names, and each
    sample for every name alone and with ``extra``, and no arguments at all."""
    out: list[dict[str, Any]] = [{}]
    out += [dict(zip(later, values, strict=True)) for values in itertools.product(SAMPLES, repeat=len(later))]
    for value in SAMPLES:
        out += [{n: value} for n in names] + [{n: value, "extra": 1} for n in names]
    return out


@pytest.mark.parametrize(("earlier", "later", "expected"), [c for c in COVERED if c[2] is not None])
def test_a_warned_rule_is_never_the_one_that_decides(earlier: str, later: str, expected: str) -> None:
    """The claim checked on the real decisions: "never": the later rule decides no call;
    "shadowed": on plain values for just the arguments the deny names, meeting its conditions,
    the allow decides."""
    policy = parse_policy(f"policy p\n{earlier}\n{later}\n")
    first, second = policy.tools
    tool = second.tool.replace("*", "o")
    names = sorted({a.name for rule in policy.tools for a in rule.args or ()} | {"extra"})

    def fn(x: Any = None, y: Any = None, n: Any = None, a: Any = None, b: Any = None, c: Any = None,
           p: Any = None, s: Any = None, extra: Any = None) -> None:
        return None

    checked = 0
    for call in _calls(names, [a.name for a in second.args or ()]):
        decision = policy.decide(tool, (), call, fn)
        if expected == "never":
            assert decision.rule is not second, (call, decision)
        elif set(call) == {a.name for a in second.args or ()} and all(
                a.predicate(call[a.name]) for a in second.args or ()):
            # a call the deny is meant for (its conditions hold, not merely in doubt)
            assert decision.rule is first and decision.allowed, (call, decision)
            checked += 1
    assert expected == "never" or checked  # some call the deny was meant for was allowed first
