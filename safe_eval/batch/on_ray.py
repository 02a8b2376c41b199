"""``RayExecutor``: a batch on a Ray cluster, for when one machine is not enough.

    evaluate(jobs, executor=RayExecutor())                        # a local Ray, or the running one
    evaluate(jobs, executor=RayExecutor("ray://head:10001"))      # a cluster (Ray Client)

``num_workers`` actors (default: the cluster's CPUs), each holding a warm slot
(``remote.run_remote``: a sandbox worker process next to the actor, so guest code never runs in
the actor itself). Jobs travel in chunks of up to ``CHUNK`` (one Ray task each: Ray's own
cost per task, about a millisecond of the driver's and the actor's CPU, is paid once per
chunk, and the policy, limits and options once per batch), smaller near the end of a batch so
every actor stays busy; each actor has at most two chunks in flight, one running and one
waiting, so a batch of any size is fed as fast as it is consumed. Outcomes come back as JSON
text (``wire``), a chunk's together. When an actor dies (its node went away: a job can only
end its sandbox worker, not the actor) Ray restarts it and runs its jobs again.

``ray.init`` is called only when this process is not connected to Ray yet, and the Ray
started that way is shut down with the executor. ``pip install 'safe-eval[ray]'`` installs Ray.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from safe_eval.batch.slots import job_limits
from safe_eval.batch.wire import decode_outcome
from safe_eval.errors import SandboxCrashed, SandboxError, SandboxUnavailable
from safe_eval.sandbox.selection import normalize

if TYPE_CHECKING:
    from safe_eval.batch.jobs import Job, Outcome
    from safe_eval.policy.model import Policy

__all__ = ["RayExecutor"]

INSTALL = "pip install 'safe-eval[ray]'"
# jobs per Ray task: on 2 cores, one job per task kept Ray local at 1.66x one process
# (HumanEval x30) against the local pool's 1.80x; in-process actors take one (a job that ends
# the actor must not take others down with it)
CHUNK = 8


class _Runner:
    """The actor: runs jobs with ``run_remote`` in its own process."""

    def run(self, jobs: list[tuple[Any, ...]], policy: Any, sandbox: str, options: Any) -> list[str]:
        from safe_eval.batch.remote import run_remote

        return [run_remote(code, env, tools, policy, limits, sandbox, options)
                for code, env, tools, limits in jobs]

    def ready(self) -> bool:
        return True


class RayExecutor:
    """A pool of Ray actors. ``address``: None (the Ray this process is connected to, else
    ``ray.init()``: a running local cluster or a new one), ``"auto"``, or ``"ray://host:port"``.
    ``sandbox`` is the OS sandbox each actor runs its jobs in (``"off"``: in the actor itself,
    one job in flight per actor, and a job that kills the actor costs only itself). Each actor
    reserves ``cpus_per_worker`` CPUs; actors Ray cannot place within ``start_timeout``
    seconds are ``SandboxUnavailable``."""

    def __init__(self, address: str | None = None, num_workers: int | None = None, *,
                 sandbox: str = "subprocess", cpus_per_worker: float = 1.0, start_timeout: float = 120.0,
                 init_options: dict[str, Any] | None = None, **options: Any) -> None:
        try:
            import ray as ray_module
        except ImportError:
            raise SandboxUnavailable(f"Ray is not installed ({INSTALL})") from None
        # Ray's own annotations are partial (untyped calls, dynamic ``.remote``): used untyped
        ray: Any = ray_module
        self._ray = ray
        self.address = address
        self.sandbox = normalize(sandbox)
        self.options = options
        self._started = False
        if not ray.is_initialized():
            ray.init(address=address, **(init_options or {}))
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.num_workers = max(1, num_workers if num_workers is not None else cpus)
        in_process = self.sandbox == "off"
        self.in_flight = 1 if in_process else 2
        actor = ray.remote(_Runner).options(
            num_cpus=cpus_per_worker, max_restarts=-1,
            # a job that kills an in-process actor is not run again; lost sandboxed ones are
            max_task_retries=0 if in_process else 2)
        self._actors: list[Any] = [actor.remote() for _ in range(self.num_workers)]
        try:
            ray.get([a.ready.remote() for a in self._actors], timeout=start_timeout)
        except ray.exceptions.GetTimeoutError:
            self.close()
            raise SandboxUnavailable(
                f"Ray did not start {self.num_workers} actors of {cpus_per_worker:g} CPU within "
                f"{start_timeout:g}s (free: {ray.available_resources().get('CPU', 0):g} CPUs)") from None

    def map_unordered(self, jobs: Sequence[Job], policy: Policy,
                      limits: Any) -> Iterator[tuple[int, Outcome]]:
        ray: Any = self._ray
        free = [a for a in self._actors for _ in range(self.in_flight)]
        shared = [ray.put(policy), self.sandbox, ray.put(self.options)]
        most = 1 if self.sandbox == "off" else CHUNK
        slots = len(free)
        pending: dict[Any, tuple[list[int], Any]] = {}
        alone: list[int] = []  # jobs of a chunk Ray could not run: each is tried by itself
        sent = 0
        while sent < len(jobs) or alone or pending:
            while (sent < len(jobs) or alone) and free:
                actor = free.pop()
                if alone:
                    chunk = [alone.pop()]
                else:  # spread what is left over every slot in flight before filling chunks
                    size = max(1, min(most, (len(jobs) - sent) // slots))
                    chunk = list(range(sent, min(sent + size, len(jobs))))
                    sent = chunk[-1] + 1
                ref = actor.run.remote(
                    [(jobs[i].code, jobs[i].env, jobs[i].tools, job_limits(policy, limits, jobs[i].limits))
                     for i in chunk], *shared)
                pending[ref] = (chunk, actor)
            finished, _ = ray.wait(list(pending), num_returns=1)
            for ref in finished:
                chunk, actor = pending.pop(ref)
                free.append(actor)
                try:
                    outcomes: list[Any] = [decode_outcome(text) for text in ray.get(ref)]
                except ray.exceptions.RayActorError as exc:  # it ended the actor (in-process mode)
                    outcomes = [SandboxCrashed(f"the Ray actor running this job died: {_first_line(exc)}")
                                for _ in chunk]
                except Exception as exc:  # Ray could not run it (a tool the cluster cannot import)
                    if len(chunk) > 1:
                        alone.extend(reversed(chunk))
                        continue
                    outcomes = [SandboxError(f"Ray could not run this job: {_first_line(exc)}")]
                yield from zip(chunk, outcomes, strict=True)

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors = []
        if self._started:
            self._ray.shutdown()

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<RayExecutor workers={self.num_workers} sandbox={self.sandbox}>"


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:500]
