"""safe_eval.batch on the local pool: a few hundred mixed jobs give, in job order, what each
gives evaluated alone; the iterator form, per-job limits, the summary and progress, any
``concurrent.futures`` executor, pass@k, and the bwrap backend.

One pool of two warm workers serves the module (the machine is shared): tests that need a
pool of their own (one worker, another backend) make a small one.
"""

from __future__ import annotations

import io
import math
import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from _batch_cases import CASES, alone, double, mixed_jobs, outcome_key

from safe_eval.api import Result
from safe_eval.batch import (
    Check,
    FuturesExecutor,
    Job,
    LocalPool,
    Progress,
    check_solutions,
    evaluate,
    evaluate_iter,
    pass_at_k,
)
from safe_eval.errors import (
    GuestError,
    OpLimit,
    PolicyViolation,
    SandboxCrashed,
    SandboxError,
    SandboxValueError,
)
from safe_eval.policy import parse_policy
from safe_eval.sandbox.bwrap import BwrapBackend

JOBS, CASE_OF = mixed_jobs()


@pytest.fixture(scope="module")
def pool():
    with LocalPool(2) as p:
        yield p


@pytest.fixture(scope="module")
def mixed(pool):
    return evaluate(JOBS, executor=pool, progress=False)


def test_the_mixed_batch_has_a_few_hundred_jobs_of_every_kind():
    assert len(JOBS) == 337
    assert set(CASE_OF) == set(CASES)


def test_every_outcome_is_in_job_order_and_none_is_missing(mixed):
    assert len(mixed) == len(JOBS)
    # the printed-output case echoes its x: the outcome at index i is job i's
    printed = [(job.env["x"], out) for job, case, out in zip(JOBS, CASE_OF, mixed) if case == "printed_output"]
    assert [out.stdout for _, out in printed] == [f"0 {x}\n1 {x}\n2 {x}\n" for x, _ in printed]


@pytest.mark.parametrize("case", [c for c, spec in CASES.items() if spec[2] == "same"])
def test_each_job_gives_what_evaluating_it_alone_in_process_gives(mixed, case):
    for job, job_case, outcome in zip(JOBS, CASE_OF, mixed):
        if job_case == case:
            assert outcome_key(outcome) == outcome_key(alone(job)), job.id


SANDBOX_REFERENCE = ["worker_crash", "guest_function_value", "open_file", "custom_exception", "op_limit",
                     "tuple_set_frozenset"]


@pytest.mark.parametrize("case", SANDBOX_REFERENCE)
def test_each_job_gives_what_evaluating_it_alone_in_a_sandbox_worker_gives(mixed, case):
    matching = [(job, out) for job, c, out in zip(JOBS, CASE_OF, mixed) if c == case]
    reference = outcome_key(alone(matching[0][0], "subprocess"))
    for job, outcome in matching:
        if job.env == matching[0][0].env:
            assert outcome_key(outcome) == reference


@pytest.mark.parametrize(("case", "error"), [("worker_crash", SandboxCrashed),
                                              ("guest_function_value", SandboxValueError)])
def test_outcomes_that_only_a_sandbox_gives_are_the_errors_it_raises(mixed, case, error):
    outcomes = [out for c, out in zip(CASE_OF, mixed) if c == case]
    assert outcomes and all(type(out) is error for out in outcomes)


def test_the_summary_counts_the_failures_by_class_and_the_limits_hit(mixed):
    summary = mixed.summary
    assert (summary.total, summary.done, summary.ok) == (337, 337, 180)
    assert summary.failed == {"GuestError": 60, "PolicyViolation": 36, "OpLimit": 12, "MemoryLimit": 12,
                              "RecursionLimit": 12, "OutputLimit": 12, "TimeLimit": 4, "SandboxCrashed": 3,
                              "SandboxValueError": 6}
    assert summary.limits == {"ops": 12, "memory": 12, "recursion": 12, "output": 12, "time": 4}
    assert summary.jobs_per_second == pytest.approx(337 / summary.seconds)
    assert summary.render().splitlines()[0].startswith("337/337 jobs in ")


