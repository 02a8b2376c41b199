"""Prices of the stdlib routines whose cost a guest argument chooses in one C call.

``date(2020, 1, 1).strftime('%c' * 10**7)`` expands every directive in one C call,
``shake_128(b'').hexdigest(4 * 10**8)`` allocates what its argument says, ``deque([1]) * 10**9``
repeats in C, and ``pow(Decimal(3), Decimal('1E20000'), m)`` is an exact modular power whose
exponent the context precision does not bound. (The guest's ``UserString``/``UserList`` are
guest-stdlib code, ``safe_eval/guestlib/collections.py``, priced as the guest's own; the host
classes reach a run only as opaque proxies.) Each guard
here converts the size arguments once (``indices.as_index``), checks an upper bound of what
CPython allocates and computes, and calls the routine with the converted values.

``stdlib_routine_guards()`` returns ``{owner: {name: guard}}`` for ``routines`` to register
(it imports datetime, decimal and collections: called when the membrane registers the stdlib
types, never at the cold start); ``xof_guards(cls)`` prices a hashlib XOF type (the curated
``hashlib`` registers it when it is built).
"""

from __future__ import annotations

import ast
import operator
import time
from collections.abc import Callable
from typing import Any

from safe_eval.limits.budget import current_or_default
from safe_eval.limits.indices import as_index
from safe_eval.limits.numbers import (
    check_decimal_pow_mod,
    check_decimal_work,
    decimal_digits,
    integral_exponent,
)
from safe_eval.limits.operators import charge_bytes, guarded_binop

__all__ = [
    "normal_dist_guards",
    "price_float_list",
    "price_strftime",
    "quantiles_guard",
    "stdlib_routine_guards",
    "strftime_guards",
    "time_strftime",
    "xof_guards",
]

Guard = Callable[..., Any]

# CPython's ``time.strftime`` (which ``date.strftime`` and ``format(date, spec)`` end in)
# retries with a buffer of 1024, 2048, ... wide characters until the text fits or the buffer
# reaches 256 characters per format character (Modules/timemodule.c, 3.8-3.12): that, in
# 4-byte ``wchar_t``, is the most it allocates, whatever each directive expands to.
_STRFTIME_BYTES_PER_CHAR = 256 * 4
_FREE_FORMAT = 64  # formats up to this long cost at most 64 KiB: not checked


def price_strftime(fmt: Any) -> None:
    """Refuse a strftime format whose expansion buffer would not fit the memory limit."""
    if isinstance(fmt, str) and len(fmt) > _FREE_FORMAT:
        charge_bytes(len(fmt) * _STRFTIME_BYTES_PER_CHAR)


