"""asyncio's synchronisation primitives and ``as_completed`` for the interpreter's event loop.

``Event``, ``Lock``, ``Semaphore``, ``Queue`` (with ``QueueEmpty``/``QueueFull``) and
``as_completed``, with asyncio's documented behaviour: waiters are woken first come, first
served, and a newcomer queues behind them; ``async with`` works on ``Lock`` and ``Semaphore``.
Each wait is a ``Waiter`` the loop (``aio``) parks the task on, so a waiting task costs nothing
until it is woken and the virtual clock still advances for sleepers. A wait nobody will ever
end ends the run as asyncio would: "Event loop stopped before Future completed." (asyncio hangs
instead; our loop sees that no task can run).

Everything here is plain host code on the interpreter's own objects: it never calls a guest
object's methods (the awaitables given to ``as_completed`` become Tasks as in ``gather``). The
guest may construct these classes and catch the two exceptions (``typeview.allow_construction``);
their instances are interpreter types (``safe_eval.interpreter``), so the guest reads only their
public methods, never the ``_waiters`` the host code here walks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator, Iterator
from typing import Any

from safe_eval.interpreter.aio import Task, Waiter, _ensure_task, _running
from safe_eval.interpreter.identity import register_internal_type
from safe_eval.membrane.typeview import allow_construction

__all__ = ["Event", "Lock", "Queue", "QueueEmpty", "QueueFull", "Semaphore", "as_completed"]


@allow_construction
@register_internal_type
class QueueEmpty(Exception):
    """Raised by ``get_nowait`` on an empty queue."""


@allow_construction
@register_internal_type
class QueueFull(Exception):
    """Raised by ``put_nowait`` on a full queue."""


def register_internal_type_with(names: str) -> Any:
    """The public methods the guest may use on instances (everything else stays hidden)."""
    return lambda cls: register_internal_type(cls, names.split())


def _wait_in_line(line: deque[Waiter]) -> Generator[Any, Any, None]:
    """Park the current task at the end of ``line`` until woken; leave the line either way."""
    w = Waiter()
    line.append(w)
    try:
        yield from w.__await__()
    finally:
        if w in line:
            line.remove(w)


def _wake_first(line: deque[Waiter]) -> None:
    for w in line:
        if not w.done:
            w.wake()
            return


class _Awaitable:
    """An awaitable made from a generator function's result (what a host ``async def`` is)."""

    __slots__ = ("_gen",)

    def __init__(self, gen: Generator[Any, Any, Any]) -> None:
        self._gen = gen

    def __await__(self) -> Generator[Any, Any, Any]:
        return self._gen


register_internal_type(_Awaitable)


def _returning(value: Any) -> _Awaitable:
    def gen() -> Generator[Any, Any, Any]:
        return value
        yield  # a generator that returns at once

    return _Awaitable(gen())


@register_internal_type_with("is_set set clear wait")
@allow_construction
@register_internal_type
class Event:
    """``asyncio.Event``: ``wait()`` until ``set()``."""

    __slots__ = ("_flag", "_waiters")

    def __init__(self) -> None:
        self._flag = False
        self._waiters: deque[Waiter] = deque()

    def is_set(self) -> bool:
        return self._flag

    def set(self) -> None:
        if not self._flag:
            self._flag = True
            for w in self._waiters:
                w.wake()

    def clear(self) -> None:
        self._flag = False

    def wait(self) -> _Awaitable:
        return _Awaitable(self._wait())

    def _wait(self) -> Generator[Any, Any, bool]:
        if not self._flag:
            yield from _wait_in_line(self._waiters)
        return True

    def __repr__(self) -> str:
        return f"<asyncio.locks.Event object [{'set' if self._flag else 'unset'}]>"


@register_internal_type_with("locked acquire release")
@allow_construction
@register_internal_type
class Lock:
    """``asyncio.Lock``: ``async with lock:`` or ``await lock.acquire()`` / ``lock.release()``."""

    __slots__ = ("_locked", "_waiters")

    def __init__(self) -> None:
        self._locked = False
        self._waiters: deque[Waiter] = deque()

    def locked(self) -> bool:
        return self._locked

    def acquire(self) -> _Awaitable:
        return _Awaitable(self._acquire())

    def _acquire(self) -> Generator[Any, Any, bool]:
        if not self._locked and not self._waiters:
            self._locked = True
            return True
        try:
            yield from _wait_in_line(self._waiters)
        except BaseException:
            if not self._locked:  # woken, then cancelled: pass the turn on
                _wake_first(self._waiters)
            raise
        self._locked = True
        return True

    def release(self) -> None:
        if not self._locked:
            raise RuntimeError("Lock is not acquired.")
        self._locked = False
        _wake_first(self._waiters)

    def __aenter__(self) -> _Awaitable:
        return _Awaitable(self._enter())

    def _enter(self) -> Generator[Any, Any, None]:
        yield from self._acquire()

    def __aexit__(self, *exc: Any) -> _Awaitable:
        self.release()
        return _returning(None)

    def __repr__(self) -> str:
        return f"<asyncio.locks.Lock object [{'locked' if self._locked else 'unlocked'}]>"


