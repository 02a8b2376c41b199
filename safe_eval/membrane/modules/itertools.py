"""Curated ``itertools``.

Two hazards of host C iterators: an infinite or astronomically long one (``count``,
``cycle``, ``repeat``, the combinatoric ones) consumed by another C call (``list``, ``sum``)
never returns to the interpreter, and ``product``/``permutations``/``combinations`` first copy
their inputs into tuples and allocate index arrays (``repeat=10**9`` is gigabytes). The
infinite ones are wrapped here in ``FuelIter`` (one operation per item, the budget can stop
them); the combinatoric ones and ``tee`` are the limits package's priced guards
(``GUARDED_MODULE_ATTRS``, which replace the plain ones), metered per item like every host
callable (``_metering``).
"""

from __future__ import annotations

import itertools
from typing import Any

from safe_eval.membrane.modules._util import FuelIter, pick

PLAIN = ["accumulate", "chain", "compress", "dropwhile", "filterfalse", "groupby", "islice",
         "pairwise", "starmap", "takewhile", "tee", "zip_longest"]
# the limits package's priced guards take these names (and ``tee``'s) in ``_merge_guards``
PRICED = ["product", "permutations", "combinations", "combinations_with_replacement"]


def count(start: Any = 0, step: Any = 1) -> FuelIter:
    return FuelIter(itertools.count(start, step))


def cycle(*args: Any) -> FuelIter:
    if len(args) != 1:  # CPython's message for the C constructor
        raise TypeError(f"cycle expected 1 argument, got {len(args)}")
    return FuelIter(itertools.cycle(FuelIter(iter(args[0]))))


def repeat(obj: Any, times: Any = None) -> FuelIter:
    it = itertools.repeat(obj) if times is None else itertools.repeat(obj, times)
    return FuelIter(it)


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    # iterator objects: nothing public but ``chain.from_iterable``
    allow_all([c for c in (getattr(itertools, n, None) for n in PLAIN) if isinstance(c, type)]
              + [type(itertools.tee([])[0]), type(next(itertools.groupby("a"))[1])])
    attrs = pick(itertools, [n for n in PLAIN if hasattr(itertools, n)])
    attrs.update(count=count, cycle=cycle, repeat=repeat)
    attrs.update(pick(itertools, PRICED))
    return attrs
