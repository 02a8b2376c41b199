"""The safe-eval command line: exit codes, text and JSON output, stdin."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from safe_eval.cli import main

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = sorted((ROOT / "tests" / "data" / "conformance").glob("*.py"))


def _write(tmp_path: Path, text: str, name: str = "snippet.py") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_check_clean_file_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", _write(tmp_path, "x = 1\nx + 1\n")]) == 0
    assert "no violations" in capsys.readouterr().out


def test_check_violations_exit_1_with_positions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "x = 1\ny = x.__globals__\n")
    assert main(["check", path]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2:7: R003 [dunder-attribute]" in out
    assert "^^^^^^^^^^^" in out


def test_check_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--json", _write(tmp_path, "import _thread\n")]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False
    assert [d["code"] for d in data["diagnostics"] if d["code"][0] == "R"] == ["R012"]


def test_check_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"open('x')\n")))
    assert main(["check", "-"]) == 1
    assert "<stdin>:1:1: R001" in capsys.readouterr().out


def test_check_syntax_error_is_a_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", _write(tmp_path, "def f(:\n")]) == 1
    assert "P006 [syntax-error]" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [[], ["check"], ["check", "/no/such/file.py"], ["frobnicate"], ["check", "--policy", "/no/such.policy", "-"],
     ["policy"]],
)
def test_usage_errors_exit_2(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1\n")))
    assert main(argv) == 2


@pytest.mark.parametrize("path", CONFORMANCE[:10], ids=lambda p: p.stem)
def test_check_conformance_files(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = path.read_text(encoding="utf-8")
    expected = 1 if code.startswith("# env:") else 0  # the CLI has no env: host names are unknown
    assert main(["check", str(path)]) == expected


def test_check_with_a_named_policy(tmp_path: Path) -> None:
    assert main(["check", "--policy", "default", _write(tmp_path, "import math\nmath.pi\n")]) == 0


def test_policy_check_valid_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "policies" / "default.policy"
    assert main(["policy", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "valid" in out and out.count("\n") == 1


def test_policy_check_invalid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "policy broken\nimports ,,\n", "broken.policy")
    assert main(["policy", "check", path]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:" in err


def test_run_prints_output_and_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", _write(tmp_path, "print('hi')\n[1, 2][-1] * 21\n")]) == 0
    assert capsys.readouterr().out == "hi\n42\n"


def test_run_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--json", _write(tmp_path, "'a' * 3\n")]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "ok": True, "value": "aaa", "value_kind": "json", "stdout": "", "exit_code": 0}


def test_run_refuses_violations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", _write(tmp_path, "().__class__.__base__\n")]) == 1
    assert "R003" in capsys.readouterr().err