def test_the_iterator_form_yields_every_index_once_with_the_outcome_of_that_job(pool):
    jobs = [Job("x * 3", {"x": i}) for i in range(40)]
    seen = dict(evaluate_iter(jobs, executor=pool))
    assert sorted(seen) == list(range(40))
    assert {i: out.value for i, out in seen.items()} == {i: 3 * i for i in range(40)}


def test_the_iterator_form_yields_in_completion_order(pool):
    slow = "total = 0\nfor i in range(300_000):\n    total += i\ntotal"
    jobs = [slow] + ["1 + 1"] * 6
    order = [index for index, _ in evaluate_iter(jobs, executor=pool)]
    assert sorted(order) == list(range(7))
    assert order[-1] == 0


@pytest.mark.parametrize(("batch_limits", "job_limits", "expected"), [
    (None, None, 499500),
    ({"ops": 100}, None, OpLimit),
    ({"ops": 100}, {"ops": 100_000}, 499500),
    (None, {"ops": 100}, OpLimit),
], ids=["defaults", "batch-limit", "job-overrides-batch", "job-limit"])
def test_a_job_runs_under_its_own_limits_over_the_batch_limits(pool, batch_limits, job_limits, expected):
    job = Job("sum(i for i in range(1000))", limits=job_limits)
    [outcome] = evaluate([job], executor=pool, limits=batch_limits)
    if isinstance(expected, int):
        assert outcome.value == expected
    else:
        assert type(outcome) is expected and outcome.value == 100


def test_one_job_over_its_limit_leaves_its_neighbours_theirs(pool):
    jobs = [Job("sum(i for i in range(1000))", limits={"ops": 100}), "sum(i for i in range(1000))"]
    first, second = evaluate(jobs, executor=pool)
    assert type(first) is OpLimit and second.value == 499500


def test_a_progress_callback_hears_of_every_finished_job(pool):
    heard: list[Progress] = []
    evaluate(["1", "1 / 0", "2"], executor=pool, progress=heard.append)
    assert [(p.done, p.total) for p in heard] == [(1, 3), (2, 3), (3, 3)]
    assert heard[-1].failed == 1


def test_a_progress_bar_is_drawn_on_stderr_when_asked(pool, capsys):
    evaluate(["1", "2"], executor=pool, progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\r[") and "2/2 0 failed" in err and err.endswith("\n")


def test_no_progress_bar_is_drawn_when_stderr_is_not_a_terminal(pool, capsys):
    evaluate(["1"], executor=pool)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("job", [42, ("x",), ("x", {}, {}), Job], ids=["int", "1-tuple", "3-tuple", "class"])
def test_a_malformed_job_fails_the_call_before_anything_runs(pool, job):
    with pytest.raises(TypeError, match="job 1: expected a Job"):
        evaluate(["1", job], executor=pool)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"code": 1}, "a job's code must be str or bytes, not int"),
    ({"code": "1", "env": [1]}, "a job's env must be a mapping, not list"),
    ({"code": "1", "env": {1: 2}}, "a job's env keys must be str, not int"),
    ({"code": "1", "tools": {"t": 3}}, "tool 't' is not callable"),
    ({"code": "1", "limits": 5}, "a job's limits must be a Limits or a dict, not int"),
], ids=["code", "env", "env-key", "tool", "limits"])
def test_a_job_is_checked_when_it_is_made(kwargs, message):
    code = kwargs.pop("code")
    with pytest.raises(TypeError, match=message):
        Job(code, **kwargs)


def test_an_executor_that_is_not_one_is_refused():
    with pytest.raises(TypeError, match="executor must be a LocalPool"):
        evaluate(["1"], executor=object())


