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


# -- issue 12: the CLI as a user of ruff/mypy expects it ---------------------------------------------
def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"safe-eval {version('safe-eval')}\n"


RUN_OUTCOMES = {
    "success": ("print('ok')\n1 + 1\n", [], 0, None),
    "static_refusal": ("import os\n", [], 1, "PolicyViolation"),
    "run_time_policy_violation": ("m = 'o' + 's'\nexec('import ' + m)\n", [], 3, "PolicyViolation"),
    "guest_error": ("x = {}\nx['missing']\n", [], 4, "GuestError"),
    "limit": ("while True:\n    pass\n", ["--limits", "ops=2000"], 5, "OpLimit"),
    "recursion_limit": ("def f(n):\n    return f(n + 1)\nf(0)\n", ["--limits", "recursion=30"], 5,
                        "RecursionLimit"),
}


@pytest.mark.parametrize("code, extra, status, error", RUN_OUTCOMES.values(), ids=RUN_OUTCOMES.keys())
def test_run_exit_status_names_the_failure_class(
        code: str, extra: list[str], status: int, error: str | None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, code)
    assert main(["run", *extra, path]) == status
    assert main(["run", "--json", *extra, path]) == status
    data = json.loads(capsys.readouterr().out.split("\n", 2 if status == 0 else 0)[-1])
    assert (data["ok"], data.get("error"), data["exit_code"]) == (status == 0, error, status)


