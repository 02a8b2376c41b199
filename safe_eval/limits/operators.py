"""Guarded binary operators: estimate the size and cost of the result before computing it.

``guarded_binop(op_type, inplace)`` returns a two-argument function for the operators where a
single host C call can allocate a lot or run for long (``*``, ``**``, ``<<``, ``+``, ``%``,
``//``, and ``-``/``/`` for Fraction and Decimal operands, see ``numbers.py``; their in-place
forms too), or None when the plain ``operator`` function is safe.
The interpreter calls it once per AST node at compile time and calls the result per evaluation.

Each function has a fast path for small ints and floats that costs a few type checks and
comparisons (measured in the module's report: see ``tests/test_limits_operators.py``); only the
slow path looks up the running budget (``current_or_default()``) and may raise ``MemoryLimit``
(result too big), ``TimeLimit`` (the C call would outlast the time limit) or charge ops for
bulk work. Otherwise the functions behave exactly like ``operator.mul`` etc., including the
reflected dunders of guest objects and CPython's own error messages.

Divergence (documented): for ``seq * obj`` where ``obj`` is not an int but has ``__index__``,
the guard calls ``obj.__rmul__`` if defined, else ``operator.index(obj)`` once and repeats by
that int, so a guest ``__index__`` cannot return a small value to the check and a huge one to
CPython.
"""

from __future__ import annotations

import ast
import operator
import sys
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from numbers import Number
from typing import Any

from safe_eval.limits.budget import current_or_default
from safe_eval.limits.estimates import (
    SEQ_TYPES,
    int_bytes,
    int_div_ns,
    int_mul_ns,
    int_pow_bits,
    percent_format_width,
    repr_bytes,
    seq_item_size,
)
from safe_eval.limits.indices import as_index
from safe_eval.limits.iteration import SMALL, TickingIterator, charge_items, metered, update_source
from safe_eval.limits.numbers import check_decimal_pow_mod, check_operands, check_to_int, gcd_ns
from safe_eval.limits.sharing import keyed

__all__ = [
    "add_slow",
    "charge_bytes",
    "counting",
    "divlike_slow",
    "guarded_binop",
    "guarded_contains",
    "host_slot",
    "lshift_slow",
    "mul_slow",
    "pow_modular_check",
    "pow_slow",
    "price_pow",
    "price_slice",
]

Binop = Callable[[Any, Any], Any]

_S = 1 << 62  # operands below this in magnitude make results too small to matter
_SMALL_SEQ = 1 << 16  # concatenations shorter than this skip the estimate

# A bulk copy of this many bytes is charged one op (memcpy-like work is cheap per byte).
_BYTES_PER_OP = 64

# One modular multiplication of word-sized ints, reduction included (measured ~25 ns, 3.11):
# the floor of the per-bit price of ``pow(b, e, m)`` whatever ``m``'s size.
_MODMUL_MIN_NS = 40.0


