"""Values across the sandbox boundary as tagged JSON (never pickle).

Plain JSON carries ``None``, ``bool``, ``str`` and small ``int``; everything else is an object
``{"$": tag, "v": payload}``::

    int     {"$": "int", "v": "-1f"}         (hex: no 4300-digit limit, linear time)
    float   {"$": "float", "v": "nan"}       (repr; finite floats are plain JSON numbers)
    bytes   {"$": "bytes", "v": base64}
    tuple / list / set / frozenset   {"$": "tuple", "v": [items]}
    dict    {"$": "dict", "v": [[key, value], ...]}     (keys of any encodable type)
    Decimal {"$": "decimal", "v": "1.10"}    complex {"$": "complex", "v": [re, im]}
            (at most MAX_DECIMAL_DIGITS digits before and after the point, both ways)
    date / time / datetime / timedelta       isoformat, or [days, seconds, microseconds]

Only the exact types are accepted (a subclass could carry behaviour); anything else, a cycle,
or more than ``MAX_NODES`` items (``x = (x, x)`` eighty times is small in memory and 2**80
items on the wire) raises ``SandboxValueError``. Decoding treats its input as hostile: any
malformed shape raises ``SandboxValueError``, never another exception.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import math
from decimal import Decimal, InvalidOperation
from typing import Any

from safe_eval.errors import SandboxValueError

__all__ = ["MAX_DECIMAL_DIGITS", "MAX_NODES", "decode", "encode"]

MAX_NODES = 300_000
MAX_DEPTH = 200
# keys of one decoded set or dict that may share a hash value (building it costs up to this
# many probes a key): ``_spread``
MAX_SAME_HASH = 64
# digits of a Decimal's exact value, integer part and fraction each (its fixed-point text,
# ``int()``, ``Fraction()``): its wire text is short whatever its exponent (``1e100000000``),
# and those conversions are quadratic in the digits (``int(Decimal('1e1000000'))``: 68 s).
# CPython's own bound on int <-> decimal text (``sys.int_info.default_max_str_digits``)
MAX_DECIMAL_DIGITS = 4300
_SMALL = 2**53  # ints beyond this are tagged: every JSON reader keeps these exact

_SEQUENCES: dict[type, str] = {tuple: "tuple", list: "list", set: "set", frozenset: "frozenset"}
_BUILD: dict[str, Any] = {"tuple": tuple, "list": list, "set": set, "frozenset": frozenset}


class _Counter:
    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_NODES

    def tick(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise SandboxValueError(f"value too large to cross the sandbox boundary (over {MAX_NODES} items)")


def encode(value: Any) -> Any:
    """The JSON-ready form of ``value``; ``SandboxValueError`` for anything not plain data."""
    return _enc(value, _Counter(), set(), 0)


def _enc(v: Any, count: _Counter, active: set[int], depth: int) -> Any:
    count.tick()
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t is int:
        return v if -_SMALL < v < _SMALL else {"$": "int", "v": hex(v)}
    if t is float:
        return v if math.isfinite(v) else {"$": "float", "v": repr(v)}
    if t is bytes:
        return {"$": "bytes", "v": base64.b64encode(v).decode("ascii")}
    if t is Decimal:
        return {"$": "decimal", "v": str(_bounded_decimal(v))}
    if t is complex:
        return {"$": "complex", "v": [_enc(v.real, count, active, depth), _enc(v.imag, count, active, depth)]}
    if t is dt.datetime or t is dt.date or t is dt.time:
        return _enc_when(v)
    if t is dt.timedelta:
        return {"$": "timedelta", "v": [v.days, v.seconds, v.microseconds]}
    tag = _SEQUENCES.get(t)
    if tag is None and t is not dict:
        raise SandboxValueError(f"a value of type {t.__name__} cannot cross the sandbox boundary")
    if depth >= MAX_DEPTH:
        raise SandboxValueError(f"value nested deeper than {MAX_DEPTH} levels")
    key = id(v)
    if key in active:
        raise SandboxValueError("a value that contains itself cannot cross the sandbox boundary")
    active.add(key)
    try:
        if t is dict:
            return {"$": "dict", "v": [[_enc(k, count, active, depth + 1), _enc(x, count, active, depth + 1)]
                                       for k, x in v.items()]}
        return {"$": tag, "v": [_enc(x, count, active, depth + 1) for x in v]}
    finally:
        active.discard(key)


def _enc_when(v: dt.date | dt.time) -> dict[str, Any]:
    tz = v.tzinfo if isinstance(v, (dt.datetime, dt.time)) else None
    if tz is not None and type(tz) is not dt.timezone:
        raise SandboxValueError("only fixed-offset timezones (datetime.timezone) cross the sandbox boundary")
    return {"$": type(v).__name__, "v": v.isoformat()}


def _bounded_decimal(d: Decimal) -> Decimal:
    """``d``, or ``SandboxValueError`` when its exact value has more than ``MAX_DECIMAL_DIGITS``
    digits before or after the point (or a NaN payload that long): the same bound both ways, so
    a guest's value that could not be decoded is refused in the worker, as a cycle is."""
    parts = d.as_tuple()
    exponent = parts.exponent
    if len(parts.digits) > MAX_DECIMAL_DIGITS or (d.is_finite() and (
            d.adjusted() >= MAX_DECIMAL_DIGITS or type(exponent) is int and exponent < -MAX_DECIMAL_DIGITS)):
        raise SandboxValueError(f"a Decimal of more than {MAX_DECIMAL_DIGITS} digits before or after "
                                "the point cannot cross the sandbox boundary")
    return d