def _tz_name_expanded(obj: Any, fmt: str) -> str:
    """``fmt`` with ``%Z`` replaced by the object's zone name: the guest names the zone
    (``timezone(timedelta(0), 'z' * 10**6)``) and CPython pastes that text into the format
    once per ``%Z`` before ``time.strftime`` sees it, so the expansion is priced here and
    done here (on the text read once)."""
    tz = getattr(obj, "tzinfo", None)
    if tz is None or "%Z" not in fmt:
        return fmt
    name = obj.tzname()
    name = "" if name is None else name.replace("%", "%%")
    if name:
        charge_bytes(4 * fmt.count("%Z") * len(name))
    out: list[str] = []
    i, n = 0, len(fmt)
    while i < n:
        ch = fmt[i]
        if ch == "%" and i + 1 < n:
            nxt = fmt[i + 1]
            out.append(name if nxt == "Z" else ch + nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def strftime_guards(cls: type) -> dict[str, Guard]:
    """``strftime`` and ``__format__`` of a datetime class (``format(d, spec)`` is
    ``d.strftime(spec)`` for a non-empty spec)."""
    raw_strftime = cls.__dict__["strftime"]
    raw_format = cls.__dict__["__format__"]

    def strftime(self: Any, fmt: Any) -> str:
        if isinstance(fmt, str):
            fmt = _tz_name_expanded(self, str.__str__(fmt))
        price_strftime(fmt)
        return raw_strftime(self, fmt)  # type: ignore[no-any-return]

    def format_(self: Any, fmt: Any) -> str:
        if isinstance(fmt, str) and fmt:
            fmt = _tz_name_expanded(self, str.__str__(fmt))
            price_strftime(fmt)
        return raw_format(self, fmt)  # type: ignore[no-any-return]

    strftime.__name__ = strftime.__qualname__ = "strftime"
    format_.__name__ = format_.__qualname__ = "__format__"
    return {"strftime": strftime, "__format__": format_}


def time_strftime(fmt: Any, *args: Any) -> str:
    """``time.strftime(format[, t])``: the same buffer bound as ``date.strftime``."""
    price_strftime(fmt)
    return time.strftime(fmt, *args)


def xof_guards(cls: type) -> dict[str, Guard]:
    """``shake_*.digest(n)``/``hexdigest(n)``: ``n`` bytes (and ``2n`` characters) in one call."""
    raw_digest: Any = cls.__dict__["digest"]
    raw_hexdigest: Any = cls.__dict__["hexdigest"]

    def digest(self: Any, length: Any) -> bytes:
        length = as_index(length)
        if length > 0:
            charge_bytes(length)
        return raw_digest(self, length)  # type: ignore[no-any-return]

    def hexdigest(self: Any, length: Any) -> str:
        length = as_index(length)
        if length > 0:
            charge_bytes(3 * length)  # the digest, then its hex text
        return raw_hexdigest(self, length)  # type: ignore[no-any-return]

    return {"digest": digest, "hexdigest": hexdigest}


# A new float object and its list slot: what each number a statistics routine generates costs.
_FLOAT_ITEM_BYTES = 32


def price_float_list(n: int) -> None:
    """A list of ``n`` new floats built by a host Python loop (``statistics``): the memory is
    checked and one op per item charged before the loop, which itself never ticks."""
    if n > 0:
        b = current_or_default()
        b.check_alloc(n * _FLOAT_ITEM_BYTES)
        b.charge(n)


def normal_dist_guards(cls: type) -> dict[str, Guard]:
    """``NormalDist.samples(n)`` (n floats) and ``NormalDist.quantiles(n)`` (n - 1 floats):
    ``n`` read once, priced, and only the converted int passed on."""
    raw_samples: Any = cls.__dict__["samples"]
    raw_quantiles: Any = cls.__dict__["quantiles"]

    def samples(self: Any, n: Any, *, seed: Any = None) -> list[float]:
        n = as_index(n)
        price_float_list(n)
        return raw_samples(self, n, seed=seed)  # type: ignore[no-any-return]

    def quantiles(self: Any, n: Any = 4) -> list[float]:
        n = as_index(n)
        price_float_list(n - 1)
        return raw_quantiles(self, n)  # type: ignore[no-any-return]

    return {"samples": samples, "quantiles": quantiles}


def quantiles_guard(raw: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
    """``statistics.quantiles(data, n=...)``: ``n - 1`` cut points. A non-int ``n`` is left
    to the routine's own errors (``n < 1`` first, then ``range``'s TypeError)."""

    def quantiles(data: Any, *, n: Any = 4, method: Any = "exclusive") -> list[Any]:
        if type(n) is int:
            price_float_list(n - 1)
        return raw(data, n=n, method=method)

    return quantiles


def _deque_guards() -> dict[str, Guard]:
    import collections

    deque = collections.deque
    raw_mul, raw_imul = deque.__mul__, deque.__imul__
    iadd = guarded_binop(ast.Add, True)
    assert iadd is not None

    def repeat_size(self: Any, count: Any) -> int | None:
        try:
            n = operator.index(count)
        except TypeError:
            return None
        if n > 0 and len(self) and (self.maxlen is None or self.maxlen > len(self)):
            total = len(self) * n if self.maxlen is None else min(len(self) * n, self.maxlen)
            charge_bytes(8 * total)
        return n

    def mul(self: Any, count: Any) -> Any:
        n = repeat_size(self, count)
        return NotImplemented if n is None else raw_mul(self, n)

    def imul(self: Any, count: Any) -> Any:
        n = repeat_size(self, count)
        return NotImplemented if n is None else raw_imul(self, n)

    def iadd_(self: Any, other: Any) -> Any:
        if other is self:
            charge_bytes(8 * len(self))
            return deque.__iadd__(self, other)
        deque.extend(self, _counted(other))
        return self

    return {"__mul__": mul, "__rmul__": mul, "__imul__": imul, "__iadd__": iadd_}


def _counted(iterable: Any) -> Any:
    from safe_eval.limits.guards import prepare

    return prepare(iterable, 8)


# libmpdec's transcendental functions work to the context precision p: measured at p = 4000
# (CPython 3.11, shared cores) ln 1.8 s, log10 2.1 s, exp 0.8 s, power of p-digit operands
# 2.7 s, about quadratic in p, each one C call no watchdog can interrupt. Priced before the call
# as k * p**2 ns (k with a margin) from ``_DECIMAL_PRICED_ABOVE`` digits up; below, one call
# costs about a millisecond at most and the op tick bounds a sequence of them.
_DECIMAL_NS_PER_DIGIT2 = {"ln": 140.0, "log10": 160.0, "exp": 70.0, "power": 200.0}
_DECIMAL_PRICED_ABOVE = 100
_TRANSCENDENTAL = ("ln", "log10", "exp")


def _price_precision(name: str, context: Any) -> None:
    import decimal

    prec = (context if isinstance(context, decimal.Context) else decimal.getcontext()).prec
    if prec > _DECIMAL_PRICED_ABOVE:
        current_or_default().check_work(_DECIMAL_NS_PER_DIGIT2[name] * prec * prec)


def _decimal_method(raw: Guard, name: str) -> Guard:
    """``Decimal.ln``/``log10``/``exp``: priced at the precision of the context they use."""

    def method(self: Any, context: Any = None) -> Any:
        _price_precision(name, context)
        return raw(self, context)

    method.__name__ = method.__qualname__ = name
    return method


def _context_method(raw: Guard, name: str) -> Guard:
    """``Context.ln``/``log10``/``exp``: priced at the context's precision."""

    def method(self: Any, a: Any) -> Any:
        _price_precision(name, self)
        return raw(self, a)

    method.__name__ = method.__qualname__ = name
    return method


def _context_power(raw: Guard) -> Guard:
    def power(self: Any, a: Any, b: Any, modulo: Any = None) -> Any:
        if modulo is not None:
            check_decimal_pow_mod(a, b, modulo, decimal_context=True)
        else:
            _price_precision("power", self)
            check_decimal_work(decimal_digits(a), decimal_digits(b), prec=self.prec,
                               inexact_power=not integral_exponent(b))
        return raw(self, a, b, modulo)

    power.__name__ = power.__qualname__ = "power"
    return power


# Decimal and Context routines whose work grows with their operands' coefficient digits (the
# context's precision does not bound an exact operand: ``numbers.check_decimal_work``).
_DECIMAL_OPERAND_METHODS = (
    "fma", "quantize", "remainder_near", "sqrt", "to_integral", "to_integral_exact", "to_integral_value",
)
_CONTEXT_OPERAND_METHODS = (
    "add", "subtract", "multiply", "divide", "divide_int", "remainder", "remainder_near", "divmod", "fma",
    "sqrt", "quantize", "to_integral", "to_integral_exact", "to_integral_value", "plus", "minus",
    "create_decimal",
)


def _operand_priced(raw: Guard, name: str, on_context: bool) -> Guard:
    """A Decimal (``on_context``: Context) routine priced by its operands' digits under the
    precision it works to (``numbers.check_decimal_work``) before the C call."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        context = self if on_context else kwargs.get("context")
        prec = context.prec if context is not None and hasattr(context, "prec") else None
        check_decimal_work(decimal_digits(self), *map(decimal_digits, args), prec=prec)
        return raw(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def stdlib_routine_guards() -> dict[type, dict[str, Guard]]:
    """``{owner: {name: guard}}`` for the stdlib classes above (imports their modules)."""
    import collections
    import datetime
    import decimal

    table: dict[type, dict[str, Guard]] = {
        datetime.date: strftime_guards(datetime.date),
        datetime.time: strftime_guards(datetime.time),
        collections.deque: _deque_guards(),
        decimal.Context: {"power": _context_power(decimal.Context.power),
                          **{n: _context_method(getattr(decimal.Context, n), n) for n in _TRANSCENDENTAL}},
        decimal.Decimal: {n: _decimal_method(getattr(decimal.Decimal, n), n) for n in _TRANSCENDENTAL},
    }
    table[decimal.Context].update(
        {n: _operand_priced(getattr(decimal.Context, n), n, True) for n in _CONTEXT_OPERAND_METHODS})
    table[decimal.Decimal].update(
        {n: _operand_priced(getattr(decimal.Decimal, n), n, False) for n in _DECIMAL_OPERAND_METHODS})
    if "strftime" in datetime.datetime.__dict__:  # a C version that overrides date's
        table[datetime.datetime] = strftime_guards(datetime.datetime)
    return table

