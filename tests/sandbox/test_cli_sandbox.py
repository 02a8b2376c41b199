"""The command line: ``run --sandbox`` and ``sandbox doctor``."""

from __future__ import annotations

import json

import pytest

from safe_eval.cli import main


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text("print('hi')\n6 * 7\n")
    return str(path)


@pytest.mark.parametrize("sandbox", ["subprocess", "bwrap"])
def test_run_with_a_sandbox_prints_output_and_value(program, sandbox, capsys):
    assert main(["run", "--sandbox", sandbox, program]) == 0
    assert capsys.readouterr().out == "hi\n42\n"


def test_run_with_an_unknown_sandbox_is_a_usage_error(program, capsys):
    assert main(["run", "--sandbox", "bwarp", program]) == 2
    assert "unknown sandbox 'bwarp'" in capsys.readouterr().err


def test_doctor_reports_every_backend_and_exits_0_when_an_os_sandbox_works(capsys):
    assert main(["sandbox", "doctor", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"subprocess", "bwrap", "bwrap+cpython", "container", "container:runsc"}
    assert rows["bwrap"]["usable"] and rows["bwrap"]["layers"]["seccomp"]
    for row in rows.values():
        assert row["usable"] or row["why"]
