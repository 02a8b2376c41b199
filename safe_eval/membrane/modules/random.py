"""Curated ``random``: the module functions bound to a generator of this evaluation.

The host module's functions are bound methods of one process-wide generator: a guest
``random.seed(0)`` would change the host's random stream. Each evaluation gets its own
``Random`` instead (``PER_RUN``). Sizes the guest chooses (``getrandbits(10**10)``,
``randbytes``, ``choices(k=)``, ``sample(k=)``) are checked before the C call.
"""

from __future__ import annotations

import random
from typing import Any

from safe_eval.limits.indices import as_index
from safe_eval.membrane.modules._util import check_alloc

PER_RUN = True

METHODS = ["seed", "random", "uniform", "triangular", "randint", "randrange", "choice", "choices",
           "shuffle", "sample", "getrandbits", "randbytes", "gauss", "normalvariate",
           "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "betavariate",
           "paretovariate", "weibullvariate", "getstate", "setstate"]


class Random(random.Random):
    """``random.Random`` with the size-taking methods checked first."""

    def getrandbits(self, k: int, /) -> int:
        k = as_index(k)  # the size checked is the size used (a guest __index__ runs once)
        if k > 4096:
            check_alloc(k // 8)
        return super().getrandbits(k)

    def randbytes(self, n: int) -> bytes:
        n = as_index(n)
        check_alloc(n)
        return super().randbytes(n)

    def choices(self, population: Any, weights: Any = None, *, cum_weights: Any = None,
                k: int = 1) -> list[Any]:
        k = as_index(k)
        check_alloc(8 * k)
        return super().choices(population, weights, cum_weights=cum_weights, k=k)

    def sample(self, population: Any, k: int, *, counts: Any = None) -> list[Any]:
        k = as_index(k)
        check_alloc(8 * k)
        return super().sample(population, k, counts=counts)


def build() -> dict[str, Any]:
    gen = Random()
    attrs: dict[str, Any] = {name: getattr(gen, name) for name in METHODS}
    attrs["Random"] = Random
    return attrs
