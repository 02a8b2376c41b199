"""Invariant: a job that kills its worker costs that job only.

A worker dies under its job (here: ``os.abort()`` in plain CPython mode, the crash a guest can
cause there; interpreter mode has none: output of any size is output, counted against the
output limit); the slot's next job starts a fresh worker (``sandbox/session.py``'s respawn),
and the jobs queued behind the crash get the outcomes they get alone."""

from __future__ import annotations

import signal

import pytest

from safe_eval.batch import Job, LocalPool, evaluate, evaluate_iter
from safe_eval.errors import SandboxCrashed
from safe_eval.sandbox.bwrap import BwrapBackend

pytestmark = pytest.mark.skipif(BwrapBackend.unavailable() is not None,
                                reason=f"bwrap: {BwrapBackend.unavailable()}")

CRASH = Job("import os\nos.abort()", limits={"time": 30.0})


@pytest.fixture(scope="module")
def one_worker():
    with LocalPool(1, sandbox="bwrap+cpython", cpython_imports={"os"}) as pool:
        yield pool


def test_a_job_that_crashes_its_worker_is_a_sandbox_crash_and_the_next_job_still_runs(one_worker):
    before, crashed, after = evaluate(["x = 1\nx", CRASH, "y = 2\ny"], executor=one_worker)
    assert before.value == 1 and after.value == 2
    assert type(crashed) is SandboxCrashed and crashed.signal == signal.SIGABRT
    assert str(crashed).startswith("the sandbox worker ended without answering")


def test_repeated_crashes_each_cost_only_their_own_job(one_worker):
    jobs = [CRASH if i % 3 == 1 else Job("n * n", {"n": i}) for i in range(7)]
    outcomes = evaluate(jobs, executor=one_worker)
    assert [type(o).__name__ for o in outcomes] == ["Result", "SandboxCrashed", "Result", "Result",
                                                    "SandboxCrashed", "Result", "Result"]
    assert [o.value for i, o in enumerate(outcomes) if i % 3 != 1] == [0, 4, 9, 25, 36]


def test_a_crash_reaches_the_iterator_as_an_outcome_not_an_exception(one_worker):
    outcomes = dict(evaluate_iter([CRASH, "3"], executor=one_worker))
    assert type(outcomes[0]) is SandboxCrashed and outcomes[1].value == 3
