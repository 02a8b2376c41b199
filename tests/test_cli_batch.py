"""``safe-eval batch JOBS --out OUT``: JSON lines in and out, resumable."""

from __future__ import annotations

import json

import pytest

from safe_eval.cli import main
from safe_eval.sandbox import codec


def _write(path, lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))


def _records(path):
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}


JOBS = [
    {"id": "sum", "code": "sum(xs)", "env": {"xs": [1, 2, 3]}},
    {"id": "tuple", "code": "(1, 'a')"},
    {"id": "div", "code": "1 / 0"},
    {"id": "ops", "code": "sum(i for i in range(10 ** 5))", "limits": {"ops": 100}},
    {"code": "print('hi')"},
]


def test_a_jobs_file_becomes_one_outcome_line_per_job(tmp_path):
    jobs, out = tmp_path / "jobs.jsonl", tmp_path / "out.jsonl"
    _write(jobs, JOBS)
    assert main(["batch", str(jobs), "--out", str(out), "--workers", "1"]) == 0
    records = _records(out)
    assert set(records) == {"sum", "tuple", "div", "ops", 5}
    assert records["sum"]["ok"] is True and records["sum"]["value"] == 6
    assert codec.decode(records["tuple"]["value"]) == (1, "a")
    assert records["div"]["ok"] is False and records["div"]["error"] == "GuestError"
    assert records["div"]["type"] == "ZeroDivisionError"
    assert records["ops"]["error"] == "OpLimit" and records["ops"]["value"] == 100
    assert records[5]["stdout"] == "hi\n"


def test_a_second_run_skips_the_ids_already_in_the_output(tmp_path, capsys):
    jobs, out = tmp_path / "jobs.jsonl", tmp_path / "out.jsonl"
    _write(jobs, JOBS[:2])
    assert main(["batch", str(jobs), "--out", str(out), "--workers", "1"]) == 0
    _write(jobs, JOBS)
    capsys.readouterr()
    assert main(["batch", str(jobs), "--out", str(out), "--workers", "1"]) == 0
    assert "3 jobs run, 2 already in" in capsys.readouterr().err
    lines = out.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines[:2]] == ["sum", "tuple"]
    assert len(lines) == 5 and set(_records(out)) == {"sum", "tuple", "div", "ops", 5}


def test_a_line_cut_short_by_an_interruption_is_run_again(tmp_path):
    jobs, out = tmp_path / "jobs.jsonl", tmp_path / "out.jsonl"
    _write(jobs, JOBS[:2])
    out.write_text(json.dumps({"id": "sum", "ok": True, "value": 6}) + "\n" + '{"id": "tuple", "ok": tr')
    assert main(["batch", str(jobs), "--out", str(out), "--workers", "1"]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["id"] == "tuple"


@pytest.mark.parametrize(("line", "message"), [
    ("not json", "jobs.jsonl:2: not JSON"),
    ({"code": 1}, 'jobs.jsonl:2: a job is an object with a "code" string'),
    ({"code": "1", "extra": 1}, "jobs.jsonl:2: unknown keys ['extra']"),
    ({"code": "1", "id": [1]}, "jobs.jsonl:2: an id is a string or an integer"),
    ({"code": "1", "env": [1]}, 'jobs.jsonl:2: "env" and "limits" are objects'),
    ({"code": "1", "id": "a"}, "jobs.jsonl:2: the id 'a' is used twice"),
], ids=["not-json", "no-code", "unknown-key", "bad-id", "bad-env", "duplicate-id"])
def test_a_malformed_jobs_file_is_a_usage_error_naming_the_line(tmp_path, capsys, line, message):
    jobs, out = tmp_path / "jobs.jsonl", tmp_path / "out.jsonl"
    _write(jobs, [{"id": "a", "code": "1"}, line])
    assert main(["batch", str(jobs), "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_missing_jobs_file_is_a_usage_error(tmp_path, capsys):
    assert main(["batch", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_an_unknown_sandbox_is_a_usage_error(tmp_path, capsys):
    jobs = tmp_path / "jobs.jsonl"
    _write(jobs, JOBS[:1])
    assert main(["batch", str(jobs), "--out", str(tmp_path / "o"), "--sandbox", "vm"]) == 2
    assert "unknown sandbox 'vm'" in capsys.readouterr().err
