"""Metering host C loops over guest data.

A host C function that iterates (``collections.deque(it, maxlen=0)``, ``math.fsum``,
``filter``'s search for the next match, ``Counter``'s counting loop) runs no guest code and no
Python bytecode per element, so neither the interpreter's op counter nor the watchdog can stop
it: ``deque(range(10**18), maxlen=0)`` or ``next(filter(None, iter(int, 1)))`` would run for
ever. The rule implemented here: every iteration a host C loop does over data the guest
supplied is paid for, per element or up front.

- ``TickingIterator(it)``: an iterator charging one op per element to the budget running when
  it was made (a budget outlives its evaluation exhausted or past its deadline, so an iterator
  kept in an env and drained later still stops).
- ``meter(x)``: what a *lazy or random-access* host callable receives in place of ``x``: host
  iterators become ticking iterators; a ``range`` longer than ``SMALL`` becomes a
  ``MeteredRange`` (still a Sequence: ``random.sample``/``bisect`` keep working, but iterating
  it or a non-int ``in`` search ticks). Materialised containers pass unchanged: their size is
  bounded by the memory limit and callers such as ``heapq.heappush`` must get the real list.
- ``consume(x)``: what a host callable that *consumes* ``x`` whole receives (constructors,
  ``extend``/``update`` methods): a sized builtin container is charged its length up front
  (as ``list(x)`` is), anything else from ``meter``.
- ``lazy(x)``: what the builtin C iterator adapters (``map``, ``filter``, ``zip``,
  ``enumerate``) receive: any input longer than ``SMALL`` or unsized is iterated through a
  ticking iterator (they only ever call ``iter()`` on it, so the wrapper is invisible).
- ``metered_function(fn)``, ``metered_constructor(cls)``, ``metered_method(cls, name)``: the
  wrappers the curated module wrapper and the builtins apply to every host callable.

Guest-made iterators (generators, classes with ``__next__``) run guest code per element and
are left alone.
"""

from __future__ import annotations

import builtins
import collections.abc
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from safe_eval.interpreter.identity import is_interpreter_type
from safe_eval.limits.budget import Budget, current_or_default
from safe_eval.limits.estimates import known_len

__all__ = [
    "SMALL",
    "MeteredRange",
    "TickingIterator",
    "consume",
    "g_iter",
    "lazy",
    "lazy_adapter",
    "meter",
    "metered_constructor",
    "metered_function",
    "metered_method",
    "range_contains",
]

# Inputs up to this many elements pass unwrapped: a C loop over them is short.
SMALL = 1 << 12

# Values passed through unchanged (no iteration hazard or bounded by the memory limit).
_PLAIN: frozenset[type] = frozenset(
    {int, float, complex, bool, str, bytes, bytearray, type(None), list, tuple, dict, set, frozenset}
)


class TickingIterator:
    """Iterate ``iterable`` charging one op per element (see the module docstring)."""

    __slots__ = ("_it", "_b")

    def __init__(self, iterable: Iterable[Any], budget: Budget | None = None) -> None:
        self._it = builtins.iter(iterable)
        self._b = budget or current_or_default()

    def __iter__(self) -> TickingIterator:
        return self

    def __next__(self) -> Any:
        b = self._b
        b.fuel -= 1
        if b.fuel < 0:
            b.refuel()
        return next(self._it)

    def __length_hint__(self) -> int:
        return 0  # never let a consumer preallocate from a guest-chosen hint

    def __repr__(self) -> str:
        return f"<{type(self._it).__name__} object>"


TickingIterator.__name__ = TickingIterator.__qualname__ = "iterator"


def _is_guest(tp: type) -> bool:
    return is_interpreter_type(tp)


def _host_iterator(x: Any) -> bool:
    tp = type(x)
    return tp is not TickingIterator and hasattr(tp, "__next__") and not _is_guest(tp)


def range_contains(r: range, item: Any) -> bool:
    """``item in r``: ints are answered in O(1) by ``range``; anything else makes CPython scan
    the whole range in C (``0.5 in range(10**18)``), so that scan ticks."""
    if type(item) is int or type(item) is bool:
        return item in r
    for x in TickingIterator(r):
        if x is item or x == item:
            return True
    return False


class MeteredRange(collections.abc.Sequence):  # type: ignore[type-arg]
    """A long ``range`` as a host callable sees it: same length and items, ticking iteration."""

    __slots__ = ("_r", "_b")

    def __init__(self, r: range, budget: Budget | None = None) -> None:
        self._r = r
        self._b = budget or current_or_default()

    def __len__(self) -> int:
        return len(self._r)

    def __getitem__(self, index: Any) -> Any:
        return self._r[index]

    def __iter__(self) -> Iterator[Any]:
        return TickingIterator(self._r, self._b)

    def __reversed__(self) -> Iterator[Any]:
        return TickingIterator(reversed(self._r), self._b)

    def __contains__(self, item: Any) -> bool:
        return range_contains(self._r, item)

    def index(self, value: Any, start: int = 0, stop: Any = None) -> int:
        if (type(value) is int or type(value) is bool) and start == 0 and stop is None:
            return self._r.index(value)
        return super().index(value, start, len(self) if stop is None else stop)

    def count(self, value: Any) -> int:
        if type(value) is int or type(value) is bool:
            return self._r.count(value)
        return super().count(value)

    def __eq__(self, other: Any) -> bool:
        return self._r == (other._r if type(other) is MeteredRange else other)

    def __hash__(self) -> int:
        return hash(self._r)

    def __repr__(self) -> str:
        return repr(self._r)


