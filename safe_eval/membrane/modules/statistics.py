"""Curated ``statistics``: the documented functions, NormalDist and StatisticsError, as leaves
on plain data.

The host functions take numbers apart (``x.as_integer_ratio()``, ``float(x)``, ``x.__add__``
of what ``sum`` accumulates): given guest objects they would call guest methods from inside
host library code, on whatever those methods return. So every argument is first made plain
data here: an iterable is read into a list (iterating a guest iterable is a guest call) and
each item, like each scalar argument, must be an exact ``int``/``float``/``bool``/``Fraction``/
``Decimal`` (the median and mode functions also take ``str``/``bytes``; ``mode``/``multimode``
only count, so they take anything hashable). Anything else is CPython's own TypeError for a
type ``statistics`` cannot convert. Divergence: subclasses of the number types are refused.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from safe_eval.limits.iteration import drain
from safe_eval.membrane.modules._guarded_class import guarded

NAMES = ["mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low", "median_high",
         "median_grouped", "mode", "multimode", "quantiles", "pstdev", "pvariance", "stdev", "variance",
         "covariance", "correlation", "linear_regression", "StatisticsError"]

_NUMBERS: frozenset[type] = frozenset({int, float, bool, Fraction, Decimal})
_ORDERED: frozenset[type] = _NUMBERS | {str, bytes}
# which items each function accepts (None: anything, it only hashes and counts)
_ACCEPTS: dict[str, frozenset[type] | None] = {
    "median": _ORDERED, "median_low": _ORDERED, "median_high": _ORDERED, "mode": None, "multimode": None,
}
_OPTIONS: frozenset[type] = frozenset({str, type(None)})  # method='linear', mu=None ...


def _refuse(value: object) -> TypeError:
    return TypeError(f"can't convert type '{type(value).__name__}' to numerator/denominator")


def _plain(value: Any, accepts: frozenset[type] | None) -> Any:
    """``value`` as plain data: a scalar of an accepted type, or a list of them."""
    t = type(value)
    if t in _NUMBERS or t in _OPTIONS:
        return value
    if t is not list:
        try:
            # the metered door: one op per item, and no guest ``__len__`` sizes the list up front
            value = drain(value)
        except TypeError:
            raise _refuse(value) from None
    if accepts is not None:
        for item in value:
            if type(item) not in accepts:
                raise _refuse(item)
    return value


def _gate(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    accepts = _ACCEPTS.get(name, _NUMBERS)

    @functools.wraps(fn)
    def gated(*args: Any, **kwargs: Any) -> Any:
        return fn(*[_plain(a, accepts) for a in args], **{k: _plain(v, accepts) for k, v in kwargs.items()})

    return gated


def _check_normal_dist(mu: Any = 0.0, sigma: Any = 1.0) -> None:
    for value in (mu, sigma):
        if type(value) not in _NUMBERS:
            raise _refuse(value)


# What the guest may read on a NormalDist (deny by default: a name added by a later Python is
# refused until reviewed). ``samples``/``quantiles`` are priced (``normal_dist_guards``).
NORMAL_DIST_NAMES = ("mean", "median", "mode", "stdev", "variance", "cdf", "inv_cdf", "pdf", "overlap",
                     "zscore", "quantiles", "samples", "from_samples")


def build() -> dict[str, Any]:
    from safe_eval.limits.routines import ROUTINES, register_routine
    from safe_eval.limits.stdlib_routines import normal_dist_guards, quantiles_guard
    from safe_eval.membrane.attributes import register_guarded_methods
    from safe_eval.membrane.modules._hosttypes import allow

    register_guarded_methods(statistics.NormalDist, normal_dist_guards(statistics.NormalDist))
    allow(statistics.NormalDist, [n for n in NORMAL_DIST_NAMES if hasattr(statistics.NormalDist, n)])
    attrs: dict[str, Any] = {}
    for name in NAMES:
        value = getattr(statistics, name)
        attrs[name] = value if isinstance(value, type) else _gate(name, value)
    # n - 1 cut points for a guest n: the routine's one price (one object for every build)
    priced = ROUTINES.get(statistics.quantiles)
    if priced is None:
        priced = _gate("quantiles", quantiles_guard(statistics.quantiles))
        register_routine(statistics.quantiles, priced)
    attrs["quantiles"] = priced
    normal_dist = guarded(statistics.NormalDist, _check_normal_dist, ["from_samples"])
    from_samples = _gate("from_samples", statistics.NormalDist.from_samples)
    type.__setattr__(normal_dist, "from_samples", staticmethod(from_samples))  # our own stand-in
    attrs["NormalDist"] = normal_dist
    return attrs
