"""check(): the static pipeline only, as a Report; build_program's cache; check() speed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from safe_eval.checking import Report, check
from safe_eval.diagnostics import Diagnostic
from safe_eval.errors import PolicyViolation
from safe_eval.pipeline.program import Program, analyse, build_program, clear_cache

TYPICAL = '''\
def top_k_frequent(words: list[str], k: int) -> list[tuple[str, int]]:
    """Return the k most frequent words with their counts."""
    counts: dict[str, int] = {}
    for w in words:
        w = w.strip().lower()
        if not w:
            continue
        counts[w] = counts.get(w, 0) + 1
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    result = []
    for word, n in items[:k]:
        result.append((word, n))
    return result


def summarize(rows):
    total = 0
    best = None
    for i, row in enumerate(rows):
        value = row["value"] * 2 if row.get("double") else row["value"]
        total += value
        if best is None or value > best[1]:
            best = (i, value)
    avg = total / len(rows) if rows else 0.0
    return {"total": total, "avg": round(avg, 3), "best": best, "label": f"{len(rows)} rows"}


top_k_frequent(["a", "b", "a"], 1)
'''

BAD = "x = ().__class__.__base__\nopen('f')\n"


def test_clean_code_gives_an_ok_report() -> None:
    report = check(TYPICAL)
    assert isinstance(report, Report)
    assert report.ok and report.diagnostics == ()
    assert report.source == TYPICAL
    assert report.render().endswith("no violations")


def test_report_lists_every_violation_in_order() -> None:
    report = check(BAD, filename="snippet.py")
    assert not report.ok
    assert [(d.code, d.line) for d in report.diagnostics if d.code[0] == "R"] == [("R003", 1), ("R001", 2)]
    assert all(isinstance(d, Diagnostic) for d in report.diagnostics)


def test_render_shows_source_line_caret_and_summary() -> None:
    report = check(BAD, filename="snippet.py")
    text = report.render()
    assert "snippet.py:1:18: R003 [dunder-attribute]" in text
    assert "    x = ().__class__.__base__\n" in text
    assert "                     ^^^^^^^^" in text
    assert "hint:" in text
    assert text.splitlines()[-1].startswith("snippet.py: ")
    assert "violation" in text.splitlines()[-1]


def test_json_round_trip() -> None:
    report = check(BAD)
    data = json.loads(report.to_json())
    assert data == report.to_dict()
    assert data["ok"] is False
    first = data["diagnostics"][0]
    assert set(first) == {"code", "name", "message", "line", "col", "end_line", "end_col", "stage", "hint",
                          "severity"}
    assert first["code"] == "R003" and first["stage"] == "restrict"


@pytest.mark.parametrize(("code", "expected"), [(b"x = 1", True), (b"\xff", False), (42, False), ("", True)])
def test_check_accepts_any_input(code: object, expected: bool) -> None:
    report = check(code)
    assert report.ok is expected
    assert isinstance(report.source, str)


def test_check_executes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "created"
    report = check(f"print('side effect')\nwith open({str(target)!r}, 'w') as f:\n    f.write('x')\n")
    assert capsys.readouterr().out == ""
    assert not target.exists()
    assert [d.code for d in report.diagnostics if d.code[0] == "R"] == ["R001"]


def test_env_names_are_known_to_the_policy_check() -> None:
    code = "helper(1) + value"
    without = check(code)
    with_env = check(code, env={"helper": print, "value": 1})
    assert with_env.ok
    assert len(without.diagnostics) >= len(with_env.diagnostics)


def test_analyse_returns_a_program_only_when_clean() -> None:
    program, diagnostics = analyse("x = 1\nx")
    assert isinstance(program, Program) and diagnostics == []
    program, diagnostics = analyse(BAD)
    assert program is None and diagnostics


def test_build_program_raises_with_all_diagnostics() -> None:
    with pytest.raises(PolicyViolation) as info:
        build_program(BAD)
    assert [d.code for d in info.value.diagnostics if d.code[0] == "R"] == ["R003", "R001"]
    assert "__base__" in str(info.value)


def test_build_program_is_cached() -> None:
    clear_cache()
    first = build_program(TYPICAL, filename="a.py")
    assert build_program(TYPICAL, filename="a.py") is first
    assert build_program(TYPICAL, filename="b.py") is not first
    clear_cache()
    assert build_program(TYPICAL, filename="a.py") is not first


def test_cached_program_is_reused_across_env_names_only_when_equal() -> None:
    a = build_program("value + 1", env_names=["value"])
    assert build_program("value + 1", env_names=("value",)) is a

