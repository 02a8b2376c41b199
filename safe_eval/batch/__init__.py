"""Batch evaluation: many programs on every core, and on a Ray cluster.

    from safe_eval.batch import Job, evaluate, evaluate_iter, check_solutions, RayExecutor

    results = evaluate([("x + 1", {"x": 1}), Job("1 / 0", id="div")])   # outcomes, in job order
    results[0].value, results[1]                # 2, GuestError('ZeroDivisionError: ...')
    results.summary.render()                     # done, failed by error class, limits hit, jobs/s
    for index, outcome in evaluate_iter(jobs): ...                   # completion order
    evaluate(jobs, executor=RayExecutor("ray://head:10001"))        # a Ray cluster

Each outcome is what evaluating the job alone in the same OS sandbox gives: its ``Result`` or
its error, never an exception that stops the batch. See ``run.py`` (evaluate), ``jobs.py``
(Job), ``executors.py`` (the local pool, any ``concurrent.futures`` executor), ``on_ray.py``
(Ray), ``slots.py`` (one warm worker running jobs), ``remote.py``/``wire.py`` (a job in
another process and its outcome back as JSON), ``progress.py`` (bar, callback, summary),
``solutions.py`` (pass@k), ``jsonl.py`` (the ``safe-eval batch`` command).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from safe_eval.batch.executors import BatchExecutor, FuturesExecutor, LocalPool
from safe_eval.batch.jobs import Job, Outcome
from safe_eval.batch.progress import Progress, Summary
from safe_eval.batch.run import BatchResults, evaluate, evaluate_iter
from safe_eval.batch.solutions import Check, check_solutions, pass_at_k

if TYPE_CHECKING:
    from safe_eval.batch.on_ray import RayExecutor

__all__ = [
    "BatchExecutor",
    "BatchResults",
    "Check",
    "FuturesExecutor",
    "Job",
    "LocalPool",
    "Outcome",
    "Progress",
    "RayExecutor",
    "Summary",
    "check_solutions",
    "evaluate",
    "evaluate_iter",
    "pass_at_k",
]


def __getattr__(name: str) -> Any:
    # Ray is an optional extra: it is imported when RayExecutor is first named
    if name == "RayExecutor":
        from safe_eval.batch.on_ray import RayExecutor

        return RayExecutor
    raise AttributeError(f"module 'safe_eval.batch' has no attribute {name!r}")
