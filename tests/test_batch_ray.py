"""safe_eval.batch on Ray: the mixed batch on a local Ray cluster the test starts
(``ray.init(num_cpus=2)``) gives what each job gives alone, in job order. Skipped when Ray is
not installed (``pip install 'safe-eval[ray]'``; ``.ci/run`` installs it)."""

from __future__ import annotations

import os

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'safe-eval[ray]')")

from _batch_cases import CASES, alone, mixed_jobs, outcome_key  # noqa: E402

from safe_eval.batch import Job, RayExecutor, evaluate, evaluate_iter  # noqa: E402
from safe_eval.errors import OpLimit, SandboxCrashed, SandboxError, SandboxUnavailable  # noqa: E402

JOBS, CASE_OF = mixed_jobs()
TESTS = os.path.dirname(__file__)


@pytest.fixture(scope="module")
def cluster():
    # the actors import the tool the host-tool case passes (tests/_batch_cases.py)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": TESTS}})
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def executor(cluster):
    ex = RayExecutor(num_workers=2)
    yield ex
    ex.close()


@pytest.fixture(scope="module")
def mixed(executor):
    return evaluate(JOBS, executor=executor, progress=False)


@pytest.mark.parametrize("case", [c for c, spec in CASES.items() if spec[2] == "same"])
def test_each_job_on_ray_gives_what_evaluating_it_alone_gives(mixed, case):
    for job, job_case, outcome in zip(JOBS, CASE_OF, mixed):
        if job_case == case:
            assert outcome_key(outcome) == outcome_key(alone(job)), job.id


@pytest.mark.parametrize(("case", "error"), [("worker_crash", SandboxCrashed),
                                              ("guest_function_value", SandboxError)])
def test_a_job_that_ends_its_sandbox_worker_on_ray_costs_only_itself(mixed, case, error):
    outcomes = [out for c, out in zip(CASE_OF, mixed) if c == case]
    assert outcomes and all(isinstance(out, error) for out in outcomes)
    assert mixed.summary.ok == 180


def test_the_outcomes_on_ray_are_in_job_order(mixed):
    printed = [(job.env["x"], out) for job, case, out in zip(JOBS, CASE_OF, mixed) if case == "printed_output"]
    assert [out.stdout for _, out in printed] == [f"0 {x}\n1 {x}\n2 {x}\n" for x, _ in printed]


def test_the_iterator_form_on_ray_yields_every_index_once(executor):
    seen = dict(evaluate_iter([Job("x - 1", {"x": i}) for i in range(30)], executor=executor))
    assert {i: out.value for i, out in seen.items()} == {i: i - 1 for i in range(30)}


def test_per_job_limits_hold_on_ray(executor):
    jobs = [Job("sum(i for i in range(1000))", limits={"ops": 100}), "sum(i for i in range(1000))"]
    limited, free = evaluate(jobs, executor=executor)
    assert type(limited) is OpLimit and free.value == 499500


# alone, and in the middle of a batch large enough that Ray carries jobs in chunks
@pytest.mark.parametrize("others", [1, 40])
def test_a_tool_the_cluster_cannot_import_fails_only_its_job(executor, others):
    import types

    module = types.ModuleType("not_on_the_cluster")
    exec("def tool():\n    return 1\n", module.__dict__)
    module.tool.__module__ = "not_on_the_cluster"
    import sys

    sys.modules["not_on_the_cluster"] = module
    bad = others // 2
    jobs: list = [f"{i} * 2" for i in range(others)]
    jobs.insert(bad, Job("tool()", tools={"tool": module.tool}))
    try:
        outcomes = evaluate(jobs, executor=executor)
    finally:
        del sys.modules["not_on_the_cluster"]
    failed = outcomes[bad]
    assert type(failed) is SandboxError and str(failed).startswith("Ray could not run this job: ")
    assert [out.value for i, out in enumerate(outcomes) if i != bad] == [i * 2 for i in range(others)]


def test_an_executor_joins_the_running_ray_and_leaves_it_running(cluster):
    with RayExecutor(num_workers=1, cpus_per_worker=0) as ex:  # the module's actors hold both CPUs
        [out] = evaluate(["6 * 7"], executor=ex)
    assert out.value == 42 and ray.is_initialized()


def test_actors_the_cluster_cannot_place_are_unavailable_not_a_hang(executor):
    with pytest.raises(SandboxUnavailable, match="Ray did not start 1 actors of 1 CPU within 2s"):
        RayExecutor(num_workers=1, start_timeout=2)
