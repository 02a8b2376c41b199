"""Curated ``fractions``: Fraction (instances are plain data). The constructor is guarded:
a decimal string's exponent (``'1e1000000000'``) becomes ``10**exponent`` inside one C call,
so exponents beyond ``MAX_EXPONENT`` are refused before it runs."""

from __future__ import annotations

import fractions
import re
from typing import Any

from safe_eval.membrane.modules._guarded_class import guarded

MAX_EXPONENT = 100_000
_EXPONENT = re.compile(r"[eE]\s*([-+]?\d+)")


def check_exponent(value: Any, limit: int = MAX_EXPONENT) -> None:
    """Refuse a numeric string whose exponent is beyond ``limit`` (linear scan, no conversion)."""
    if isinstance(value, str):
        m = _EXPONENT.search(value)
        if m is not None and (len(m.group(1)) > 12 or abs(int(m.group(1))) > limit):
            raise ValueError(f"exponent larger than {limit} is not supported in safe-eval")


def _check(numerator: Any = 0, denominator: Any = None, **kwargs: Any) -> None:
    from safe_eval.limits.numbers import check_operands, check_to_int

    check_exponent(numerator)
    check_to_int(numerator)  # Fraction(Decimal('1E+999999')): an exact conversion to ints
    if denominator is not None:
        # normalising numerator/denominator runs a quadratic gcd on the two terms
        check_operands(fractions.Fraction(numerator) if type(numerator) is int else numerator, denominator)


def build() -> dict[str, Any]:
    return {"Fraction": guarded(fractions.Fraction, _check, ["from_float", "from_decimal"])}
