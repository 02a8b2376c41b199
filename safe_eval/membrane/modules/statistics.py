"""Curated ``statistics``: the documented functions, NormalDist and StatisticsError."""

from __future__ import annotations

import statistics
from typing import Any

from safe_eval.membrane.modules._util import pick

NAMES = ["mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low", "median_high",
         "median_grouped", "mode", "multimode", "quantiles", "pstdev", "pvariance", "stdev", "variance",
         "covariance", "correlation", "linear_regression", "NormalDist", "StatisticsError"]


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    allow_all([statistics.NormalDist])
    return pick(statistics, [n for n in NAMES if hasattr(statistics, n)])
