"""``safe-eval batch jobs.jsonl --out results.jsonl``: a batch as JSON lines, resumable.

Input, one job per line: ``{"id": "a1", "code": "x + 1", "env": {"x": 1}, "limits": {"ops": 1000}}``
(``id`` defaults to the line number; ``env`` holds plain JSON values). Output, one line per
job as it finishes (completion order), flushed line by line::

    {"id": "a1", "ok": true, "value": 2, "stdout": "", "ops": 3, "seconds": 0.001}
    {"id": "a2", "ok": false, "error": "GuestError", "type": "ZeroDivisionError", ...}

``value`` is in the sandbox codec's tagged JSON (plain JSON for plain values; ``{"$": "tuple",
"v": [...]}`` and the like otherwise: ``safe_eval.sandbox.codec.decode`` reads it back); an
error line is the error's ``to_dict()``. Jobs whose id is already in the output file are
skipped, so an interrupted run continues where it stopped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import IO, Any

from safe_eval.api import Result
from safe_eval.batch.jobs import Job, Outcome
from safe_eval.sandbox import codec

__all__ = ["JobFileError", "done_ids", "outcome_line", "read_jobs"]

_KEYS = frozenset({"id", "code", "env", "limits"})


class JobFileError(ValueError):
    """A jobs file that cannot be read as jobs (the line says where)."""


def read_jobs(path: str) -> list[Job]:
    jobs: list[Job] = []
    seen: set[Any] = set()
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            job = _job(line, number, path)
            if job.id in seen:
                raise JobFileError(f"{path}:{number}: the id {job.id!r} is used twice")
            seen.add(job.id)
            jobs.append(job)
    return jobs


def _job(line: str, number: int, path: str) -> Job:
    where = f"{path}:{number}"
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise JobFileError(f"{where}: not JSON: {exc}") from None
    if type(data) is not dict or type(data.get("code")) is not str:
        raise JobFileError(f'{where}: a job is an object with a "code" string')
    unknown = set(data) - _KEYS
    if unknown:
        raise JobFileError(f"{where}: unknown keys {sorted(unknown)} (a job has {sorted(_KEYS)})")
    ident = data.get("id", number)
    if type(ident) not in (str, int):
        raise JobFileError(f"{where}: an id is a string or an integer")
    env, limits = data.get("env") or {}, data.get("limits")
    if type(env) is not dict or (limits is not None and type(limits) is not dict):
        raise JobFileError(f'{where}: "env" and "limits" are objects')
    return Job(data["code"], env, limits=limits, id=ident)


def done_ids(path: str) -> set[Any]:
    """The ids an earlier run wrote to ``path`` (none when it does not exist). A last line cut
    short by an interruption is removed, so that appending starts on a fresh line."""
    if not os.path.exists(path):
        return set()
    with open(path, "rb+") as handle:
        data = handle.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            handle.truncate(end)
    ids = set()
    for line in data[:end].splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if type(record) is dict and type(record.get("id")) in (str, int):
            ids.add(record["id"])
    return ids


def outcome_line(job: Job, outcome: Outcome) -> str:
    if isinstance(outcome, Result):
        record: dict[str, Any] = {"id": job.id, "ok": True, "value": codec.encode(outcome.value),
                                  "stdout": outcome.stdout, "ops": outcome.ops, "seconds": outcome.seconds}
    else:
        record = {"id": job.id, "ok": False, **outcome.to_dict()}
    return json.dumps(record, ensure_ascii=False, default=repr) + "\n"


def write_outcomes(out: IO[str], jobs: list[Job], finished: Iterator[tuple[int, Outcome]]) -> None:
    for index, outcome in finished:
        out.write(outcome_line(jobs[index], outcome))
        out.flush()