def charge_bytes(nbytes: int) -> None:
    b = current_or_default()
    b.check_alloc(nbytes)
    b.charge(nbytes // _BYTES_PER_OP)


# -- slices --------------------------------------------------------------------------------
# Sequences shorter than this are sliced unpriced: the copy is under a few KB.
_SLICE_FREE_LEN = 2048
_SLICE_BOUNDS = (int, type(None))


def price_slice(seq: Any, key: slice) -> None:
    """``seq[key]`` copies up to ``len(seq)`` items: "free" (never more than its input), yet a
    loop keeping ``s[i:]`` of a megabyte string allocates a megabyte per step, hundreds of
    them within one op chunk, before any memory sample. The copy is checked and announced
    (``Budget.check_alloc``, which counts what it let through since the last sample) as its
    share of ``seq``'s size. Bounds that are not ints (a guest ``__index__``) are left to C:
    reading them here would run guest code twice."""
    n = len(seq)
    if n <= _SLICE_FREE_LEN or type(key.start) not in _SLICE_BOUNDS or type(key.stop) not in _SLICE_BOUNDS \
            or type(key.step) not in _SLICE_BOUNDS:
        return
    count = len(range(*key.indices(n)))
    if count > _SLICE_FREE_LEN:
        current_or_default().check_alloc(sys.getsizeof(seq) * count // n)


# -- * -------------------------------------------------------------------------------------
# what ``*`` by an int repeats: the sequences and ``deque`` (a copy of n times its items)
_REPEATABLE = (*SEQ_TYPES, deque)


def _repeat(seq: Any, count: Any, reflected_name: str, op: Binop, a: Any, b: Any) -> Any:
    """``seq * count`` (or ``count * seq``) with the size checked against the int repeat count."""
    if not isinstance(count, int):
        # Sequences' own __rmul__ is their repeat slot, not a reflected multiplication.
        reflected = None if isinstance(count, SEQ_TYPES) else getattr(type(count), reflected_name, None)
        if reflected is not None:
            result = reflected(count, seq)
            if result is not NotImplemented:
                return result
        try:
            count = operator.index(count)
        except TypeError:
            return op(a, b)  # CPython's own error message
    size = as_index(count)  # a guest int subclass's digits, not its comparison overrides
    n = len(seq)
    if n and 0 < size <= sys.maxsize:  # above maxsize CPython raises OverflowError at once
        charge_bytes(sys.getsizeof(seq) // 2 + n * size * seq_item_size(seq))
    return op(seq, count)


def mul_slow(a: Any, b: Any, op: Binop) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        x, y = as_index(a), as_index(b)  # int subclasses: priced on their digits
        if not (-_S < x < _S or -_S < y < _S):
            bits_a, bits_b = x.bit_length(), y.bit_length()
            budget = current_or_default()
            budget.check_alloc(int_bytes(bits_a + bits_b))
            budget.check_work(int_mul_ns(bits_a, bits_b))
        return op(a, b)
    if isinstance(a, _REPEATABLE):
        return _repeat(a, b, "__rmul__", op, a, b)
    if isinstance(b, _REPEATABLE):
        return _repeat(b, a, "__mul__", op, a, b)
    check_operands(a, b)
    if isinstance(a, Number) and isinstance(b, Number):  # priced by check_operands above
        return op(a, b)
    return host_slot(a, b, op, "__imul__" if op is operator.imul else "__mul__", "__rmul__")


_PRICED_HERE = (*SEQ_TYPES, int, float, complex, dict, set, frozenset)


def host_slot(a: Any, b: Any, op: Binop, name: str, reflected: str) -> Any:
    """``a OP b`` where a host class's slot has a price of its own in ``limits.routines``
    (``deque([1]) * 10**9``, ``UserString('ab') * 10**9``): the priced slot runs in place of
    the raw one, in CPython's order (the in-place slot, then the plain one, then the
    reflected one). Without a priced slot on either side, ``op`` itself."""
    from safe_eval.limits.routines import slot_price  # routines imports this module

    ta, tb = type(a), type(b)
    # the builtin numbers and sequences (and their subclasses) are priced by the slow paths
    # of this module, whose slot guards call back here: never again
    guard = None if isinstance(a, _PRICED_HERE) else slot_price(ta, name)
    if guard is None and name.startswith("__i") and slot_price(ta, "__" + name[3:]) is not None:
        if not any(name in k.__dict__ for k in ta.__mro__):  # no in-place slot: the plain one
            guard = slot_price(ta, "__" + name[3:])
    if guard is not None:
        result = guard(a, b)
        if result is not NotImplemented:
            return result
    guard = slot_price(tb, reflected) if tb is not ta and not isinstance(b, _PRICED_HERE) else None
    if guard is not None:
        result = guard(b, a)
        if result is not NotImplemented:
            return result
    return op(a, b)


# The fast paths below spell the bounds as literals (2**62, 2**32): constants are free, while a
# global or closure lookup per comparison would double the cost of the fast path.
def _mul(a: Any, b: Any) -> Any:
    # One small factor is enough: small * big costs linear time and memory in the big one.
    if type(a) is int is type(b):
        if -4611686018427387904 < a < 4611686018427387904 or -4611686018427387904 < b < 4611686018427387904:
            return a * b
    elif type(a) is float:
        return a * b
    return mul_slow(a, b, operator.mul)


def _imul(a: Any, b: Any) -> Any:
    # One small factor is enough: small * big costs linear time and memory in the big one.
    if type(a) is int is type(b):
        if -4611686018427387904 < a < 4611686018427387904 or -4611686018427387904 < b < 4611686018427387904:
            return a * b
    elif type(a) is float:
        a *= b
        return a
    return mul_slow(a, b, operator.imul)


# -- ** ------------------------------------------------------------------------------------
def pow_slow(a: Any, b: Any, op: Binop) -> Any:
    price_pow(a, b)
    return op(a, b)


def price_pow(a: Any, b: Any) -> None:
    """Charge ``a ** b`` (refuse it when too big or too slow) without computing it."""
    if isinstance(a, int) and isinstance(b, int) and as_index(b) > 0:
        a, b = as_index(a), as_index(b)  # int subclasses: priced on their digits
        bits = int_pow_bits(a, b)
        if bits:
            budget = current_or_default()
            budget.check_alloc(int_bytes(bits))
            # Repeated squaring: the last squaring dominates (measured: 1.0-1.3x of it in total).
            # Powers of two square in linear time (mostly zero digits): only the size counts.
            if a & (a - 1):
                budget.check_work(1.3 * int_mul_ns(bits // 2, bits // 2))
    else:
        check_operands(a, b, pow_=True)


def pow_modular_check(base: Any, exp: Any, mod: Any) -> None:
    """``pow(base, exp, mod)``: one modular squaring (and at most one multiplication) of
    ``mod``'s size per bit of ``|exp|``, after a modular inverse (an extended gcd) when
    ``exp < 0``. A small modulus does not make it free: ``exp`` can have millions of bits."""
    if isinstance(base, int) and isinstance(exp, int) and isinstance(mod, int):
        e, m = as_index(exp), as_index(mod)  # int subclasses: priced on their digits
        mbits, ebits = m.bit_length(), abs(e).bit_length()
        if mbits > 64 or ebits > 64:
            budget = current_or_default()
            if e < 0:
                budget.check_work(gcd_ns(max(mbits, as_index(base).bit_length())))
            per_step = max(_MODMUL_MIN_NS, int_mul_ns(mbits, mbits) + int_div_ns(2 * mbits, mbits))
            budget.check_work(ebits * 1.5 * per_step)
    else:
        check_decimal_pow_mod(base, exp, mod)


def _make_pow(op: Binop) -> Binop:
    def pow_(a: Any, b: Any) -> Any:
        if type(a) is int is type(b) and 0 <= b < 64 and -4294967296 < a < 4294967296:
            return a**b
        if type(a) is float and type(b) is float:
            return a**b
        return pow_slow(a, b, op)

    return pow_


# -- << ------------------------------------------------------------------------------------
def lshift_slow(a: Any, b: Any, op: Binop) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        x, y = as_index(a), as_index(b)  # int subclasses: priced on their digits
        if 0 < y <= sys.maxsize and x:
            charge_bytes(int_bytes(x.bit_length() + y))
    return op(a, b)


def _make_lshift(op: Binop) -> Binop:
    def lshift(a: Any, b: Any) -> Any:
        if type(a) is int is type(b) and 0 <= b < 64 and -4611686018427387904 < a < 4611686018427387904:
            return op(a, b)
        return lshift_slow(a, b, op)

    return lshift


# -- + -------------------------------------------------------------------------------------
def add_slow(a: Any, b: Any, op: Binop) -> Any:
    if isinstance(a, SEQ_TYPES) and isinstance(b, SEQ_TYPES):
        if len(a) + len(b) > _SMALL_SEQ:
            charge_bytes(sys.getsizeof(a) + sys.getsizeof(b))
    else:
        check_operands(a, b)
        if not (isinstance(a, Number) and isinstance(b, Number)):  # numbers: priced just above
            return host_slot(a, b, op, "__iadd__" if op is operator.iadd else "__add__", "__radd__")
    return op(a, b)


def _add(a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is int or ta is float:
        return a + b
    return add_slow(a, b, operator.add)


def _iadd(a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is int or ta is float:
        a += b
        return a
    if ta is list or _extends_in_c(ta, "__iadd__"):
        if b is a and not isinstance(a, list):
            # ``d += d``: C copies the deque's items first (an iterator over it raised
            # RuntimeError, a mutation during iteration): priced as ``metered`` prices a list's
            n = deque.__len__(a)
            charge_items(n, 8 * n)
            a += a
            return a
        # list/deque += iterable is extend: C pulls the items, through the metered door
        a += metered(b)
        return a
    return add_slow(a, b, operator.iadd)


# host types whose ``+=`` (``__iadd__``) extends from any iterable and whose ``|=``
# (``__ior__``) updates from any mapping or iterable of pairs, in one C loop
_C_EXTENDERS: dict[str, tuple[type, ...]] = {"__iadd__": (list, deque), "__ior__": (dict, OrderedDict)}


def _extends_in_c(tp: type, name: str) -> bool:
    """``tp``'s ``name`` is one of ``_C_EXTENDERS`` (inherited by a subclass too)."""
    for klass in tp.__mro__:
        if name in klass.__dict__:
            return klass in _C_EXTENDERS[name]
    return False


def _ior(a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is int or ta is bool:
        a |= b
        return a
    if ta is dict and type(b) is dict and len(b) <= SMALL:
        a |= b  # a short copy from a dict's table: free, as ``metered`` would leave it
        return a
    if ta is dict or _extends_in_c(ta, "__ior__"):
        a |= update_source(b)  # dict/OrderedDict |= pulls the items in C: the metered door
        return a
    a |= b
    return a


# -- % and // ------------------------------------------------------------------------------
# every type the slot table routes here that formats printf-style (bytearray too)
_PRINTF = (str, bytes, bytearray)


def divlike_slow(a: Any, b: Any, op: Binop) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        current_or_default().check_work(int_div_ns(as_index(a).bit_length(), as_index(b).bit_length()))
    elif op is not operator.floordiv and op is not operator.ifloordiv and isinstance(a, _PRINTF):
        for value in b if type(b) is tuple else (b,):
            check_to_int(value)  # '%d' % Decimal('1E+999999') converts it to an exact int
        width = percent_format_width(a, b)
        if width > _SMALL_SEQ:
            charge_bytes(len(a) + width * (4 if isinstance(a, str) else 1))
        # %r/%a/%s of big text: escaping can multiply it (``x = 'f(%r)' % x`` in a loop)
        text = repr_bytes(b)
        if text:
            current_or_default().check_alloc(len(a) + text)
    else:
        check_operands(a, b)
        numbers = isinstance(a, Number) and isinstance(b, Number)
        if (op is operator.mod or op is operator.imod) and not numbers:
            return host_slot(a, b, op, "__imod__" if op is operator.imod else "__mod__", "__rmod__")
    return op(a, b)


def _make_divlike(op: Binop) -> Binop:
    def divlike(a: Any, b: Any) -> Any:
        if type(a) is int is type(b) and -4611686018427387904 < a < 4611686018427387904:
            return op(a, b)
        if type(a) is float:
            return op(a, b)
        return divlike_slow(a, b, op)

    return divlike


# -- - and / ------------------------------------------------------------------------------
def _make_exact(op: Binop) -> Binop:
    """``-`` and ``/``: only exact non-int numbers (Fraction, Decimal) can make them costly."""

    def exact_op(a: Any, b: Any) -> Any:
        ta = type(a)
        if ta is int or ta is float:
            tb = type(b)
            if tb is int or tb is float:
                return op(a, b)
        check_operands(a, b)
        return op(a, b)

    return exact_op


# -- in ------------------------------------------------------------------------------------
_CONTAINERS = (list, tuple, str, bytes, bytearray, dict, set, frozenset, range)


def guarded_contains(item: Any, container: Any) -> bool:
    """``item in container`` where an iterator without ``__contains__`` (``itertools.count()``)
    is scanned through a counting iterator instead of an endless C loop."""
    if type(container) is range and type(item) is not int and type(item) is not bool:
        # a non-int item makes range scan every element in C (``0.5 in range(10**18)``)
        return not all(x is not item and x != item for x in counting(container))
    if isinstance(container, _CONTAINERS) or hasattr(type(container), "__contains__"):
        return keyed(item) in container  # hashed or compared whole in C: a shared nested item
    return item in counting(container)


def counting(iterable: Iterable[Any]) -> Iterator[Any]:
    """Iterate ``iterable`` charging one op per element to the running budget, so a host C
    consumer (extend, join, sum...) of an endless or huge iterator hits a limit (the one
    metered iterator, ``iteration.TickingIterator``)."""
    return TickingIterator(iterable)


# -- table ---------------------------------------------------------------------------------
_TABLE: dict[tuple[type[ast.operator], bool], Binop] = {
    (ast.Mult, False): _mul,
    (ast.Mult, True): _imul,
    (ast.Pow, False): _make_pow(operator.pow),
    (ast.Pow, True): _make_pow(operator.ipow),
    (ast.LShift, False): _make_lshift(operator.lshift),
    (ast.LShift, True): _make_lshift(operator.ilshift),
    (ast.Add, False): _add,
    (ast.Add, True): _iadd,
    (ast.BitOr, True): _ior,
    (ast.Mod, False): _make_divlike(operator.mod),
    (ast.Mod, True): _make_divlike(operator.imod),
    (ast.FloorDiv, False): _make_divlike(operator.floordiv),
    (ast.FloorDiv, True): _make_divlike(operator.ifloordiv),
    (ast.Sub, False): _make_exact(operator.sub),
    (ast.Sub, True): _make_exact(operator.isub),
    (ast.Div, False): _make_exact(operator.truediv),
    (ast.Div, True): _make_exact(operator.itruediv),
}


def guarded_binop(op_type: type[ast.operator], inplace: bool = False) -> Binop | None:
    """The guarded implementation of ``op_type`` (in-place form when ``inplace``), or None
    when the plain ``operator`` function is safe."""
    return _TABLE.get((op_type, inplace))
