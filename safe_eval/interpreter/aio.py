"""A small event loop for guest coroutines (the curated ``asyncio`` exports these names).

Deterministic and cooperative: tasks run in the order they become ready; ``sleep`` uses a
virtual clock (nothing really waits, so a guest cannot spend its time budget sleeping and
the result does not depend on the machine). Each task step is charged to the running budget.

A coroutine talks to the loop by what it yields up through ``await``: ``None`` (yield the
turn), a ``_Sleep`` (wake me later), a ``Task`` (wake me when it is done) or a ``Waiter`` (wake
me when someone calls its ``wake``: what the primitives of ``aio_sync`` wait on).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Generator
from typing import Any

from greenlet import GreenletExit

from safe_eval.context import current_context, outermost
from safe_eval.errors import SafeEvalError
from safe_eval.interpreter.functions import Function
from safe_eval.interpreter.generators import GuestCoroutine
from safe_eval.interpreter.identity import register_internal_type
from safe_eval.membrane.typeview import allow_construction

__all__ = [
    "CancelledError", "Event", "Lock", "Queue", "QueueEmpty", "QueueFull", "Semaphore", "Task",
    "TimeoutError", "Waiter", "as_completed", "create_task", "gather", "iscoroutine",
    "iscoroutinefunction", "run", "sleep", "wait_for",
]

TimeoutError = TimeoutError

_SEND, _THROW = 0, 1


_LOOPS = "asyncio-loops"


def _loops() -> list[_Loop]:
    """The guest event loops running in this run, innermost last: kept on the run's outermost
    context, never per thread, so runs interleaved on one thread (greenlets) never see each
    other's loop (a task one run schedules never runs under another run's policy)."""
    root = outermost()
    if root is None:
        return []
    loops: list[_Loop] = root.extra.setdefault(_LOOPS, [])
    return loops


@allow_construction  # guest code raises and catches it
@register_internal_type
class CancelledError(BaseException):
    """The task was cancelled (a BaseException, as in asyncio)."""


def _tick() -> None:
    ctx = current_context()
    if ctx is not None:
        b = ctx.budget
        b.fuel -= 1
        if b.fuel < 0:
            b.refuel()


@register_internal_type
class Task:
    """A scheduled coroutine. Await it for its result."""

    __slots__ = ("_coro", "_loop", "_done", "_result", "_exc", "_waiters", "_token", "_cancelling", "_name",
                 "_finished_at")

    def __init__(self, coro: Any, loop: _Loop, name: str | None = None) -> None:
        self._coro = coro
        self._loop = loop
        self._done = False
        self._result: Any = None
        self._exc: BaseException | None = None
        self._waiters: list[Task | Waiter] = []
        self._token = 0
        self._finished_at = 0  # the loop's sequence number when it finished (as_completed order)
        self._cancelling = False
        self._name = name or f"Task-{loop.next_id()}"
        loop.schedule(self, _SEND, None)

    # -- the public Task API ---------------------------------------------------------------
    def done(self) -> bool:
        return self._done

    def cancelled(self) -> bool:
        return self._done and isinstance(self._exc, CancelledError)

    def result(self) -> Any:
        if not self._done:
            raise RuntimeError("Result is not set.")
        if self._exc is not None:
            raise self._exc
        return self._result

    def exception(self) -> BaseException | None:
        if not self._done:
            raise RuntimeError("Exception is not set.")
        return self._exc

    def get_name(self) -> str:
        return self._name

    def cancel(self) -> bool:
        if self._done:
            return False
        self._cancelling = True
        self._loop.schedule(self, _THROW, CancelledError())
        return True

    def __await__(self) -> Generator[Any, Any, Any]:
        while not self._done:
            yield self
        return self.result()

    def __repr__(self) -> str:
        state = "done" if self._done else "pending"
        return f"<Task {state} name={self._name!r}>"

    # -- driving ---------------------------------------------------------------------------
    def _step(self, how: int, value: Any) -> None:
        _tick()
        try:
            req = self._coro.send(value) if how == _SEND else self._coro.throw(value)
        except StopIteration as e:
            self._finish(e.value, None)
        except (SafeEvalError, GreenletExit):
            raise
        except BaseException as e:
            self._finish(None, e)
        else:
            self._loop.handle(self, req)

    def _finish(self, result: Any, exc: BaseException | None) -> None:
        self._done, self._result, self._exc = True, result, exc
        self._finished_at = self._loop.next_id()
        for w in self._waiters:
            if isinstance(w, Waiter):
                w.wake()
            else:
                self._loop.schedule(w, _SEND, None)
        self._waiters.clear()


@register_internal_type
class Waiter:
    """A one-shot wake-up: a task awaiting it sleeps until ``wake()`` (from another task, or a
    Task finishing). A task cancelled meanwhile is not woken (its token moved on)."""

    __slots__ = ("done", "_loop", "_task", "_token")

    def __init__(self) -> None:
        self.done = False
        self._loop: _Loop | None = None
        self._task: Task | None = None
        self._token = 0

    def __await__(self) -> Generator[Any, Any, Any]:
        if not self.done:
            yield self

    def register(self, loop: _Loop, task: Task) -> None:
        if self.done:
            loop.schedule(task, _SEND, None)
        else:
            self._loop, self._task, self._token = loop, task, task._token

    def wake(self) -> None:
        if self.done:
            return
        self.done = True
        task, loop = self._task, self._loop
        if task is not None and loop is not None and task._token == self._token and not task._done:
            loop.schedule(task, _SEND, None)


class _Loop:
    def __init__(self) -> None:
        self.ready: deque[tuple[Task, int, Any, int]] = deque()
        self.timers: list[tuple[float, int, Task, Any, int]] = []
        self.clock = 0.0
        self.seq = 0
        self.tasks: list[Task] = []

    def next_id(self) -> int:
        self.seq += 1
        return self.seq

    def schedule(self, task: Task, how: int, value: Any) -> None:
        task._token += 1
        self.ready.append((task, how, value, task._token))
        if task not in self.tasks:
            self.tasks.append(task)

    def handle(self, task: Task, req: Any) -> None:
        task._token += 1
        if req is None:
            self.schedule(task, _SEND, None)
        elif isinstance(req, _Sleep):
            heapq.heappush(self.timers, (self.clock + max(req.delay, 0.0), self.next_id(), task, None,
                                         task._token))
        elif isinstance(req, _Deadline):
            req.task._waiters.append(task)
            heapq.heappush(self.timers, (self.clock + req.timeout, self.next_id(), task, req,
                                         task._token))
        elif isinstance(req, Waiter):
            req.register(self, task)
        elif isinstance(req, Task):
            if req._done:
                self.schedule(task, _SEND, None)
            else:
                req._waiters.append(task)
        else:
            self.schedule(task, _THROW, RuntimeError(f"Task got bad yield: {req!r}"))

    def run(self, main: Task) -> None:
        while not main._done:
            if self.ready:
                task, how, value, token = self.ready.popleft()
                if token != task._token or task._done:
                    continue
                task._step(how, value)
            elif self.timers:
                when, _, task, value, token = heapq.heappop(self.timers)
                self.clock = max(self.clock, when)
                if token == task._token and not task._done:
                    if isinstance(value, _Deadline):  # timed out: stop waiting for the task
                        if task in value.task._waiters:
                            value.task._waiters.remove(task)
                        value = _TIMED_OUT
                    task._token += 1
                    self.ready.append((task, _SEND, value, task._token))
            else:
                raise RuntimeError("Event loop stopped before Future completed.")

    def close(self) -> None:
        for t in self.tasks:
            if not t._done:
                close = getattr(t._coro, "close", None)
                if close is not None:
                    try:
                        close()
                    except (SafeEvalError, GreenletExit):
                        raise
                    except BaseException:  # a task that refuses to close is dropped
                        pass


_TIMED_OUT: Any = object()


def _running() -> _Loop:
    loops = _loops()
    if not loops:
        raise RuntimeError("no running event loop")
    return loops[-1]


def _ensure_task(aw: Any, loop: _Loop) -> Task:
    if isinstance(aw, Task):
        return aw
    if isinstance(aw, GuestCoroutine):
        return Task(aw, loop)
    m = getattr(type(aw), "__await__", None)
    if m is None:
        raise TypeError("An asyncio.Future, a coroutine or an awaitable is required, not "
                        + type(aw).__name__)
    return Task(m(aw), loop)


# -- the asyncio API -----------------------------------------------------------------------
def run(main: Any, *, debug: bool | None = None) -> Any:
    loops = _loops()
    if loops:
        raise RuntimeError("asyncio.run() cannot be called from a running event loop")
    if not isinstance(main, GuestCoroutine):
        raise ValueError(f"a coroutine was expected, got {main!r}")
    loop = _Loop()
    loops.append(loop)
    try:
        task = Task(main, loop)
        loop.run(task)
        return task.result()
    finally:
        loops.pop()
        loop.close()


@register_internal_type
class _Sleep:
    __slots__ = ("delay", "result")

    def __init__(self, delay: float, result: Any) -> None:
        self.delay, self.result = delay, result

    def __await__(self) -> Generator[Any, Any, Any]:
        yield (None if self.delay <= 0 else self)
        return self.result


def sleep(delay: float, result: Any = None) -> _Sleep:
    if not isinstance(delay, (int, float)):
        raise TypeError(f"'<=' not supported between instances of '{type(delay).__name__}' and 'int'")
    return _Sleep(float(delay), result)


def create_task(coro: Any, *, name: str | None = None) -> Task:
    if not isinstance(coro, GuestCoroutine):
        raise TypeError(f"a coroutine was expected, got {coro!r}")
    return Task(coro, _running(), name)


@register_internal_type
class _Gather:
    __slots__ = ("tasks", "return_exceptions")

    def __init__(self, tasks: list[Task], return_exceptions: bool) -> None:
        self.tasks, self.return_exceptions = tasks, return_exceptions

    def __await__(self) -> Generator[Any, Any, Any]:
        for t in self.tasks:
            while not t._done:
                yield t
                if not self.return_exceptions and t._exc is None:
                    for other in self.tasks:
                        if other._done and other._exc is not None:
                            raise other._exc
        out = []
        for t in self.tasks:
            if t._exc is not None:
                if not self.return_exceptions:
                    raise t._exc
                out.append(t._exc)
            else:
                out.append(t._result)
        return out


def gather(*aws: Any, return_exceptions: bool = False) -> _Gather:
    loop = _running()
    return _Gather([_ensure_task(a, loop) for a in aws], return_exceptions)


@register_internal_type
class _Deadline:
    __slots__ = ("task", "timeout")

    def __init__(self, task: Task, timeout: float) -> None:
        self.task, self.timeout = task, timeout


@register_internal_type
class _WaitFor:
    __slots__ = ("aw", "timeout")

    def __init__(self, aw: Any, timeout: float | None) -> None:
        self.aw, self.timeout = aw, timeout

    def __await__(self) -> Generator[Any, Any, Any]:
        task = _ensure_task(self.aw, _running())
        if self.timeout is None:
            return (yield from task.__await__())
        if not task._done:
            v = yield _Deadline(task, float(self.timeout))
            if v is _TIMED_OUT and not task._done:
                task.cancel()
                raise TimeoutError()
        return task.result()


def wait_for(aw: Any, timeout: float | None) -> _WaitFor:
    return _WaitFor(aw, timeout)


def iscoroutine(obj: Any) -> bool:
    return isinstance(obj, GuestCoroutine)


def iscoroutinefunction(fn: Any) -> bool:
    return isinstance(fn, Function) and fn.code.is_async and not fn.code.is_generator


# the synchronisation primitives and as_completed wait on Waiter; they live in their own module
# and are exported from here, which the curated ``asyncio`` reads
from safe_eval.interpreter.aio_sync import (  # noqa: E402
    Event,
    Lock,
    Queue,
    QueueEmpty,
    QueueFull,
    Semaphore,
    as_completed,
)
