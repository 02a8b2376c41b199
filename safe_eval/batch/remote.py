"""One job, run where a remote executor placed it (a Ray actor, a pool process, a Dask worker).

``run_remote`` is what those executors call: it runs the job in a warm slot of this process
(one per thread and sandbox; ``"off"`` evaluates here, in process) and answers with the
outcome as JSON text (``wire.encode_outcome``). The slots and their backends live as long as
this process.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Mapping
from typing import Any

from safe_eval.batch.jobs import Job
from safe_eval.batch.slots import Slot, spare_workers
from safe_eval.batch.wire import encode_outcome
from safe_eval.errors import InternalError, SafeEvalError
from safe_eval.limits.model import Limits
from safe_eval.policy.model import Policy
from safe_eval.sandbox import codec

__all__ = ["run_remote"]

_backends: dict[tuple[str, str], Any] = {}
_slots: list[Slot] = []  # every thread's, closed with the backends when this process exits
_lock = threading.Lock()
_local = threading.local()


def run_remote(code: str, env: Mapping[str, Any], tools: Mapping[str, Callable[..., Any]], policy: Policy,
               limits: Limits, sandbox: str, options: Mapping[str, Any]) -> str:
    """The outcome of one job, as JSON text."""
    try:
        job = Job(code, env, tools=tools)
        if sandbox == "off":
            return encode_outcome(_in_process(job, policy, limits))
        return encode_outcome(_slot(sandbox, options).run(job, policy, limits))
    except SafeEvalError as exc:  # the sandbox cannot start here
        return encode_outcome(exc)
    except Exception as exc:
        return encode_outcome(InternalError(f"safe-eval failed on this job: {type(exc).__name__}: {exc}"))


def _in_process(job: Job, policy: Policy, limits: Limits) -> Any:
    from safe_eval.api import Evaluator

    evaluators: dict[Policy, Evaluator] = _local.__dict__.setdefault("evaluators", {})
    ev = evaluators.get(policy)
    if ev is None:
        ev = evaluators[policy] = Evaluator(policy)
    try:
        # the values as the data a sandbox worker would get: a copy, so that a job mutating
        # a list it shares with other jobs' envs (threads of one process) changes only its own
        values = codec.decode(codec.encode(job.env))
        return ev.run(job.code, {**values, **job.tools}, limits=limits)
    except SafeEvalError as exc:
        return exc


def _slot(sandbox: str, options: Mapping[str, Any]) -> Slot:
    key = (sandbox, repr(sorted(options.items())))
    slots: dict[tuple[str, str], Slot] = _local.__dict__.setdefault("slots", {})
    slot = slots.get(key)
    if slot is None:
        slot = slots[key] = Slot(_backend(key, sandbox, options))
        with _lock:
            _slots.append(slot)
    return slot


def _backend(key: tuple[str, str], sandbox: str, options: Mapping[str, Any]) -> Any:
    from safe_eval.sandbox.selection import make_backend

    with _lock:
        backend = _backends.get(key)
        if backend is None:
            backend = _backends[key] = make_backend(sandbox, pool_size=spare_workers(sandbox, 1), **options)
    return backend


@atexit.register
def _close() -> None:
    with _lock:
        slots, backends = list(_slots), list(_backends.values())
        _slots.clear()
        _backends.clear()
    for slot in slots:
        slot.close()
    for backend in backends:
        backend.close()