def test_a_pool_below_the_policys_minimum_sandbox_is_refused(pool):
    policy = parse_policy("sandbox bwrap\n")
    with pytest.raises(SandboxError, match="the policy requires the bwrap sandbox at least"):
        evaluate(["1"], executor=pool, policy=policy)


def test_an_env_value_that_cannot_cross_fails_only_its_job(pool):
    first, second = evaluate([("x", {"x": object()}), ("x", {"x": 1})], executor=pool)
    assert type(first) is SandboxValueError and second.value == 1


def test_a_tool_runs_in_the_host_and_is_decided_by_the_policy(pool):
    calls = []

    def record(v):
        calls.append(v)
        return v + 1

    [ok] = evaluate([Job("record(41)", tools={"record": record})], executor=pool)
    assert ok.value == 42 and calls == [41]
    strict = parse_policy("extends default\ndeny record(*)\n")
    [denied] = evaluate([Job("record(1)", tools={"record": record})], executor=pool, policy=strict)
    assert type(denied) is PolicyViolation and calls == [41]


def test_the_default_executor_is_a_pool_made_and_closed_for_the_call():
    results = evaluate([("x + 1", {"x": i}) for i in range(4)], workers=1)
    assert [r.value for r in results] == [1, 2, 3, 4]


SUBSET = [i for i, case in enumerate(CASE_OF) if case not in ("worker_crash", "time_limit")][:60]


@pytest.mark.parametrize("sandbox", ["off", "subprocess"])
def test_any_concurrent_futures_executor_gives_the_same_outcomes(mixed, sandbox):
    jobs = [JOBS[i] for i in SUBSET]
    with ThreadPoolExecutor(2) as threads:
        outcomes = evaluate(jobs, executor=FuturesExecutor(threads, sandbox=sandbox))
    sandbox_only = {c for c, spec in CASES.items() if spec[2] == "sandbox"}
    for i, outcome in zip(SUBSET, outcomes):
        if sandbox == "off" and CASE_OF[i] in sandbox_only:
            continue  # in process, a guest function is a value; it cannot come back as data
        assert outcome_key(outcome) == outcome_key(mixed[i]), JOBS[i].id


def test_a_plain_concurrent_futures_executor_runs_in_subprocess_workers_by_default():
    with ThreadPoolExecutor(1) as threads:
        [outcome] = evaluate(["def f():\n    pass\nf"], executor=threads)
    assert type(outcome) is SandboxValueError


PROBLEMS = ["def add(a, b):\n", "def neg(a):\n"]
TESTS = ["assert add(2, 3) == 5\n", "assert neg(4) == -4\n"]


def test_check_solutions_tells_passing_from_failing_completions(pool):
    completions = [["    return a + b\n", "    return a - b\n", "    import os\n    return 0\n"],
                   "    return -a\n"]
    checks = check_solutions(PROBLEMS, completions, TESTS, executor=pool)
    assert [[c.passed for c in row] for row in checks] == [[True, False, False], [True]]
    assert checks[0][0] == Check(True)
    assert type(checks[0][1].error) is GuestError and checks[0][1].error.type_name == "AssertionError"
    assert type(checks[0][2].error) is PolicyViolation


def test_check_solutions_refuses_lists_of_different_lengths():
    with pytest.raises(ValueError, match=r"differ in length \(2, 1, 2\)"):
        check_solutions(PROBLEMS, ["x"], TESTS)


@pytest.mark.parametrize(("passed", "k", "expected"), [
    ([[True, False, False, False]], 1, 0.25),
    ([[True, False, False, False]], 2, 0.5),
    ([[False, False], [True, True]], 1, 0.5),
    ([[True, False, True, False, False]], 3, 1 - math.comb(3, 3) / math.comb(5, 3)),
], ids=["1-of-4-at-1", "1-of-4-at-2", "two-problems", "2-of-5-at-3"])
def test_pass_at_k_is_the_unbiased_estimate(passed, k, expected):
    checks = [[Check(p) for p in row] for row in passed]
    assert pass_at_k(checks, k) == pytest.approx(expected)


