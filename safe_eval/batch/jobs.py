"""What a batch runs: ``Job`` (code, env, tools, limits, id) and the outcome of one.

A job is checked when it is made, so a malformed batch fails before anything runs (a host
mistake is a ``TypeError``, as in ``safe_eval``); everything that happens once a job runs is
its outcome, never an exception that stops the batch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Union

from safe_eval._record import Frozen, Record
from safe_eval.api import LimitsLike, Result
from safe_eval.errors import SafeEvalError
from safe_eval.limits.model import Limits

__all__ = ["Job", "JobLike", "Outcome", "as_job"]

# what one job gives: the Result a single evaluation returns, or the error it raises
Outcome = Union[Result, SafeEvalError]


class Job(Frozen, Record):
    """One program of a batch. ``env`` holds plain values (they cross to the worker as data);
    ``tools`` are host callables the guest may call (they run in the host, decided by the
    policy); ``limits`` override the batch's limits for this job only; ``id`` names the job
    in progress reports and JSON lines (default: its index)."""

    __slots__ = ("code", "env", "tools", "limits", "id")
    _fields = __slots__
    __match_args__ = ("code", "env", "tools", "limits", "id")
    __hash__ = None  # type: ignore[assignment]  # it holds dicts

    code: str
    env: Mapping[str, Any]
    tools: Mapping[str, Callable[..., Any]]
    limits: Limits | Mapping[str, Any] | None
    id: Any

    def __init__(self, code: str | bytes, env: Mapping[str, Any] | None = None, *,
                 tools: Mapping[str, Callable[..., Any]] | None = None, limits: LimitsLike = None,
                 id: Any = None) -> None:
        if isinstance(code, bytes):
            code = code.decode("utf-8")
        if not isinstance(code, str):
            raise TypeError(f"a job's code must be str or bytes, not {type(code).__name__}")
        env = {} if env is None else env
        tools = {} if tools is None else tools
        for what, mapping in (("env", env), ("tools", tools)):
            if not isinstance(mapping, Mapping):
                raise TypeError(f"a job's {what} must be a mapping, not {type(mapping).__name__}")
            for key in mapping:
                if type(key) is not str:
                    raise TypeError(f"a job's {what} keys must be str, not {type(key).__name__}")
        for name, tool in tools.items():
            if not callable(tool):
                raise TypeError(f"tool {name!r} is not callable")
        if limits is not None and not isinstance(limits, (Limits, Mapping)):
            raise TypeError(f"a job's limits must be a Limits or a dict, not {type(limits).__name__}")
        setattr_ = object.__setattr__
        setattr_(self, "code", code)
        setattr_(self, "env", dict(env))
        setattr_(self, "tools", dict(tools))
        setattr_(self, "limits", limits)
        setattr_(self, "id", id)

    def environment(self) -> dict[str, Any]:
        """What the evaluation sees: the values, then the tools."""
        return {**self.env, **self.tools}


JobLike = Union[Job, str, tuple[Any, ...]]


def as_job(item: JobLike, index: int) -> Job:
    """A ``Job`` from a job, a code string, or a ``(code, env)`` pair; its id defaults to its
    index in the batch."""
    if isinstance(item, Job):
        job = item
    elif isinstance(item, (str, bytes)):
        job = Job(item)
    elif isinstance(item, tuple) and len(item) == 2:
        job = Job(item[0], item[1])
    else:
        raise TypeError(f"job {index}: expected a Job, a code string or a (code, env) pair, "
                        f"not {type(item).__name__}")
    if job.id is None:
        job = Job(job.code, job.env, tools=job.tools, limits=job.limits, id=index)
    return job
