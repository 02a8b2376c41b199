"""Where a batch runs: the ``BatchExecutor`` protocol and the local pool of warm workers.

An executor takes the batch's jobs and yields ``(index, outcome)`` as jobs finish, keeping at
most a few jobs per worker in flight (back-pressure: a batch of a million jobs is not queued
at once). Three kinds:

- ``LocalPool`` (the default): one warm sandbox worker per core on this machine, each served by
  a host thread (``slots.Slot``); any backend (``sandbox="bwrap"``).
- ``FuturesExecutor``: any ``concurrent.futures.Executor`` (a process pool, Dask's
  ``client.get_executor()``): each job is a call of ``remote.run_remote`` there.
- ``RayExecutor`` (``on_ray.py``): a pool of Ray actors, each holding a warm slot.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from safe_eval.batch.slots import Slot, job_limits, spare_workers
from safe_eval.batch.wire import decode_outcome
from safe_eval.errors import SandboxCrashed, SandboxError
from safe_eval.sandbox.selection import make_backend, normalize

if TYPE_CHECKING:
    from safe_eval.batch.jobs import Job, Outcome
    from safe_eval.policy.model import Policy

__all__ = ["BatchExecutor", "FuturesExecutor", "LocalPool", "default_workers"]


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@runtime_checkable
class BatchExecutor(Protocol):
    """Runs a batch's jobs; ``sandbox`` names the OS sandbox its workers use."""

    sandbox: str

    def map_unordered(self, jobs: Sequence[Job], policy: Policy,
                      limits: Any) -> Iterator[tuple[int, Outcome]]:
        """``(index, outcome)`` for every job, in completion order."""

    def close(self) -> None: ...


class LocalPool:
    """Warm sandbox workers on this machine, ``workers`` of them (default: one per core).

    ``sandbox`` is any backend name (``"subprocess"``, ``"bwrap"``, ``"bwrap+cpython"``,
    ``"container"``); ``options`` go to the backend (``memory=``, ``cpython_imports=``).
    Reusable across batches; close it (or use it as a context manager) to end its workers."""

    def __init__(self, workers: int | None = None, *, sandbox: str = "subprocess", **options: Any) -> None:
        self.sandbox = normalize(sandbox)
        if self.sandbox == "off":
            raise SandboxError("a LocalPool runs its jobs in OS sandbox workers: name one "
                               "(use a concurrent.futures executor to evaluate in process)")
        self.workers = default_workers() if workers is None else int(workers)
        if self.workers < 1:
            raise ValueError("a LocalPool needs at least one worker")
        self.backend = make_backend(self.sandbox, pool_size=spare_workers(self.sandbox, self.workers),
                                    **options)
        self._tasks: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False

    def _start(self) -> None:
        with self._lock:
            if self._closed:
                raise SandboxError("the LocalPool is closed")
            while len(self._threads) < self.workers:
                thread = threading.Thread(target=self._serve, name=f"safe-eval-batch-{len(self._threads)}",
                                          daemon=True)
                thread.start()
                self._threads.append(thread)

    def _serve(self) -> None:
        slot = Slot(self.backend)
        try:
            while True:
                task = self._tasks.get()
                if task is None:
                    return
                index, job, policy, limits, done = task
                done.put((index, slot.run(job, policy, job_limits(policy, limits, job.limits))))
        finally:
            slot.close()

    def map_unordered(self, jobs: Sequence[Job], policy: Policy,
                      limits: Any) -> Iterator[tuple[int, Outcome]]:
        self._start()
        done: queue.SimpleQueue[tuple[int, Outcome]] = queue.SimpleQueue()
        # two per worker: a worker never waits for the host to hand it its next job
        window = 2 * self.workers
        sent = received = 0
        while received < len(jobs):
            while sent < len(jobs) and sent - received < window:
                self._tasks.put((sent, jobs[sent], policy, limits, done))
                sent += 1
            yield done.get()
            received += 1

    def close(self) -> None:
        with self._lock:
            self._closed = True
            threads, self._threads = self._threads, []
        for _ in threads:
            self._tasks.put(None)
        for thread in threads:
            thread.join()
        self.backend.close()

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<LocalPool workers={self.workers} sandbox={self.sandbox}>"


class FuturesExecutor:
    """A batch on any ``concurrent.futures.Executor``: each job is one call of
    ``remote.run_remote`` there (its arguments pickled to it, its outcome back as JSON).
    ``sandbox`` is the OS sandbox the executor's processes run the jobs in (``"off"``: in
    those processes themselves). At most ``max_in_flight`` jobs are submitted at a time."""

    def __init__(self, executor: Executor, *, sandbox: str = "subprocess", max_in_flight: int | None = None,
                 **options: Any) -> None:
        self.executor = executor
        self.sandbox = normalize(sandbox)
        self.options = options
        self.max_in_flight = max_in_flight or 2 * default_workers()

    def map_unordered(self, jobs: Sequence[Job], policy: Policy,
                      limits: Any) -> Iterator[tuple[int, Outcome]]:
        from safe_eval.batch.remote import run_remote

        pending: dict[Future[str], int] = {}
        sent = 0
        while sent < len(jobs) or pending:
            while sent < len(jobs) and len(pending) < self.max_in_flight:
                job = jobs[sent]
                future = self.executor.submit(run_remote, job.code, job.env, job.tools, policy,
                                              job_limits(policy, limits, job.limits), self.sandbox,
                                              self.options)
                pending[future] = sent
                sent += 1
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                index = pending.pop(future)
                try:
                    outcome = decode_outcome(future.result())
                except Exception as exc:  # the executor lost the call (a dead process, a cancel)
                    outcome = SandboxCrashed(f"the executor failed to run this job: "
                                             f"{type(exc).__name__}: {exc}")
                yield index, outcome

    def close(self) -> None:
        """The executor is the caller's: it is left running."""

    def __repr__(self) -> str:
        return f"<FuturesExecutor {type(self.executor).__name__} sandbox={self.sandbox}>"
