"""Cost checks for exact non-int numbers: ``fractions.Fraction`` and ``decimal.Decimal``.

``Fraction`` arithmetic is Python code around single C big-int calls the watchdog cannot cut
short: ``Fraction(10) ** 10**7`` is one ``int ** int`` of 33 million bits, and ``+ - * /`` on
fractions with million-bit terms run a quadratic ``math.gcd`` (measured: ~1.2 s at 10**6 bits,
CPython 3.11). ``Decimal`` arithmetic is rounded to the context precision (capped by the
curated ``decimal`` module), but turning a Decimal into an exact int (``int(d)``,
``as_integer_ratio()``, ``Fraction(d)``) or an int into a Decimal is a quadratic base
conversion (``int(Decimal(10) ** 999999)``: ~25 s).

``check_operands(a, b, pow_=False)`` estimates the C work of one binary operation between
these types (and ints) and charges it with ``Budget.check_work`` (refused with ``TimeLimit``
when it would outlast the time left, else charged as ops, so a large enough estimate ends in
``OpLimit``); ``check_alloc`` bounds the result's size for powers. ``check_to_int(x)`` does the
same for an exact conversion to int. Operands of every other type cost nothing here.
"""

from __future__ import annotations

import sys
from typing import Any

from safe_eval.limits.budget import current_or_default
from safe_eval.limits.estimates import int_bytes, int_mul_ns, int_pow_bits, int_str_ns

__all__ = [
    "check_decimal_pow_mod",
    "check_decimal_work",
    "check_operands",
    "check_to_int",
    "decimal_digits",
    "exact_bits",
    "gcd_ns",
    "integral_exponent",
]


class _Absent:
    """Stands for Fraction/Decimal while their module is not loaded: nothing is an instance."""


def _fraction() -> Any:
    # Looked up, not imported (fractions and decimal cost about 4 ms of a cold start): a value
    # can only be a Fraction once ``fractions`` is in sys.modules, and likewise for Decimal.
    module = sys.modules.get("fractions")
    return getattr(module, "Fraction", _Absent) if module is not None else _Absent


def _decimal() -> Any:
    module = sys.modules.get("decimal")
    return getattr(module, "Decimal", _Absent) if module is not None else _Absent


# int, float, complex, bool, str...: never a Fraction or Decimal (the common case, decided
# without a lookup)
_PLAIN = frozenset({int, float, complex, bool, str, bytes, list, tuple, dict, set, frozenset, type(None)})

# Below this many bits the gcds and products of one operation cost microseconds: not checked.
_FREE_BITS = 4096
_INT_STR_FREE_BITS = 14_000  # CPython's own int<->str conversion limit (4 300 digits)
_DEC_TO_INT_NS = 0.03  # per decimal digit squared (measured 1.0 s for 200 000 digits)
# one modular multiplication of ``Decimal``s, per modulus digit squared (measured: 1.9 ms at
# 4 000 digits, libmpdec 2.5 on 3.11: 128 s for ``pow(3, Decimal('1E20000'), 10**3999 + 7)``)
_DEC_MODMUL_NS = 0.12


def gcd_ns(bits: int) -> float:
    """Time of ``math.gcd`` of two ints of about ``bits`` bits (Lehmer: quadratic)."""
    return 1.3e-3 * float(bits) * float(bits)


def exact_bits(x: Any) -> int:
    """Bits of the largest int term of a Fraction (0 for other types)."""
    if type(x) not in _PLAIN and isinstance(x, _fraction()):
        bits: int = max(x.numerator.bit_length(), x.denominator.bit_length())
        return bits
    return 0


def _decimal_int_digits(x: Any) -> int:
    """Decimal digits of ``x`` as an exact int (0 for non-finite or small values)."""
    if type(x) in _PLAIN or type(x) is not _decimal() or not x.is_finite():
        return 0
    digits: int = max(0, x.adjusted() + 1)
    return digits


def check_to_int(x: Any) -> None:
    """Charge converting ``x`` to an exact int (``int()``, ``round()``, ``as_integer_ratio``)."""
    digits = _decimal_int_digits(x)
    if digits > 4300:
        current_or_default().check_work(_DEC_TO_INT_NS * digits * digits)


def _decimal_digits(x: Any) -> int:
    """Decimal digits of an int or of an integral Decimal (0 for anything else)."""
    if type(x) is int:
        return x.bit_length() * 30103 // 100000 + 1
    return _decimal_int_digits(x)


def check_decimal_pow_mod(base: Any, exp: Any, mod: Any, decimal_context: bool = False) -> None:
    """``pow(base, exp, mod)`` with a ``Decimal`` among them: libmpdec's exact modular power,
    two modular multiplications of ``mod``'s size per bit of ``exp`` (whose size the context
    precision does not bound: ``Decimal('1E20000')`` is an integral exponent).
    ``decimal_context``: ``Context.power``, which makes Decimals of int arguments."""
    decimal = _decimal()
    if not decimal_context and decimal not in (type(base), type(exp), type(mod)):
        return
    ebits = _decimal_digits(exp) * 3322 // 1000
    mdigits = _decimal_digits(mod)
    if ebits > 64:
        current_or_default().check_work(2 * ebits * max(1.0, _DEC_MODMUL_NS * mdigits * mdigits))


def _int_to_decimal(x: Any) -> None:
    if type(x) is int:
        bits = x.bit_length()
        if bits > _INT_STR_FREE_BITS:
            current_or_default().check_work(int_str_ns(bits))


