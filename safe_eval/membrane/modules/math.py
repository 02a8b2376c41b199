"""Curated ``math``: every public function and constant, with size guards on the functions
whose result can be huge (a C call cannot be interrupted once started)."""

from __future__ import annotations

import math
from typing import Any

from safe_eval.membrane.modules._util import charge, check_alloc

PUBLIC = [n for n in dir(math) if not n.startswith("_")]
# functions of numbers only (no iterable argument): left unmetered for speed (see _metering.py)
SCALAR_ONLY = frozenset(PUBLIC) - {"fsum", "prod", "dist", "gcd", "lcm", "hypot", "sumprod"}


def _factorial_bits(n: int) -> int:
    # log2(n!) <= n * log2(n) + 1
    return int(n * math.log2(n)) + 1 if n > 1 else 1


def factorial(n: Any, /) -> int:
    if isinstance(n, int) and n > 1000:
        bits = _factorial_bits(n)
        check_alloc(bits // 8)
        charge(bits // 64)
    return math.factorial(n)


def comb(n: Any, k: Any, /) -> int:
    if isinstance(n, int) and isinstance(k, int) and n > 1000 and 0 <= k <= n:
        bits = min(n, int(min(k, n - k) * math.log2(max(n, 2))) + 1)
        check_alloc(bits // 8)
        charge(bits // 64)
    return math.comb(n, k)


def perm(n: Any, k: Any = None, /) -> int:
    if isinstance(n, int) and n > 1000:
        kk = n if k is None else k
        if isinstance(kk, int) and 0 <= kk <= n:
            bits = int(kk * math.log2(n)) + 1
            check_alloc(bits // 8)
            charge(bits // 64)
    return math.perm(n, k)


def prod(iterable: Any, /, *, start: Any = 1) -> Any:
    items = list(iterable)
    bits = sum(x.bit_length() for x in items if type(x) is int)
    if bits > 8192:
        check_alloc(bits // 8)
        charge(bits // 64)
    return math.prod(items, start=start)


def build() -> dict[str, Any]:
    attrs: dict[str, Any] = {name: getattr(math, name) for name in PUBLIC}
    attrs.update(factorial=factorial, comb=comb, perm=perm, prod=prod)
    return attrs
