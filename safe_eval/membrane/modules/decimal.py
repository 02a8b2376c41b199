"""Curated ``decimal``.

``Decimal`` itself is plain data, but its precision lives in a host context: an unbounded
``getcontext().prec = 10**9`` makes the next division a memory and time bomb in C. The guest
gets ``getcontext``/``localcontext``/``Context`` returning a ``GuestContext`` view whose
``prec``/``Emax``/``Emin`` setters are capped (MAX_PREC).

The thread's decimal context is host state, and every Decimal operation writes to it (its
``flags``: ``Decimal(1) / Decimal(0)`` caught by the guest leaves ``DivisionByZero`` set). So a
run owns a private copy of it from its start when ``decimal`` is loaded (no Decimal exists
otherwise: ``session.run_guarded`` calls ``isolate``), or from the first time it loads it
(``getcontext``/``localcontext``/constructing a ``Decimal``), and the host's own context is
put back when the run ends (``context.on_run_exit``): neither the host nor the next run sees
the run's precision or flags.
"""

from __future__ import annotations

import decimal
import sys
from types import TracebackType
from typing import Any

from safe_eval import context
from safe_eval.limits.indices import as_index
from safe_eval.limits.routines import slot_price
from safe_eval.membrane.modules._util import pick

# ln/exp/non-integer ** at 5 000 digits take ~1 s in C, at 50 000 digits minutes (measured)
MAX_PREC = 4_000
MAX_EXP = 10**9

CONSTANTS = ["DecimalException", "InvalidOperation", "DivisionByZero", "Inexact",
             "Rounded", "Subnormal", "Overflow", "Underflow", "Clamped", "FloatOperation",
             "ROUND_UP", "ROUND_DOWN", "ROUND_CEILING", "ROUND_FLOOR", "ROUND_HALF_UP",
             "ROUND_HALF_DOWN", "ROUND_HALF_EVEN", "ROUND_05UP"]

_SETTABLE = {"prec", "rounding", "Emin", "Emax", "capitals", "clamp"}


def _check(name: str, value: Any) -> Any:
    """``value`` as the context will read it, refused above the caps (an int subclass is read
    for its digits: its comparison overrides cannot pass a huge precision)."""
    if name in ("prec", "Emax", "Emin") and isinstance(value, int):
        value = as_index(value)
        if name == "prec" and value > MAX_PREC:
            raise ValueError(f"decimal precision is limited to {MAX_PREC} digits in safe-eval")
        if name != "prec" and abs(value) > MAX_EXP:
            raise ValueError(f"decimal exponent limits are capped at {MAX_EXP} in safe-eval")
    return value


class _PricedMethod:
    """A context method with a price of its own, bound to the host context (opaque: the guest
    can only call it)."""

    __slots__ = ("_fn", "_ctx")

    def __init__(self, fn: Any, ctx: decimal.Context) -> None:
        self._fn = fn
        self._ctx = ctx

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(self._ctx, *args, **kwargs)


def _copy(ctx: decimal.Context) -> GuestContext:
    return GuestContext(ctx.copy())


class GuestContext:
    """A view of a host ``decimal.Context`` with capped setters."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: decimal.Context) -> None:
        object.__setattr__(self, "_ctx", ctx)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._ctx, name)
        if name == "copy":  # a view of the copy (an opaque callable: the membrane admits it)
            return _PricedMethod(_copy, self._ctx)
        priced = slot_price(type(self._ctx), name)  # ``power(a, b, modulo)``: the routine's price
        if priced is not None:
            return _PricedMethod(priced, self._ctx)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _SETTABLE:
            raise AttributeError(f"'Context' attribute '{name}' cannot be set in safe-eval")
        setattr(self._ctx, name, _check(name, value))

    def __safe_eval_getattr__(self, name: str) -> Any:
        """The membrane's hook for a guest ``ctx.name`` read: public context attributes."""
        if name.startswith("_") or name in ("traps", "flags"):
            # traps/flags are the host context's mutable signal dicts
            raise AttributeError(f"'Context' attribute '{name}' is not accessible in safe-eval")
        return GuestContext.__getattr__(self, name)

    def __safe_eval_setattr__(self, name: str, value: Any) -> None:
        """The membrane's hook for a guest ``ctx.name = value``: the capped setters only."""
        GuestContext.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return repr(self._ctx)


def isolate() -> None:
    """Give the running evaluation its own copy of the thread's decimal context (once)."""
    root = context.outermost()
    if root is None or _HOST_CONTEXT in root.extra:
        return
    host = decimal.getcontext()
    root.extra[_HOST_CONTEXT] = host
    context.on_run_exit(lambda: decimal.setcontext(host))

    def for_host_code() -> Any:
        # a tool's own Decimal arithmetic runs on the host's context, never on the guest's
        # precision and rounding (a guest ``localcontext(prec=2)`` priced 3 x 19.99 at 60)
        guest = decimal.getcontext()
        decimal.setcontext(host)
        return lambda: decimal.setcontext(guest)

    context.on_host_code(for_host_code)
    decimal.setcontext(host.copy())


_HOST_CONTEXT = "decimal-host-context"


def getcontext() -> GuestContext:
    isolate()
    return GuestContext(decimal.getcontext())


def Context(**kwargs: Any) -> GuestContext:
    checked = {name: _check(name, value) for name, value in kwargs.items()}
    return GuestContext(decimal.Context(**checked))


class _LocalContext:
    __slots__ = ("_saved", "_kwargs")

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self._saved: decimal.Context | None = None
        self._kwargs = kwargs

    def __enter__(self) -> GuestContext:
        isolate()
        self._saved = decimal.getcontext()
        ctx = self._saved.copy()
        for name, value in self._kwargs.items():
            if name not in _SETTABLE:
                raise TypeError(f"this function got an unexpected keyword argument '{name}'"
                                if sys.version_info >= (3, 13)
                                else f"'{name}' is an invalid keyword argument for this function")
            setattr(ctx, name, _check(name, value))
        decimal.setcontext(ctx)
        return GuestContext(ctx)

    def __exit__(self, typ: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._saved is not None:
            decimal.setcontext(self._saved)


def localcontext(ctx: Any = None, **kwargs: Any) -> _LocalContext:
    if ctx is not None:
        if not isinstance(ctx, GuestContext):
            raise TypeError("localcontext() argument must be a context")
        base = object.__getattribute__(ctx, "_ctx")
        kwargs = {"prec": base.prec, "rounding": base.rounding, "Emin": base.Emin,
                  "Emax": base.Emax, **kwargs}
    return _LocalContext(kwargs)


def _check_decimal(value: Any = "0", context: Any = None) -> None:
    from safe_eval.membrane.modules.fractions import check_exponent

    isolate()  # the first Decimal of a run that loaded decimal itself: its own context
    # int()/floor() of a Decimal with a huge exponent build that many digits in one C call
    check_exponent(value, MAX_PREC)
    if type(value) is int and value.bit_length() > 14_000:
        from safe_eval.limits.numbers import check_operands

        check_operands(decimal.Decimal(0), value)  # int -> Decimal is a quadratic conversion


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._guarded_class import guarded

    attrs = pick(decimal, CONSTANTS)
    attrs["Decimal"] = guarded(decimal.Decimal, _check_decimal, ["from_float"])
    attrs.update(getcontext=getcontext, localcontext=localcontext, Context=Context)
    return attrs
