"""Curated ``itertools``.

Two hazards of host C iterators: an infinite or astronomically long one (``count``,
``cycle``, ``repeat``, the combinatoric ones) consumed by another C call (``list``, ``sum``)
never returns to the interpreter, and ``product``/``permutations``/``combinations`` first copy
their inputs into tuples and allocate index arrays (``repeat=10**9`` is gigabytes). So those
are wrapped in ``FuelIter`` (one operation per item, the budget can stop them) and priced
before the call by their routine's guard.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from safe_eval.limits.routines import ROUTINES as _PRICED
from safe_eval.membrane.modules._util import FuelIter, pick

PLAIN = ["accumulate", "chain", "compress", "dropwhile", "filterfalse", "groupby", "islice",
         "pairwise", "starmap", "takewhile", "tee", "zip_longest"]


def count(start: Any = 0, step: Any = 1) -> FuelIter:
    return FuelIter(itertools.count(start, step))


def cycle(*args: Any) -> FuelIter:
    if len(args) != 1:  # CPython's message for the C constructor
        raise TypeError(f"cycle expected 1 argument, got {len(args)}")
    return FuelIter(itertools.cycle(FuelIter(iter(args[0]))))


def repeat(obj: Any, times: Any = None) -> FuelIter:
    it = itertools.repeat(obj) if times is None else itertools.repeat(obj, times)
    return FuelIter(it)


# The combinatoric iterators: priced by their routine's one guard (``limits.routines``: the
# pools, ``repeat``/``r`` read once with ``__index__``), metered per item here.
def product(*iterables: Iterable[Any], repeat: Any = 1) -> FuelIter:
    return FuelIter(_PRICED[itertools.product](*iterables, repeat=repeat))


def permutations(iterable: Iterable[Any], r: Any = None) -> FuelIter:
    return FuelIter(_PRICED[itertools.permutations](iterable, r))


def combinations(iterable: Iterable[Any], r: Any) -> FuelIter:
    return FuelIter(_PRICED[itertools.combinations](iterable, r))


def combinations_with_replacement(iterable: Iterable[Any], r: Any) -> FuelIter:
    return FuelIter(_PRICED[itertools.combinations_with_replacement](iterable, r))


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    # iterator objects: nothing public but ``chain.from_iterable``
    allow_all([c for c in (getattr(itertools, n, None) for n in PLAIN) if isinstance(c, type)]
              + [type(itertools.tee([])[0]), type(next(itertools.groupby("a"))[1])])
    attrs = pick(itertools, [n for n in PLAIN if hasattr(itertools, n)])
    attrs.update(count=count, cycle=cycle, repeat=repeat, product=product, permutations=permutations,
                 combinations=combinations, combinations_with_replacement=combinations_with_replacement)
    return attrs