def check_operands(a: Any, b: Any, pow_: bool = False) -> None:
    """Charge one binary operation between ``a`` and ``b`` when either is a Fraction or a
    Decimal (no-op otherwise)."""
    if type(a) in _PLAIN and type(b) in _PLAIN:
        return
    fraction = _fraction()
    fa, fb = isinstance(a, fraction), isinstance(b, fraction)
    if fa or fb:
        if pow_:
            _check_fraction_pow(a, b)
            return
        bits = exact_bits(a) + exact_bits(b) + (a.bit_length() if type(a) is int else 0) + (
            b.bit_length() if type(b) is int else 0
        )
        if bits > _FREE_BITS:
            budget = current_or_default()
            budget.check_alloc(int_bytes(2 * bits))
            budget.check_work(2 * gcd_ns(bits) + 2 * int_mul_ns(bits, bits))
        return
    decimal = _decimal()
    da, db = isinstance(a, decimal), isinstance(b, decimal)
    if da:
        _int_to_decimal(b)
    elif db:
        _int_to_decimal(a)
    if da or db:
        inexact = pow_ and not integral_exponent(b)
        check_decimal_work(decimal_digits(a), decimal_digits(b), inexact_power=inexact)


# libmpdec works on a Decimal's whole coefficient, however short the context: ``Decimal(text)``
# is exact, so a guest holds operands of any length its memory allows. Measured (CPython 3.11,
# libmpdec 2.5, shared cores): ``*``/``+``/``exp`` about 55-70 ns a digit of the longer
# operand (2 million digits: 110-145 ms at prec 28); ``/``, ``//``, ``%``, ``divmod`` grow with
# digits times precision (a million digits at prec 4000: 0.45-0.52 s); an inexact power
# (``d ** Decimal('0.5')``) works to w = max(prec, digits of the base) digits at about
# 200 ns * w**2 (w = 4000: 1.3-3.2 s; 8000: 5.7 s; 20 000: 58 s: a little worse than
# quadratic, so the price stops it well before that matters).
_DEC_NS_PER_DIGIT = 100.0
_DEC_NS_PER_DIGIT_PREC = 0.15
_DEC_POWER_NS_PER_DIGIT2 = 200.0
_DEC_FREE_DIGITS = 4300  # below, one operation costs under a millisecond at any precision
_DEC_POWER_FREE_DIGITS = 300  # below, an inexact power costs about a millisecond (measured 1 ms)
_DEC_WORD_DIGITS = 19 if sys.maxsize > 2**32 else 9  # decimal digits in one libmpdec word
_DEC_WORD_BYTES = 8 if sys.maxsize > 2**32 else 4
_dec_header = -1


def decimal_digits(x: Any) -> int:
    """An upper bound on the coefficient digits of Decimal ``x`` (decimal digits of an int; 0
    for anything else), read in constant time: the object's size counts its allocated words."""
    if type(x) is int:
        return x.bit_length() * 30103 // 100000 + 1
    if type(x) in _PLAIN or not isinstance(x, _decimal()):
        return 0
    global _dec_header
    if _dec_header < 0:  # the object without its coefficient words (4 of them are inline)
        _dec_header = sys.getsizeof(_decimal()(0)) - 4 * _DEC_WORD_BYTES
    return max(0, sys.getsizeof(x) - _dec_header) // _DEC_WORD_BYTES * _DEC_WORD_DIGITS


def _precision() -> int:
    prec: int = sys.modules["decimal"].getcontext().prec
    return prec


def check_decimal_work(*digits: int, inexact_power: bool = False, prec: int | None = None) -> None:
    """Price one libmpdec operation on operands of ``digits`` coefficient digits under the
    running context (or ``prec``), before the call: an inexact power by ``max(prec, digits)``
    squared, anything else by its operands' digits times the precision (see the constants)."""
    n = max(digits) if digits else 0
    p = _precision() if prec is None else prec
    if inexact_power:
        w = max(p, n)
        if w > _DEC_POWER_FREE_DIGITS:
            current_or_default().check_work(_DEC_POWER_NS_PER_DIGIT2 * w * w)
    elif n > _DEC_FREE_DIGITS:
        current_or_default().check_work(n * (_DEC_NS_PER_DIGIT + _DEC_NS_PER_DIGIT_PREC * p))


def integral_exponent(e: Any) -> bool:
    """``e`` is an integral exponent (libmpdec's exact repeated squaring, not ``exp(e * ln b)``)."""
    if type(e) is int or type(e) is bool:
        return True
    if isinstance(e, _decimal()):
        return bool(e.is_finite() and e == e.to_integral_value())
    return not isinstance(e, float | complex) and _exponent(e) is not None


def _exponent(e: Any) -> int | None:
    if type(e) is int:
        return e
    if isinstance(e, _fraction()) and e.denominator == 1:
        return int(e.numerator)
    return None


def _check_fraction_pow(a: Any, b: Any) -> None:
    e = _exponent(b)
    if e is None:
        return  # a fractional exponent makes a float (or complex): fixed size
    e = abs(e)
    if isinstance(a, _fraction()):
        terms = (a.numerator, a.denominator)
    elif type(a) is int:
        terms = (a, 1)
    else:
        return
    budget = current_or_default()
    for term in terms:
        bits = int_pow_bits(term, e)
        if bits > _FREE_BITS:
            budget.check_alloc(int_bytes(bits))
            if term & (term - 1):  # powers of two square in linear time
                budget.check_work(1.3 * int_mul_ns(bits // 2, bits // 2))