MeteredRange.__name__ = MeteredRange.__qualname__ = "range"


def meter(x: Any) -> Any:
    """``x`` as a lazy or random-access host callable may receive it (see the module docstring)."""
    tp = type(x)
    if tp in _PLAIN:
        return x
    if tp is range:
        n = known_len(x)
        return x if n is not None and n <= SMALL else MeteredRange(x)
    if _host_iterator(x):
        return TickingIterator(x)
    return x


def consume(x: Any) -> Any:
    """``x`` as a host callable that consumes it whole may receive it."""
    n = known_len(x)
    if n is not None:
        if n > SMALL:
            current_or_default().charge(n)
        return x
    return meter(x)


def lazy(x: Any) -> Any:
    """``x`` as the builtin iterator adapters (map, filter, zip, enumerate) may receive it."""
    tp = type(x)
    if tp is TickingIterator or _is_guest(tp):
        return x
    n = known_len(x)
    if n is not None and n <= SMALL:
        return x
    return TickingIterator(x)


def g_iter(obj: Any, *sentinel: Any) -> Any:
    """``iter()``: the two-argument form calls ``obj`` until ``sentinel`` in C (``iter(int, 1)``
    never ends), so it ticks."""
    if sentinel:
        return TickingIterator(builtins.iter(obj, *sentinel))
    return builtins.iter(obj)


def _all_plain(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    for a in args:
        if type(a) not in _PLAIN:
            return False
    if kwargs:
        for v in kwargs.values():
            if type(v) not in _PLAIN:
                return False
    return True


def metered_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with every argument passed through ``meter``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        if _all_plain(args, kwargs):
            return fn(*args, **kwargs)
        return fn(*[meter(a) for a in args], **{k: meter(v) for k, v in kwargs.items()})

    # name and doc only: no ``__wrapped__`` (the raw host callable) and our own __module__
    call.__name__ = getattr(fn, "__name__", "function")
    call.__qualname__ = getattr(fn, "__qualname__", call.__name__)
    call.__doc__ = getattr(fn, "__doc__", None)
    return call


def metered_constructor(cls: type) -> Callable[..., Any]:
    """Calling host class ``cls`` (``deque(it)``, ``Counter(it)``): arguments it consumes."""

    def construct(*args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            return cls()
        return cls(*[consume(a) for a in args], **{k: consume(v) for k, v in kwargs.items()})

    construct.__name__ = construct.__qualname__ = cls.__name__
    construct.__doc__ = cls.__doc__
    return construct


def metered_method(cls: type, name: str) -> Callable[..., Any]:
    """Unbound ``cls.name`` (``deque.extend``, ``Counter.update``) consuming its arguments,
    with the unbound-method calling convention ``fn(self, *args, **kwargs)`` (``fn(cls_or_self,
    ...)`` for a classmethod such as ``OrderedDict.fromkeys``)."""
    raw = cls.__dict__.get(name)
    if isinstance(raw, classmethod | types.ClassMethodDescriptorType):

        def call_cls(owner: Any, *args: Any, **kwargs: Any) -> Any:
            target = owner if isinstance(owner, type) else type(owner)
            fn = getattr(target, name)
            return fn(*[consume(a) for a in args], **{k: consume(v) for k, v in kwargs.items()})

        call_cls.__name__ = call_cls.__qualname__ = name
        return call_cls
    method = getattr(cls, name)

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return method(self, *[consume(a) for a in args], **{k: consume(v) for k, v in kwargs.items()})

    call.__name__ = call.__qualname__ = name
    return call


def lazy_adapter(cls: type) -> Callable[..., Any]:
    """``map``/``filter``/``zip``/``enumerate`` over ticking inputs (the result is the real type)."""

    def construct(*args: Any, **kwargs: Any) -> Any:
        if cls is map or cls is filter:
            if len(args) < 2:
                return cls(*args, **kwargs)  # CPython's own error
            return cls(args[0], *[lazy(a) for a in args[1:]], **kwargs)
        if args:
            if cls is enumerate:
                return cls(lazy(args[0]), *args[1:], **kwargs)
            return cls(*[lazy(a) for a in args], **kwargs)
        if "iterable" in kwargs:  # enumerate(iterable=...)
            kwargs = {**kwargs, "iterable": lazy(kwargs["iterable"])}
        return cls(*args, **kwargs)

    construct.__name__ = construct.__qualname__ = cls.__name__
    construct.__doc__ = cls.__doc__
    return construct
