"""A slot: one warm sandbox worker that runs a batch's jobs one after another.

In ``interpreter`` mode a slot keeps its worker across jobs (a process start costs more
than most jobs) and each job runs as a one-shot in it: a namespace of its own that nothing
outlives, so the next job starts from nothing, as consecutive ``safe_eval`` calls do. A job
that kills the worker (a limit the host enforces, a crash) costs that job only: the next job
starts a fresh worker. A worker is also replaced before its next job could take it past the
CPU seconds its rlimit allows over its life.

In ``cpython`` mode (plain CPython inside the OS sandbox) a job can change the interpreter
itself, so no worker runs two jobs: each takes a fresh one from the backend's warm pool.
"""

from __future__ import annotations

import time
import types
from typing import TYPE_CHECKING, Any

from safe_eval.api import _merge
from safe_eval.errors import InternalError, SafeEvalError
from safe_eval.limits.model import Limits
from safe_eval.sandbox.base import WORKER_CPU_SECONDS
from safe_eval.sandbox.session import GRACE

if TYPE_CHECKING:
    from safe_eval.batch.jobs import Job, Outcome
    from safe_eval.policy.model import Policy
    from safe_eval.sandbox.base import Backend
    from safe_eval.sandbox.session import Session

__all__ = ["Slot", "job_limits", "spare_workers"]


def spare_workers(sandbox: str, slots: int) -> int:
    """The warm spares a backend for ``slots`` slots keeps: plain-CPython slots take a fresh
    worker for every job (so as many spares as slots); the others keep their own."""
    return slots if sandbox.endswith("+cpython") else 0


def job_limits(policy: Policy, batch: Any, job: Any) -> Limits:
    """The limits one job runs under: the policy's, the batch's over them, the job's over both."""
    return _merge(_merge(policy.limits, batch), job)


class Slot:
    """Not thread-safe: one slot per thread."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.reuse = backend.mode == "interpreter"
        self._session: Session | None = None
        self._worker: int | None = None
        # wall seconds the current worker has spent running (an upper bound of its CPU time:
        # a worker is one thread and uses no CPU while it waits for a request)
        self._spent = 0.0

    def run(self, job: Job, policy: Policy, limits: Limits) -> Outcome:
        """The job's outcome: its ``Result`` or the error a single evaluation raises."""
        env = types.MappingProxyType(job.environment())  # read-only: nothing is written back
        try:
            if not self.reuse:
                return self.backend.run(job.code, env, policy=policy, limits=limits)
            session = self._ready(limits)
            start = time.perf_counter()
            try:
                return session.run(job.code, env, policy=policy, limits=limits, oneshot=True)
            finally:
                self._account(session, time.perf_counter() - start)
        except SafeEvalError as exc:
            return exc
        except Exception as exc:  # a bug in safe-eval: this job's outcome, not the batch's end
            return InternalError(f"safe-eval failed on this job: {type(exc).__name__}: {exc}")

    def _ready(self, limits: Limits) -> Session:
        session = self._session
        if session is None:
            session = self._session = self.backend.session(snapshot=False)
        # the next job's call ends within its start-up allowance + time limit + grace
        if self._spent + self.backend.startup + limits.time + GRACE >= WORKER_CPU_SECONDS:
            session.kill()  # the next run starts a fresh worker
        return session

    def _account(self, session: Session, seconds: float) -> None:
        pid = session.worker_pid
        if pid != self._worker:  # the run started a new worker (or ended the old one)
            self._worker, self._spent = pid, 0.0
        self._spent += seconds

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None
