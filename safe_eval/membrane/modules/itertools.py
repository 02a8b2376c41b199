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

PLAIN = ["accumulate", "chain", "compress", "dropwhile", "filterfalse", "groupby", "islice",
         "pairwise", "starmap", "takewhile", "tee", "zip_longest"]

_REF = 8  # bytes per tuple slot


def _materialised(iterable: Any) -> Any:
    """A re-iterable pool whose size we know (sized inputs are kept as they are)."""
    if hasattr(type(iterable), "__len__"):
        return iterable
    return tuple(FuelIter(iter(iterable)))


def _size(pool: Any) -> int:
    try:
        return len(pool)
    except (TypeError, OverflowError):
        return 1 << 62


def count(start: Any = 0, step: Any = 1) -> FuelIter:
    return FuelIter(itertools.count(start, step))


def cycle(iterable: Iterable[Any], /) -> FuelIter:
    return FuelIter(itertools.cycle(FuelIter(iter(iterable))))


def repeat(obj: Any, times: Any = None) -> FuelIter:
    it = itertools.repeat(obj) if times is None else itertools.repeat(obj, times)
    return FuelIter(it)


def product(*iterables: Iterable[Any], repeat: int = 1) -> FuelIter:
    pools = [_materialised(it) for it in iterables]
    if isinstance(repeat, int):
        check_alloc(_REF * sum(_size(p) for p in pools) * max(repeat, 0))
    return FuelIter(itertools.product(*pools, repeat=repeat))


def permutations(iterable: Iterable[Any], r: Any = None) -> FuelIter:
    pool = _materialised(iterable)
    check_alloc(_REF * 3 * _size(pool))
    return FuelIter(itertools.permutations(pool, r))


def combinations(iterable: Iterable[Any], r: int) -> FuelIter:
    pool = _materialised(iterable)
    check_alloc(_REF * 2 * _size(pool))
    return FuelIter(itertools.combinations(pool, r))


def combinations_with_replacement(iterable: Iterable[Any], r: int) -> FuelIter:
    pool = _materialised(iterable)
    check_alloc(_REF * 2 * _size(pool))
    return FuelIter(itertools.combinations_with_replacement(pool, r))


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    # iterator objects: nothing public but ``chain.from_iterable``
    allow_all([c for c in (getattr(itertools, n, None) for n in PLAIN) if isinstance(c, type)]
              + [type(itertools.tee([])[0]), type(next(itertools.groupby("a"))[1])])
    attrs = pick(itertools, [n for n in PLAIN if hasattr(itertools, n)])
    attrs.update(count=count, cycle=cycle, repeat=repeat, product=product, permutations=permutations,
                 combinations=combinations, combinations_with_replacement=combinations_with_replacement)
    return attrs