def test_pass_at_k_needs_k_samples_per_problem():
    with pytest.raises(ValueError, match="pass@3 needs at least 3 samples per problem"):
        pass_at_k([[Check(True)]], 3)


BWRAP = BwrapBackend.unavailable()


@pytest.mark.skipif(BWRAP is not None, reason=f"bwrap: {BWRAP}")
def test_a_batch_runs_in_bwrap_workers_with_the_same_outcomes(mixed):
    subset = SUBSET[:30]
    with LocalPool(1, sandbox="bwrap") as bwrap:
        outcomes = evaluate([JOBS[i] for i in subset], executor=bwrap)
    assert [outcome_key(o) for o in outcomes] == [outcome_key(mixed[i]) for i in subset]


@pytest.mark.skipif(BWRAP is not None, reason=f"bwrap: {BWRAP}")
def test_plain_cpython_jobs_in_bwrap_each_get_a_fresh_worker():
    jobs = ["import os\nos.kill(os.getpid(), 9)", "import os\nos.mkdir('mark')\nos.listdir('.')",
            "import os\nos.listdir('.')"]
    with LocalPool(1, sandbox="bwrap+cpython", cpython_imports={"os"}) as cpython:
        killed, marked, after = evaluate(jobs, executor=cpython)
    assert type(killed) is SandboxCrashed and killed.signal == 9
    assert marked.value == ["mark"] and after.value == []  # a fresh workspace and process


def test_the_default_pool_has_one_worker_per_core():
    with LocalPool() as local:
        assert local.workers == len(os.sched_getaffinity(0))


def test_a_pool_refuses_to_run_in_process():
    with pytest.raises(SandboxError, match="a LocalPool runs its jobs in OS sandbox workers"):
        LocalPool(1, sandbox="off")


def test_results_are_result_objects_like_a_single_evaluation(mixed):
    first = mixed[0]
    assert type(first) is Result and first.value == 3 and first.stdout == "" and first.seconds >= 0


def test_a_tool_given_by_a_module_function_runs(pool):
    [out] = evaluate([Job("double(5)", tools={"double": double})], executor=pool)
    assert out.value == 10


def test_a_progress_stream_not_a_terminal_gets_nothing_by_default():
    from safe_eval.batch.progress import Tracker

    stream = io.StringIO()
    tracker = Tracker(1, None, stream=stream)
    tracker.update(Result(1, "", 0, 0.0))
    tracker.summary()
    assert stream.getvalue() == ""


def test_a_worker_is_replaced_before_its_cpu_rlimit_could_end_a_job(monkeypatch):
    # contract of slots.Slot: the worker's wall time running jobs bounds its CPU time; once the
    # next job could take it past the rlimit, the slot starts a fresh worker first
    from safe_eval.batch import slots
    from safe_eval.limits.model import Limits
    from safe_eval.policy import resolve_policy
    from safe_eval.sandbox.selection import make_backend

    limits = Limits(time=30.0)
    policy = resolve_policy(None)
    with make_backend("subprocess", pool_size=0) as backend:
        slot = slots.Slot(backend)
        try:
            slot.run(Job("1"), policy, limits)
            first = slot._session.worker_pid
            # room for 50 ms more of running after what the worker spent starting and on job 1
            monkeypatch.setattr(slots, "WORKER_CPU_SECONDS",
                                slot._spent + backend.startup + 30.0 + slots.GRACE + 0.05)
            slot.run(Job("total = 0\nfor i in range(400_000):\n    total += i\ntotal"), policy, limits)
            assert slot._session.worker_pid == first  # it ran in the same worker
            assert slot.run(Job("2"), policy, limits).value == 2
            assert slot._session.worker_pid not in (None, first)
        finally:
            slot.close()