def test_an_internal_error_exits_6(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    from safe_eval.api import Evaluator
    from safe_eval.errors import InternalError

    def broken(self: Evaluator, code: object, env: object = None, **kwargs: object) -> object:
        raise InternalError("a bug")

    monkeypatch.setattr(Evaluator, "run", broken)
    assert main(["run", "--json", _write(tmp_path, "1\n")]) == 6
    assert json.loads(capsys.readouterr().out)["error"] == "InternalError"


RUN_VALUES = {
    "dict_of_lists": ("{'a': [1, 2.5, None, True], 'b': (1, 'x')}\n",
                      {"a": [1, 2.5, None, True], "b": [1, "x"]}, "json"),
    "a_set_is_not_json": ("{1}\n", "{1}", "repr"),
    "non_str_keys": ("{1: 2}\n", "{1: 2}", "repr"),
    "nan": ("float('nan')\n", "nan", "repr"),
    "guest_object": ("class P:\n    def __repr__(self):\n        return 'P()'\nP()\n", "P()", "repr"),
}


@pytest.mark.parametrize("code, value, kind", RUN_VALUES.values(), ids=RUN_VALUES.keys())
def test_run_json_gives_plain_data_as_json_and_marks_a_repr(
        code: str, value: object, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--json", _write(tmp_path, code)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["value"], data["value_kind"]) == (value, kind)


def test_a_missing_file_in_json_mode_gives_json(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["run", "--json"], ["check", "--json"]):
        assert main([*command, "/no/such/file.py"]) == 2
        data = json.loads(capsys.readouterr().out)
        assert data == {"ok": False, "error": "UsageError", "exit_code": 2,
                        "message": "cannot read /no/such/file.py: No such file or directory"}


def test_run_env_file_gives_the_code_its_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = tmp_path / "env.json"
    env.write_text(json.dumps({"rows": [{"qty": 3}, {"qty": 6}]}), encoding="utf-8")
    assert main(["run", "--env", str(env), _write(tmp_path, "sum(r['qty'] for r in rows)\n")]) == 0
    assert capsys.readouterr().out == "9\n"


ENV_USAGE = {
    "not_json": ("{not json", "is not valid JSON"),
    "not_an_object": ("[1, 2]", "must hold a JSON object"),
}


@pytest.mark.parametrize("text, message", ENV_USAGE.values(), ids=ENV_USAGE.keys())
def test_a_bad_env_file_is_a_usage_error(text: str, message: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    env = tmp_path / "env.json"
    env.write_text(text, encoding="utf-8")
    assert main(["run", "--env", str(env), _write(tmp_path, "1\n")]) == 2
    assert message in capsys.readouterr().err


def test_check_env_names_are_defined(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "lookup(rows)\n")
    assert main(["check", "--json", path]) == 0
    assert [d["code"] for d in json.loads(capsys.readouterr().out)["diagnostics"]] == ["T002"]
    assert main(["check", "--json", "--env", "lookup,rows", path]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []


def test_check_env_file_names_are_defined(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = tmp_path / "env.json"
    env.write_text('{"rows": [1, 2]}', encoding="utf-8")
    assert main(["check", "--json", "--env", str(env), _write(tmp_path, "total = sum(rows)\nrows.count(1)\n")]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []


LIMITS_USAGE = {
    "no_value": ("time", "write NAME=VALUE"),
    "unknown_limit": ("speed=3", "--limits 'speed=3'"),
    "bad_unit": ("memory=64XB", "--limits 'memory=64XB'"),
}


@pytest.mark.parametrize("spec, message", LIMITS_USAGE.values(), ids=LIMITS_USAGE.keys())
def test_a_bad_limits_spec_is_a_usage_error(spec: str, message: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--limits", spec, _write(tmp_path, "1\n")]) == 2
    assert message in capsys.readouterr().err


def test_limits_take_policy_units(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "'x' * 5000\n")
    assert main(["run", "--limits", "time=1,output=1KB,memory=64MB", path]) == 0
    assert main(["run", "--json", "--limits", "memory=1KB", path]) == 5
    assert json.loads(capsys.readouterr().out.split("\n", 1)[1])["error"] == "MemoryLimit"


def test_run_policy_option_applies_the_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "import math\nmath.pi\n")
    assert main(["run", path]) == 0
    assert main(["run", "--policy", "strict", "--json", path]) == 1
    assert json.loads(capsys.readouterr().out.split("\n", 1)[1])["diagnostics"][0]["code"] == "T001"


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    import subprocess

    path = _write(tmp_path, "for i in range(5000):\n    print(i)\n")
    script = f"import sys\nfrom safe_eval.cli import main\nsys.exit(main(['run', {path!r}]))"
    done = subprocess.run(f'"{sys.executable}" -c "{script}" | head -1', shell=True, capture_output=True,
                          text=True, timeout=60)
    assert (done.stdout, done.stderr) == ("0\n", "")


def test_policy_check_reports_every_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "policy broken\nimports ,,\nallow search(q: str in 1..5)\nlimits speed 3\n",
                  "broken.policy")
    assert main(["policy", "check", path]) == 1
    err = capsys.readouterr().err.splitlines()
    located = [line.split(": ", 1)[0] for line in err if line.startswith(path + ":") and line[len(path) + 1].isdigit()]
    assert located == [f"{path}:2:9", f"{path}:3:14", f"{path}:4:8"]
    assert err[-1] == f"{path}: 3 errors"


def test_policy_check_refuses_a_condition_its_type_rules_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "policy p\nallow search(query: str in 1..5)\n", "p.policy")
    assert main(["policy", "check", "--json", path]) == 1
    (error,) = json.loads(capsys.readouterr().out)["errors"]
    assert (error["line"], error["col"]) == (2, 14)
    assert error["message"] == ("argument `query`: `in 1..5` cannot apply to `str` "
                                "(a number range needs a number type)")


def test_policy_check_warns_on_a_rule_an_earlier_one_shadows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "policy p\ndeny delete_*(*) \"never\"\nallow search(query: str)\nallow delete_file(path: str)\n"
    path = _write(tmp_path, text, "p.policy")
    assert main(["policy", "check", path]) == 0
    captured = capsys.readouterr()
    assert captured.err == (f"{path}:4:1: warning: `allow delete_file(path: str)` never decides: "
                            "`deny delete_*(*) \"never\"` (line 2) matches every call it matches\n")
    assert "is valid" in captured.out


def test_policy_check_json_of_a_valid_policy(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "policies" / "default.policy"
    assert main(["policy", "check", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["ok"], data["policy"], data["errors"], data["warnings"], data["exit_code"]) == (
        True, "default", [], [], 0)