@register_internal_type_with("locked acquire release")
@allow_construction
@register_internal_type
class Semaphore:
    """``asyncio.Semaphore(value)``: at most ``value`` holders at once."""

    __slots__ = ("_value", "_waiters")

    def __init__(self, value: int = 1) -> None:
        if not isinstance(value, int) or value < 0:
            raise ValueError("Semaphore initial value must be >= 0")
        self._value = value
        self._waiters: deque[Waiter] = deque()

    def locked(self) -> bool:
        return self._value == 0 or bool(self._waiters)  # a woken waiter still holds its place

    def acquire(self) -> _Awaitable:
        return _Awaitable(self._acquire())

    def _acquire(self) -> Generator[Any, Any, bool]:
        if not self.locked():
            self._value -= 1
            return True
        try:
            yield from _wait_in_line(self._waiters)  # woken by release: a unit is ours
        except BaseException:
            if self._value > 0:  # woken, then cancelled: pass the unit on
                _wake_first(self._waiters)
            raise
        self._value -= 1
        return True

    def release(self) -> None:
        self._value += 1
        _wake_first(self._waiters)

    def __aenter__(self) -> _Awaitable:
        return _Awaitable(self._enter())

    def _enter(self) -> Generator[Any, Any, None]:
        yield from self._acquire()

    def __aexit__(self, *exc: Any) -> _Awaitable:
        self.release()
        return _returning(None)


@register_internal_type_with("maxsize qsize empty full put_nowait get_nowait put get task_done join")
@allow_construction
@register_internal_type
class Queue:
    """``asyncio.Queue(maxsize=0)``: FIFO; ``get`` waits while empty, ``put`` while full."""

    __slots__ = ("_maxsize", "_items", "_getters", "_putters", "_unfinished", "_finished")

    def __init__(self, maxsize: int = 0) -> None:
        if not isinstance(maxsize, int):
            raise TypeError(f"'<=' not supported between instances of '{type(maxsize).__name__}' and 'int'")
        self._maxsize = maxsize
        self._items: deque[Any] = deque()
        self._getters: deque[Waiter] = deque()
        self._putters: deque[Waiter] = deque()
        self._unfinished = 0
        self._finished = Event()
        self._finished.set()

    @property
    def maxsize(self) -> int:
        return self._maxsize

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def full(self) -> bool:
        return 0 < self._maxsize <= len(self._items)

    def put_nowait(self, item: Any) -> None:
        if self.full():
            raise QueueFull
        self._items.append(item)
        self._unfinished += 1
        self._finished.clear()
        _wake_first(self._getters)

    def get_nowait(self) -> Any:
        if not self._items:
            raise QueueEmpty
        item = self._items.popleft()
        _wake_first(self._putters)
        return item

    def put(self, item: Any) -> _Awaitable:
        return _Awaitable(self._put(item))

    def _put(self, item: Any) -> Generator[Any, Any, None]:
        while self.full():
            yield from _wait_in_line(self._putters)
        self.put_nowait(item)

    def get(self) -> _Awaitable:
        return _Awaitable(self._get())

    def _get(self) -> Generator[Any, Any, Any]:
        while not self._items:
            yield from _wait_in_line(self._getters)
        return self.get_nowait()

    def task_done(self) -> None:
        if self._unfinished <= 0:
            raise ValueError("task_done() called too many times")
        self._unfinished -= 1
        if self._unfinished == 0:
            self._finished.set()

    def join(self) -> _Awaitable:
        return self._finished.wait()


def as_completed(aws: Any, *, timeout: float | None = None) -> Iterator[_Awaitable]:
    """Awaitables giving the results of ``aws`` in the order they finish."""
    if timeout is not None:
        raise TypeError("as_completed(timeout=...) is not supported: use wait_for on each")
    loop = _running()
    pending: list[Task] = []
    for aw in aws:
        task = _ensure_task(aw, loop)
        if task not in pending:
            pending.append(task)
    return iter([_Awaitable(_next_done(pending)) for _ in range(len(pending))])


def _next_done(pending: list[Task]) -> Generator[Any, Any, Any]:
    while True:
        done = [t for t in pending if t._done]
        if done:
            first = min(done, key=lambda t: t._finished_at)
            pending.remove(first)
            return first.result()
        w = Waiter()
        for t in pending:
            t._waiters.append(w)
        yield from w.__await__()
