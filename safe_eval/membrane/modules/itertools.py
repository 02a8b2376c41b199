"""Curated ``itertools``.

Two hazards of host C iterators: an infinite or astronomically long one (``count``,
``cycle``, ``repeat``, the combinatoric ones) consumed by another C call (``list``, ``sum``)
never returns to the interpreter, and ``product``/``permutations``/``combinations`` first copy
their inputs into tuples (``repeat=10**9`` is gigabytes). So those are wrapped in
``FuelIter`` (one operation per item, the budget can stop them) and their pool sizes are
checked before the call.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from safe_eval.membrane.modules._util import FuelIter, check_alloc, pick
from safe_eval.membrane.snapshot import snapshot_index, snapshot_items

PLAIN = ["accumulate", "chain", "compress", "dropwhile", "filterfalse", "groupby", "islice",
         "pairwise", "starmap", "takewhile", "tee", "zip_longest"]

_REF = 8  # bytes per tuple slot


def _materialised(iterable: Any) -> list[Any]:
    """The pool as an exact list, read once (the C function would make a tuple of it anyway):
    its size is checked on the very items the C function then gets, never re-read through a
    guest ``__len__``/``__iter__``."""
    return snapshot_items(iterable)


def _size(pool: list[Any]) -> int:
    return len(pool)


def _count(r: Any) -> Any:
    return None if r is None else snapshot_index(r)


def count(start: Any = 0, step: Any = 1) -> FuelIter:
    return FuelIter(itertools.count(start, step))


def cycle(iterable: Iterable[Any], /) -> FuelIter:
    return FuelIter(itertools.cycle(FuelIter(iter(iterable))))


def repeat(obj: Any, times: Any = None) -> FuelIter:
    it = itertools.repeat(obj) if times is None else itertools.repeat(obj, times)
    return FuelIter(it)


def product(*iterables: Iterable[Any], repeat: int = 1) -> FuelIter:
    pools = [_materialised(it) for it in iterables]
    repeat = snapshot_index(repeat)
    # CPython repeats the pools tuple and keeps an index per slot: 2 * len(pools) * repeat
    # slots even when every pool is empty, plus the items repeated
    check_alloc(_REF * max(repeat, 0) * (2 * len(pools) + sum(_size(p) for p in pools)))
    return FuelIter(itertools.product(*pools, repeat=repeat))


def permutations(iterable: Iterable[Any], r: Any = None) -> FuelIter:
    pool = _materialised(iterable)
    check_alloc(_REF * 3 * _size(pool))
    return FuelIter(itertools.permutations(pool, _count(r)))


def combinations(iterable: Iterable[Any], r: int) -> FuelIter:
    pool = _materialised(iterable)
    check_alloc(_REF * 2 * _size(pool))
    return FuelIter(itertools.combinations(pool, snapshot_index(r)))


def combinations_with_replacement(iterable: Iterable[Any], r: int) -> FuelIter:
    pool = _materialised(iterable)
    check_alloc(_REF * 2 * _size(pool))
    return FuelIter(itertools.combinations_with_replacement(pool, snapshot_index(r)))


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    # iterator objects: nothing public but ``chain.from_iterable``
    allow_all([c for c in (getattr(itertools, n, None) for n in PLAIN) if isinstance(c, type)]
              + [type(itertools.tee([])[0]), type(next(itertools.groupby("a"))[1])])
    attrs = pick(itertools, [n for n in PLAIN if hasattr(itertools, n)])
    attrs.update(count=count, cycle=cycle, repeat=repeat, product=product, permutations=permutations,
                 combinations=combinations, combinations_with_replacement=combinations_with_replacement)
    return attrs
