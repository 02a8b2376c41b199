"""``evaluate`` and ``evaluate_iter``: many jobs, each with the outcome it has alone.

The jobs are checked, the executor chosen (the caller's, else a ``LocalPool`` made for this
batch and closed after it), and every outcome counted for the progress report and the
summary. A job's failure is its outcome; only a malformed call (a job that is not one, an
executor that is not one, a sandbox below the policy's minimum) raises, before anything runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import Executor
from typing import Any

from safe_eval.api import LimitsLike, _merge
from safe_eval.batch.executors import BatchExecutor, FuturesExecutor, LocalPool
from safe_eval.batch.jobs import Job, JobLike, Outcome, as_job
from safe_eval.batch.progress import ProgressLike, Summary, Tracker
from safe_eval.errors import SandboxError
from safe_eval.policy import Policy, resolve_policy
from safe_eval.sandbox.selection import RANK, choose, normalize

__all__ = ["BatchResults", "evaluate", "evaluate_iter"]

ExecutorLike = BatchExecutor | Executor | None


class BatchResults(list[Outcome]):
    """The outcomes in job order (a ``list``), and the batch's ``summary``."""

    summary: Summary


def evaluate(jobs: Iterable[JobLike], *, policy: Any = None, limits: LimitsLike = None,
             executor: ExecutorLike = None, progress: ProgressLike = None, sandbox: str | None = None,
             workers: int | None = None) -> BatchResults:
    """Every job's outcome, in job order: the ``Result`` or the error (``GuestError``,
    ``PolicyViolation``, a ``LimitExceeded``, ``SandboxCrashed`` ...) evaluating it alone
    gives. ``jobs`` are ``Job``s, code strings or ``(code, env)`` pairs; ``limits`` apply to
    each job (a job's own ``limits`` override them); ``executor`` is a ``LocalPool``,
    ``RayExecutor``, ``FuturesExecutor`` or any ``concurrent.futures.Executor`` (default: a
    local pool of ``workers`` warm ``sandbox`` workers, one per core); ``progress`` is a
    callback, or whether to draw a bar (default: on a terminal)."""
    batch = _Batch(jobs, policy, limits, executor, sandbox, workers)
    tracker = Tracker(len(batch.jobs), progress)
    outcomes: list[Any] = [None] * len(batch.jobs)
    for index, outcome in batch.run():
        outcomes[index] = outcome
        tracker.update(outcome)
    results = BatchResults(outcomes)
    results.summary = tracker.summary()
    return results


def evaluate_iter(jobs: Iterable[JobLike], *, policy: Any = None, limits: LimitsLike = None,
                  executor: ExecutorLike = None, progress: ProgressLike = False, sandbox: str | None = None,
                  workers: int | None = None) -> Iterator[tuple[int, Outcome]]:
    """``(index, outcome)`` for every job as it finishes (completion order); the arguments
    are ``evaluate``'s. Closing the iterator early stops sending jobs."""
    batch = _Batch(jobs, policy, limits, executor, sandbox, workers)
    tracker = Tracker(len(batch.jobs), progress)

    def finished() -> Iterator[tuple[int, Outcome]]:
        for index, outcome in batch.run():
            tracker.update(outcome)
            yield index, outcome
        tracker.summary()

    return finished()


class _Batch:
    """A checked batch: its jobs, policy, limits and executor."""

    def __init__(self, jobs: Iterable[JobLike], policy: Any, limits: LimitsLike, executor: ExecutorLike,
                 sandbox: str | None, workers: int | None) -> None:
        self.jobs: list[Job] = [as_job(item, i) for i, item in enumerate(jobs)]
        self.policy: Policy = resolve_policy(policy)
        _merge(self.policy.limits, limits)  # a malformed ``limits`` fails here, not per job
        self.limits = limits
        self.owned = executor is None
        if isinstance(executor, BatchExecutor):
            if sandbox is not None or workers is not None:
                raise TypeError("sandbox= and workers= configure the default pool: give them to the executor")
            self.executor: BatchExecutor = executor
        elif executor is None:
            self.executor = LocalPool(workers, sandbox=_sandbox(sandbox, self.policy))
        elif isinstance(executor, Executor):
            self.executor = FuturesExecutor(executor, sandbox=_sandbox(sandbox, self.policy))
        else:
            raise TypeError("executor must be a LocalPool, a RayExecutor, a FuturesExecutor or a "
                            f"concurrent.futures.Executor, not {type(executor).__name__}")
        minimum = self.policy.sandbox
        if minimum is not None and _rank(self.executor.sandbox) < _rank(normalize(minimum)):
            if self.owned:
                self.executor.close()
            raise SandboxError(f"the policy requires the {minimum} sandbox at least; this executor "
                               f"runs jobs in {self.executor.sandbox}")

    def run(self) -> Iterator[tuple[int, Outcome]]:
        try:
            yield from self.executor.map_unordered(self.jobs, self.policy, self.limits)
        finally:
            if self.owned:
                self.executor.close()


def _sandbox(argument: str | None, policy: Policy, *, default: str = "subprocess") -> str:
    """The sandbox the default executors use: the argument, handler or environment, raised
    to the policy's minimum; an explicit ``"off"`` stays off (a futures executor only)."""
    chosen = choose(argument, policy.sandbox)
    if chosen is not None:
        return chosen
    return "off" if argument is not None and normalize(argument) == "off" else default


def _rank(name: str) -> int:
    return RANK[name.partition("+")[0]]
