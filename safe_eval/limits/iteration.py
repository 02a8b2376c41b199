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
- ``metered(x)`` / ``drain(x)``: **the one door for the interpreter's own C consumers** of a
  guest iterable (star unpacking in displays, calls and targets, ``**m``, slice assignment,
  ``match`` star patterns, ``+=``/``|=`` on host containers, the slots of those routines).
  An exact builtin container (iterating it runs no guest code and its length is known) passes
  as it is, charged one op per item and the memory of the copy up front when longer than
  ``SMALL``; anything else (host iterators, guest iterables, subclasses, views of unknown
  length) is iterated through a ``TickingIterator``: one op per item, and the budget's slow
  check every ``CHUNK`` items samples memory, so the copy is bounded as it grows. ``drain``
  returns the items as a new list; ``update_source`` is the same door for what ``dict.update``
  and ``|=`` read (a mapping's keys, or pairs). Sites that must keep CPython's semantics for a
  guest ``__setitem__`` or mapping decide *whether* to consume; *how* is always this. The bulk
  methods and the constructors of ``_DRAINING_CLASSES`` (``deque``, ``Counter``...) also pull a
  guest iterable through a ticking iterator (``_items_of``): its ``__iter__`` may hand C a host
  iterator.
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
import itertools
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
    "charge_items",
    "consume",
    "drain",
    "g_iter",
    "lazy",
    "lazy_adapter",
    "meter",
    "metered",
    "metered_constructor",
    "metered_function",
    "metered_method",
    "metered_result",
    "range_contains",
    "update_source",
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
        item = next(self._it)  # the end of the iteration is not an item: free
        b = self._b
        b.fuel -= 1
        if b.fuel < 0:
            b.refuel()
        return item

    def __length_hint__(self) -> int:
        return 0  # never let a consumer preallocate from a guest-chosen hint

    def __repr__(self) -> str:
        return f"<{type(self._it).__name__} object>"


TickingIterator.__name__ = TickingIterator.__qualname__ = "iterator"


class CallableIterator(TickingIterator):
    """``iter(f, sentinel)``: ticking like any, named as CPython names it for the guest."""

    __slots__ = ()


CallableIterator.__name__ = CallableIterator.__qualname__ = "callable_iterator"
# the iterators that already tick: never wrapped again
_TICKING: frozenset[type] = frozenset({TickingIterator, CallableIterator})


def _is_guest(tp: type) -> bool:
    return is_interpreter_type(tp)


def _host_iterator(x: Any) -> bool:
    tp = type(x)
    return tp not in _TICKING and hasattr(tp, "__next__") and not _is_guest(tp)


def metered_result(value: Any) -> Any:
    """What a guest function called by host code hands back to it: a host iterator ticks.

    Host C asks guest code for an iterator (``__iter__``, ``__reversed__``, a ``staticmethod``
    or lambda in their place) and then pulls every item itself, with no guest code per item:
    ``math.fsum(G())`` where ``G.__iter__`` returns ``iter(range(10**12))`` or
    ``itertools.repeat(0.0)``. Every consumer that receives the guest object itself (module
    functions, constructors of a guest subclass of ``tuple``, ``tuple.__new__``) would have to
    meter it; doing it at the one place guest results return to host code covers them all."""
    tp = type(value)
    if tp in _PLAIN or tp is TickingIterator or not hasattr(tp, "__next__") or _is_guest(tp):
        return value
    return TickingIterator(value)


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
            _price_copy(x, n)
        return x
    return meter(x)


# Bytes a copy of one element of these exact types allocates besides its list slot (range
# makes a new int per element; items views a new pair tuple; a str of non-ASCII text a new
# one-character string per element: ASCII ones are cached by CPython).
_ITEM_BYTES: dict[type, int] = {range: 32, type({}.items()): 64}
_SLOT_BYTES = 8


def _copy_bytes(x: Any, n: int) -> int:
    tp = type(x)
    extra = _ITEM_BYTES.get(tp, 0)
    if tp is str and not x.isascii():
        extra = 80
    return n * (_SLOT_BYTES + extra)


def metered(x: Any) -> Iterable[Any]:
    """``x`` as a host C consumer may pull items out of it (see the module docstring)."""
    tp = type(x)
    if tp is list or tp is tuple:
        if len(x) > SMALL:
            _price_copy(x, len(x))
        return x  # type: ignore[no-any-return]
    size = known_len(x)
    if size is not None:
        if size > SMALL:
            _price_copy(x, size)
        return x  # type: ignore[no-any-return]
    if tp in _TICKING:
        return x  # type: ignore[no-any-return]
    return TickingIterator(x)


def _price_copy(x: Any, n: int) -> None:
    charge_items(n, _copy_bytes(x, n))


def charge_items(n: int, nbytes: int) -> None:
    """Pay for a C copy of ``n`` items allocating ``nbytes``: the memory is checked before the
    copy, the items charged one op each (``metered``'s price, for a consumer that must hand
    C the container itself, such as ``{**m}`` of a dict subclass)."""
    b = current_or_default()
    b.check_alloc(nbytes)
    b.charge(n)


_DICT_ENTRY_BYTES = 40  # a dict entry (hash, key, value) and its index slot


def update_source(m: Any) -> Any:
    """What ``dict.update``/``|=`` may receive in place of ``m`` (``{**m}``, ``d |= m``), read
    as CPython's ``dict_merge`` reads it. A dict iterating with dict's own ``__iter__`` is
    copied by C from its table: priced up front on its length, passed as it is (no guest code
    runs). Any other mapping is read key by key (``keys()`` then ``m[k]``) and anything else
    is an iterable of pairs: both pulled through ``metered``."""
    if type(m) is dict or (isinstance(m, dict) and _dict_iteration(type(m))):
        n = dict.__len__(m)
        if n > SMALL:
            charge_items(n, _DICT_ENTRY_BYTES * n)
        return m
    if hasattr(type(m), "keys"):
        return _pairs(m)
    return metered(m)


def _pairs(m: Any) -> Iterator[tuple[Any, Any]]:
    for k in metered(m.keys()):
        yield k, m[k]


def _dict_iteration(tp: type) -> bool:
    """``tp`` (a dict subclass) iterates with ``dict.__iter__``, as CPython's fast path asks."""
    for klass in tp.__mro__:
        if "__iter__" in klass.__dict__:
            return klass is dict
    return False  # pragma: no cover (dict defines __iter__)


def drain(x: Any) -> list[Any]:
    """The items of guest iterable ``x`` as a new list, paid for (``metered``)."""
    return list(metered(x))


# Host classes whose constructor pulls every item out of its first argument in C.
_DRAINING_CLASSES: tuple[type, ...] = (collections.deque, collections.Counter, collections.OrderedDict)


def _items_of(x: Any) -> Any:
    """``consume(x)`` for a host routine known to iterate ``x`` whole (bulk methods, the
    constructors of ``_DRAINING_CLASSES``): a guest iterable is pulled through a ticking
    iterator too, since its ``__iter__`` may hand C a host iterator (``iter(range(10**12))``).
    A guest mapping stays itself: the routine reads it by ``keys()``, as CPython does."""
    if _is_guest(type(x)) and not hasattr(type(x), "keys") and hasattr(type(x), "__iter__"):
        return TickingIterator(x)
    return consume(x)


def lazy(x: Any) -> Any:
    """``x`` as the builtin iterator adapters (map, filter, zip, enumerate) may receive it."""
    tp = type(x)
    if tp in _TICKING or _is_guest(tp):
        return x
    n = known_len(x)
    if n is not None and n <= SMALL:
        return x
    return TickingIterator(x)


def g_iter(obj: Any, *sentinel: Any) -> Any:
    """``iter()``: the two-argument form calls ``obj`` until ``sentinel`` in C (``iter(int, 1)``
    never ends), so it ticks."""
    if sentinel:
        return CallableIterator(builtins.iter(obj, *sentinel))
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
        if lazy_at is not None:
            return cls(*[_lazy_arg(a) if lazy_at is _ALL or i in lazy_at else a for i, a in enumerate(args)],
                       **{k: _lazy_arg(v) if k in _LAZY_KEYWORDS else v for k, v in kwargs.items()})
        first = [_items_of(args[0])] if drains and args else []
        rest = [consume(a) for a in args[len(first):]]
        if keyed is not None and args:  # the items inserted into a hash table
            at = 1 if issubclass(cls, collections.defaultdict) else 0
            both = [*first, *rest]
            if at < len(both) and not hasattr(type(args[at]), "keys"):
                both[at] = keyed(both[at])
            first, rest = both[:len(first)], both[len(first):]
        return cls(*first, *rest, **{k: consume(v) for k, v in kwargs.items()})

    drains = issubclass(cls, _DRAINING_CLASSES)
    keyed = _table_price(cls, "__init__")
    lazy_at = _LAZY_ARGS.get(cls)
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
            items = [_items_of(a) for a in args]
            if keyed is not None and items:  # fromkeys: the keys go into a hash table
                items[0] = keyed(items[0])
            return fn(*items, **{k: consume(v) for k, v in kwargs.items()})

        keyed = _table_price(cls, name)

        call_cls.__name__ = call_cls.__qualname__ = name
        return call_cls
    method = getattr(cls, name)
    keyed = _table_price(cls, name)

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        items = [_items_of(a) for a in args]
        if keyed is not None:  # the items inserted into a hash table
            items = [a if hasattr(type(a), "keys") else keyed(a) for a in items]
        return method(self, *items, **{k: consume(v) for k, v in kwargs.items()})

    call.__name__ = call.__qualname__ = name
    return call


# The lazy iterator classes of ``itertools``: they only call ``iter()`` on the arguments at
# these positions and pull items one ``__next__`` at a time, so those arguments go in as the
# builtin adapters' do (``lazy``: a long or unsized input ticks per item taken), never charged
# whole up front as a consuming constructor's are: ``islice(range(10**9), 3)`` costs 3 items.
_ALL = frozenset({-1})
_LAZY_ARGS: dict[type, frozenset[int]] = {
    getattr(itertools, name): at for name, at in (
        ("islice", frozenset({0})), ("takewhile", frozenset({1})), ("dropwhile", frozenset({1})),
        ("filterfalse", frozenset({1})), ("starmap", frozenset({1})), ("accumulate", frozenset({0})),
        ("compress", frozenset({0, 1})), ("groupby", frozenset({0})), ("pairwise", frozenset({0})),
        ("batched", frozenset({0})), ("zip_longest", _ALL), ("chain", _ALL),
    ) if hasattr(itertools, name)
}
_LAZY_KEYWORDS = frozenset({"iterable", "data", "selectors"})


def _lazy_arg(x: Any) -> Any:
    """An argument at an iterable's position as ``lazy`` gives it; anything that is not
    iterable (a wrong argument) as it is, for CPython's own error."""
    return lazy(x) if hasattr(type(x), "__iter__") else x


def _table_price(cls: type, name: str) -> Callable[[Any], Any] | None:
    """The price of a bulk insert into a hash table (``tables``) for routine ``cls.name``, if
    it is one: Counter counts keys, the dict types insert pairs (``fromkeys``: keys)."""
    from safe_eval.limits import tables  # tables is built on this module

    if not issubclass(cls, dict) or name not in ("__init__", "update", "subtract", "fromkeys", "__ior__"):
        return None
    if issubclass(cls, collections.Counter) or name == "fromkeys":
        return tables.keyed_source
    return tables.keyed_pairs


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
