"""The benchmark command runs end to end on tiny sizes and prints the table it promises.

No timing is asserted here (timings belong to ``python -m benchmarks``): these tests check that every
case gets a row, every contender a column, and that each cell is either a measurement or says why
there is none, including when a peer library is not installed.
"""

from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.cases import make_cases
from benchmarks.contenders import all_contenders

ROOT = Path(__file__).resolve().parent.parent
CASES = [c.name for c in make_cases(quick=True)]
CONTENDERS = [c.name for c in all_contenders()]
# A cell is a time ("12.3 µs · 4.1x"), a limits overhead ("+5% (...)") or a reason.
MEASURED = re.compile(r"^(\d[\d.]* (ns|µs|ms|s)\b|[+-]\d+% \()")
REASONS = ("not installed", "not available", "n/a", "error", "wrong result", "setup error", "policy rejected")


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchmarks", "--quick", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def _table_rows(stdout: str, title_row: str = "| case |") -> dict[str, list[str]]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title_row))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows: dict[str, list[str]] = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        assert len(cells) == len(header), line
        rows[cells[0].strip("`")] = cells[1:]
    return {"__header__": header[1:], **rows}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    proc = _run("--json", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, json.loads(out.read_text())


def test_table_has_a_row_per_case_and_a_column_per_contender(quick_run: tuple[str, dict]) -> None:
    rows = _table_rows(quick_run[0])
    assert rows.pop("__header__") == [*CONTENDERS, "goal (safe-eval)"]
    assert list(rows) == CASES


@pytest.mark.parametrize("case", CASES)
def test_every_cell_is_a_measurement_or_a_reason(quick_run: tuple[str, dict], case: str) -> None:
    row = _table_rows(quick_run[0])[case]
    for contender, cell in zip(CONTENDERS, row, strict=False):
        assert MEASURED.match(cell) or cell.startswith(REASONS), f"{contender}: {cell!r}"


def test_cpython_baseline_is_measured_for_every_program_case(quick_run: tuple[str, dict]) -> None:
    data = quick_run[1]
    for case in data["cases"]:
        if case["kind"] == "program":
            cell = case["cells"]["CPython"]
            assert cell["median_s"] > 0 and cell["ratio_to_cpython"] == pytest.approx(1.0), case["name"]


def test_json_has_every_case_with_every_contender(quick_run: tuple[str, dict]) -> None:
    data = quick_run[1]
    assert [c["name"] for c in data["cases"]] == CASES
    for case in data["cases"]:
        assert set(case["cells"]) == set(CONTENDERS), case["name"]


def test_memory_table_and_case_selection() -> None:
    proc = _run("--memory", "--cases", "tiny-warm,loop")
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = _table_rows(proc.stdout.split("Peak RSS", 1)[1])
    assert rows.pop("__header__") == CONTENDERS
    assert list(rows) == ["tiny-warm", "loop"]
    assert rows["loop"][0].startswith("+") and "MiB" in rows["loop"][0]


def test_unknown_case_is_refused_with_the_known_names() -> None:
    proc = _run("--cases", "nope")
    assert proc.returncode != 0 and "tiny-warm" in proc.stderr


@pytest.mark.parametrize(
    ("name", "module"),
    [("RestrictedPython", "RestrictedPython"), ("smolagents", "smolagents"),
     ("asteval", "asteval"), ("Monty", "pydantic_monty")],
)
def test_a_missing_peer_says_not_installed(monkeypatch: pytest.MonkeyPatch, name: str, module: str) -> None:
    real_import = builtins.__import__

    def fake_import(mod: str, *args: object, **kwargs: object) -> object:
        if mod == module or mod.startswith(module + "."):
            raise ImportError(f"No module named {mod!r}")
        return real_import(mod, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake_import)
    # a module another test imported already is found in sys.modules without __import__: a None
    # entry makes importing it fail as a missing one does
    for loaded in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.setitem(sys.modules, loaded, None)
    contender = next(c for c in all_contenders() if c.name == name)
    assert contender.unavailable() == "not installed"


@pytest.mark.parametrize(
    ("source", "expected"),
    [("x + 1", 42), ("y = x * 2\ny - 1", 81), ("def f(a):\n    return a + x\nf(1)", 42), ("z = x", None)],
)
def test_exec_style_contenders_get_the_final_expression_bound(source: str, expected: object) -> None:
    from benchmarks.contenders.base import split_last_expression

    env: dict = {"x": 41}
    exec(split_last_expression(source), env)
    assert env.get("result") == expected


@pytest.mark.parametrize("case", [c for c in make_cases(quick=True) if c.kind == "program"], ids=lambda c: c.name)
def test_every_program_case_runs_under_cpython(case) -> None:
    from benchmarks.contenders.cpython import CPythonContender

    run = CPythonContender().prepare(case)
    assert run(0) is not None and run(1) == run(0)


def test_throughput_runs_on_a_few_problems_and_prints_its_table() -> None:
    # three problems once, a 2-worker pool, no Ray: the rows and their shape, never the rates
    proc = subprocess.run([sys.executable, "-m", "benchmarks.throughput", "--repeat", "1", "--problems", "3",
                           "--workers", "2", "--no-ray"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("3 jobs (HumanEval[:3] x 1), ")
    rows = _table_rows(proc.stdout, "| executor |")
    assert rows.pop("__header__") == ["jobs/s", "vs one process", "vs 1-worker pool"]
    assert list(rows) == ["one process", "local pool, 1 worker", "local pool, 2 workers"]
    for name, (rate, vs_one, vs_single) in rows.items():
        assert re.fullmatch(r"\d+\.\d", rate) and float(rate) > 0, (name, rate)
        assert re.fullmatch(r"\d+\.\d\dx", vs_one) and re.fullmatch(r"\d+\.\d\dx", vs_single), name
    assert (rows["one process"][1], rows["local pool, 1 worker"][2]) == ("1.00x", "1.00x")
