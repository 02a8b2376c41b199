"""Size and cost estimates of host operations, computed from operand sizes before running them.

Pure functions, no budget: the guards in ``operators.py`` and ``guards.py`` feed the numbers
to ``Budget.check_alloc`` (bytes) and ``Budget.check_work`` (nanoseconds).

Cost constants were measured on CPython 3.11 (x86-64): multiplying two n-digit ints (30-bit
digits, Karatsuba above 70 digits) costs about 6-7 ns per n**1.585, schoolbook division of a
2n-digit by an n-digit int about 1.2 ns per n**2; they are rounded up.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from typing import Any

from safe_eval.limits.sharing import FLAT, children, expanded_nodes

__all__ = [
    "SEQ_TYPES",
    "format_spec_width",
    "int_bytes",
    "known_len",
    "int_div_ns",
    "int_mul_ns",
    "int_pow_bits",
    "int_str_ns",
    "percent_format_width",
    "seq_item_size",
]

_DIGIT_BITS = 30
_MUL_NS = 8.0  # per (digits ** 1.585), Karatsuba
_DIV_NS = 1.5  # per digit * digit, schoolbook
_STR_NS = 3.0  # per decimal digit ** 2, int <-> str conversion (quadratic in 3.11)

# Host sequence types whose repetition/concatenation allocates len * itemsize in one C call.
SEQ_TYPES = (str, bytes, bytearray, list, tuple)


def int_bytes(bits: int) -> int:
    """Memory of an int of ``bits`` bits (digits are 4 bytes holding 30 bits)."""
    return 28 + 4 * (bits // _DIGIT_BITS + 1)


def int_mul_ns(a_bits: int, b_bits: int) -> float:
    """Time to multiply ints of these sizes."""
    n = max(a_bits, b_bits) / _DIGIT_BITS + 1
    m = min(a_bits, b_bits) / _DIGIT_BITS + 1
    if m < 70:
        return n * m * 1.0
    # Unbalanced Karatsuba: (n / m) products of m-digit blocks.
    return (n / m) * _MUL_NS * float(m**1.585)


def int_div_ns(a_bits: int, b_bits: int) -> float:
    """Time of divmod on ints of these sizes (schoolbook: quotient digits * divisor digits)."""
    if a_bits <= b_bits:
        return 0.0
    q = (a_bits - b_bits) / _DIGIT_BITS + 1
    m = b_bits / _DIGIT_BITS + 1
    return q * m * _DIV_NS


def int_pow_bits(base: int, exp: int) -> int:
    """Bits of ``base ** exp`` for ints (0 when the result is tiny or not an int)."""
    if exp <= 0 or base in (0, 1, -1):
        return 0
    return abs(base).bit_length() * exp


def int_str_ns(bits: int) -> float:
    """Time to convert an int of ``bits`` bits to/from decimal (quadratic in CPython 3.11)."""
    digits = bits * 0.30103
    return digits * digits * _STR_NS / 100  # the inner loop handles ~100 digit pairs per ns


def seq_item_size(seq: Any) -> int:
    """Bytes per element of a host sequence, for ``len * itemsize`` estimates."""
    t = type(seq)
    if t is str:
        # Compact strings use 1, 2 or 4 bytes per code point; getsizeof tells which.
        n = len(seq)
        return max(1, (sys.getsizeof(seq) - sys.getsizeof("")) // n) if n else 1
    if t is bytes or t is bytearray:
        return 1
    return 8  # list/tuple: one pointer per element (the elements are shared)


# printf-style conversions: %[(key)][flags][width][.precision]type (compiled at first use:
# compiling at import is cold-start time)
@cache
def _percent() -> re.Pattern[str]:
    return re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])")


def percent_format_width(template: str | bytes | bytearray, args: Any) -> int:
    """An upper bound of the padding a printf-style template adds (widths and precisions,
    ``*`` taking its value from the int arguments)."""
    text = bytes(template).decode("latin-1") if isinstance(template, bytes | bytearray) else template
    if "%" not in text:
        return 0
    total = 0
    star = False
    for width, precision, _conv in _percent().findall(text):
        for part in (width, precision):
            if part == "*":
                star = True
            elif part:
                total += int(part) if len(part) < 20 else 10**20
    if star:
        values = args if isinstance(args, tuple) else (args,)
        total += sum(abs(v) for v in values if type(v) is int)
    return total


# format spec mini-language: [[fill]align][sign][z][#][0][width][grouping][.precision][type]
@cache
def _spec() -> re.Pattern[str]:
    return re.compile(r"^(?:.?[<>=^])?[-+ ]?z?#?0?(\d*)[,_]?(?:\.(\d+))?")


def format_spec_width(spec: str) -> int:
    """The width plus precision a ``format()`` spec asks for (0 when none)."""
    if not spec:
        return 0
    m = _spec().match(spec)
    assert m is not None  # every part of the pattern is optional: it matches any text
    total = 0
    for part in m.groups():
        if part:
            total += int(part) if len(part) < 20 else 10**20
    return total


_EXACT_SIZED: frozenset[type] = frozenset(
    {
        list,
        tuple,
        str,
        bytes,
        bytearray,
        dict,
        set,
        frozenset,
        range,
        type({}.keys()),
        type({}.values()),
        type({}.items()),
    }
)


def known_len(obj: Any) -> int | None:
    """The length of an exact builtin container without running guest code, else None."""
    t = type(obj)
    if t not in _EXACT_SIZED:
        return None
    if t is range:
        # len() of a huge range raises OverflowError; the arithmetic does not.
        step = obj.step
        span = obj.stop - obj.start + (step - 1 if step > 0 else step + 1)
        return max(0, int(span // step))
    return len(obj)


# -- repr / str of data ----------------------------------------------------------------------
# Below this many bytes of text a repr is never priced: it cannot matter.
_REPR_FREE = 1 << 16
_REPR_WALK = 100_000  # containers walked at most; past that the estimate stops growing exactly


def _str_repr_bytes(s: str) -> int:
    n = len(s)
    if s.isascii():
        # printable ASCII only doubles (quotes, backslashes); control characters become \xNN
        return 2 * n + 2 if s.isprintable() else 4 * n + 2
    if s.isprintable():
        return 2 * n * 4 + 8  # kept as is: at most doubled, at most 4 bytes a character
    return 10 * n * 4 + 8  # \U0001xxxx in a 4-byte string: the worst case


def repr_bytes(obj: Any) -> int:
    """An upper bound (bytes) on ``repr(obj)``/``str(obj)`` for str, bytes and the builtin
    containers holding them, without running guest code (escaping makes text longer: a loop of
    ``x = repr(x)`` doubles a string per step in one C call each). A shared part counts once per
    reference, as repr writes it once per reference. 0 when the text is small or the object is
    not plain data (anything else is priced by its own guards or the budget)."""
    total, seen, todo = 0, 0, [obj]
    while todo:
        x = todo.pop()
        t = type(x)
        if t is str:
            if len(x) > 64:
                total += _str_repr_bytes(x)
        elif t is bytes or t is bytearray:
            if len(x) > 64:
                total += 4 * len(x) + 14
        elif t is list or t is tuple or t is set or t is frozenset:  # the common case, inline
            seen += 1
            if seen > _REPR_WALK:
                break
            total += 2 * len(x)
            todo.extend(x)
        elif t not in FLAT:
            # the containers ``sharing.children`` can walk, subclasses and views included
            items = children(x)
            if items is None:
                items = host_container_members(x)  # slice, deque ...: what their repr writes
            if items is None:
                continue
            seen += 1
            if seen > _REPR_WALK:
                break
            before = len(todo)
            todo.extend(items)
            total += 2 * (len(todo) - before)  # a separator and a bracket's share per item
    if todo:  # the walk stopped early: shared parts can make the text exponentially long
        total = max(total, 2 * expanded_nodes(obj))
    return total if total > _REPR_FREE else 0


def host_container_members(x: Any) -> list[Any] | None:
    """The members the C (or stdlib) ``repr`` of a host container writes, read without running
    guest code, for the exact host container types besides the builtin ones (``slice``,
    ``deque``, dict views, the ``dict`` subclasses of ``collections``); None for anything else."""
    t = type(x)
    if t is slice:
        return [x.start, x.stop, x.step]
    if t in _VIEW_TYPES:
        return list(x.mapping.items()) if t is _ITEMS else list(x)
    name = _COLLECTIONS.get(t)
    if name is None:
        return None
    if name == "deque":
        return list(x)
    if name == "ChainMap":
        return list(x.maps)
    return [*dict.keys(x), *dict.values(x)]  # OrderedDict, defaultdict, Counter


_ITEMS: type = type({}.items())
_VIEW_TYPES: tuple[type, ...] = (type({}.keys()), type({}.values()), _ITEMS)
_COLLECTIONS: dict[type, str] = {}


def _register_collections() -> None:
    import collections

    # (not UserList/UserDict: the guest's are guest-stdlib classes, the host's reach a run only
    # as opaque proxies)
    for name in ("deque", "OrderedDict", "defaultdict", "Counter", "ChainMap"):
        _COLLECTIONS[getattr(collections, name)] = name


_register_collections()