def decode(data: Any) -> Any:
    """The value ``encode`` produced; ``SandboxValueError`` for anything malformed."""
    try:
        return _dec(data, _Counter(), 0)
    except SandboxValueError:
        raise
    except (ValueError, TypeError, OverflowError, InvalidOperation, binascii.Error, RecursionError) as exc:
        raise SandboxValueError(f"malformed value from the sandbox: {type(exc).__name__}") from None


def _spread(keys: list[Any]) -> None:
    """Refuse keys for a set or dict that would make building it quadratic: many with one hash.
    The hashes of ints, floats, Decimals, dates and tuples of them are not randomised, so a
    worker can send 200k distinct ints of one hash (multiples of 2**61 - 1) and the host would
    spend minutes in ``set()``, outside any deadline; an encoder never sends more than
    ``MAX_SAME_HASH`` keys of one hash (it sends each key once). Unhashable keys: TypeError."""
    if len(keys) <= MAX_SAME_HASH:
        return
    # sorted, not counted in a dict: a hash value is an int that hashes to itself, so counting
    # them in a dict would collide in the same way
    hashes = sorted(map(hash, keys))
    for low, high in zip(hashes, hashes[MAX_SAME_HASH:], strict=False):  # shorter by MAX_SAME_HASH
        if low == high:
            raise SandboxValueError(f"more than {MAX_SAME_HASH} keys of a set or dict share one hash")


def _dec(d: Any, count: _Counter, depth: int) -> Any:
    count.tick()
    t = type(d)
    if d is None or t is bool or t is str or t is int:
        return d
    if t is float:
        if not math.isfinite(d):  # ``1e999`` reads as inf: an encoder tags every non-finite float
            raise SandboxValueError("a non-finite float is sent tagged")
        return d
    if t is not dict or set(d) != {"$", "v"}:
        raise SandboxValueError(f"malformed value from the sandbox: {t.__name__}")
    tag, payload = d["$"], d["v"]
    if type(tag) is not str:
        raise SandboxValueError("malformed value tag")
    if tag in _BUILD or tag == "dict":
        if type(payload) is not list:
            raise SandboxValueError(f"malformed {tag} payload")
        if depth >= MAX_DEPTH:
            raise SandboxValueError(f"value nested deeper than {MAX_DEPTH} levels")
        if tag == "dict":
            pairs = []
            for pair in payload:
                if type(pair) is not list or len(pair) != 2:
                    raise SandboxValueError("malformed dict item")
                pairs.append((_dec(pair[0], count, depth + 1), _dec(pair[1], count, depth + 1)))
            _spread([k for k, _ in pairs])
            return dict(pairs)
        items = [_dec(x, count, depth + 1) for x in payload]
        if tag in ("set", "frozenset"):
            _spread(items)
        return _BUILD[tag](items)
    if tag == "complex":
        if type(payload) is not list or len(payload) != 2:
            raise SandboxValueError("malformed complex payload")
        re_, im = (_dec(x, count, depth + 1) for x in payload)
        if type(re_) not in (int, float) or type(im) not in (int, float):
            raise SandboxValueError("malformed complex payload")
        return complex(re_, im)
    if tag == "timedelta":
        if type(payload) is not list or len(payload) != 3 or any(type(x) is not int for x in payload):
            raise SandboxValueError("malformed timedelta payload")
        return dt.timedelta(days=payload[0], seconds=payload[1], microseconds=payload[2])
    if type(payload) is not str:
        raise SandboxValueError(f"malformed {tag} payload")
    if tag == "int":
        if len(payload) > 10_000_000:
            raise SandboxValueError("int too large")
        return int(payload, 16)
    if tag == "float":
        value = float(payload)
        if math.isfinite(value):
            raise SandboxValueError("a finite float is sent as a JSON number")
        return value
    if tag == "bytes":
        return base64.b64decode(payload, validate=True)
    if tag == "decimal":
        return _bounded_decimal(Decimal(payload))
    if tag == "datetime":
        return dt.datetime.fromisoformat(payload)
    if tag == "date":
        return dt.date.fromisoformat(payload)
    if tag == "time":
        return dt.time.fromisoformat(payload)
    raise SandboxValueError(f"unknown value tag {tag[:40]!r}")
