"""Guarded builtins, constructors, methods and module functions: charge the work, check sizes.

A single host C call can consume an endless iterator (``sum(itertools.count())``), allocate
gigabytes (``'a'.ljust(10**10)``, ``bytes(10**10)``) or run for hours (``math.factorial(10**8)``)
and cannot be interrupted once started. The replacements here charge the running budget up
front (``len`` of an exact builtin container, in one ``charge(n)``), check the size of what
they will allocate (``check_alloc``), feed unsized inputs through a counting iterator (one op
per element, so ops/time/memory are checked every chunk), and otherwise call the C builtin:
same results, same exceptions and messages as CPython for normal inputs.

The tables and how to merge them:

``GUARDED_BUILTINS: dict[str, Callable]``
    Plain functions (sum, min, max, sorted, any, all, format, pow, divmod, repr, ascii):
    the membrane's BUILTINS maps the name to these instead of the C builtin.

``GUARDED_CONSTRUCTORS: dict[type, Callable]``
    For the builtin TYPES (list, tuple, set, frozenset, dict, bytes, bytearray, str, int).
    They must stay the real types in the guest's builtins (``isinstance(x, list)``,
    ``type(x) is list``, ``class L(list)``, ``list[int]`` all need the real type), so the
    interpreter's call path does ``if type(f) is type: f = GUARDED_CONSTRUCTORS.get(f, f)``
    before calling. The guard returns an instance of the real type.

``GUARDED_METHODS: dict[type, dict[str, Callable]]``
    Calling convention ``fn(self_obj, *args, **kwargs)``, the same signature as the unbound
    method (``str.ljust(s, 10)``). The membrane's get_attr, for ``obj.name`` where some class
    in ``type(obj).__mro__`` has an entry for ``name``, returns ``functools.partial(fn, obj)``
    (or its own bound wrapper); for ``str.ljust`` read on the type itself it returns ``fn``.
    ``dict.fromkeys`` is called as ``fn(dict_or_instance, iterable, value=None)``.
    ``str.format``/``format_map`` are NOT here: the membrane's formatter owns them and calls
    ``check_format_spec(spec)`` on every field's spec (also for f-strings and ``format()``).

``GUARDED_MODULE_ATTRS: dict[str, dict[str, Callable]]``
    For the curated ``math`` and ``itertools`` wrappers: module name -> attribute -> guard.

Deep nesting: ``repr``/``str`` of deeply nested data raise CPython's ``RecursionError`` cleanly
as long as the host recursion limit stays at or below ~30 000 on an 8 MiB stack (measured:
100 000 segfaults). The guards convert it to ``RecursionLimit``; the interpreter must do the
same around ``==``, ``hash`` and ``print`` (``recursion_guard`` below) and never raise the
host limit above ``HOST_RECURSION_CAP``.
"""

from __future__ import annotations

import ast
import builtins
import collections
import itertools
import math
import operator
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

from safe_eval.errors import RecursionLimit
from safe_eval.interpreter.identity import is_guest_class
from safe_eval.limits.budget import Budget, current_or_default, depth_limit_of
from safe_eval.limits.estimates import (
    SEQ_TYPES,
    format_spec_width,
    int_bytes,
    int_div_ns,
    int_mul_ns,
    int_str_ns,
    known_len,
    repr_bytes,
)
from safe_eval.limits.indices import as_index, as_optional_index
from safe_eval.limits.iteration import g_iter, lazy_adapter, range_contains
from safe_eval.limits.numbers import check_operands, check_to_int, gcd_ns
from safe_eval.limits.operators import (
    counting,
    guarded_binop,
    mul_slow,
    pow_modular_check,
    price_pow,
    price_slice,
)
from safe_eval.limits.sharing import check_walk
from safe_eval.limits.stack import HOST_RECURSION_CAP
from safe_eval.limits.tables import keyed_pairs, keyed_source

# decimal (about 3 ms to import) is loaded with the membrane's stdlib types: see
# ``stdlib_guarded_methods``
if TYPE_CHECKING:
    import decimal

__all__ = [
    "GUARDED_BUILTINS",
    "GUARDED_CONSTRUCTORS",
    "GUARDED_METHODS",
    "GUARDED_MODULE_ATTRS",
    "HOST_RECURSION_CAP",
    "check_construct",
    "check_format_spec",
    "construct_args",
    "is_constructor_slot",
    "prepare",
    "price_round",
    "price_text",
    "recursion_guard",
    "stdlib_guarded_methods",
]


# Any/all short-circuit: charging the whole length up front is only fair for small inputs.
_SHORT_CIRCUIT_UPFRONT = 100_000
_BIG = 1 << 16  # sizes below this skip the allocation estimate
_INT_STR_FREE_BITS = 14_000  # ~4 300 decimal digits: CPython's default conversion limit

F = TypeVar("F", bound=Callable[..., Any])


# -- helpers -------------------------------------------------------------------------------
def prepare(iterable: Any, item_bytes: int = 0, budget: Budget | None = None) -> Any:
    """Charge consuming ``iterable`` (and allocating ``item_bytes`` per element): in one go for
    an exact builtin container, else per element through a counting iterator."""
    b = budget or current_or_default()
    n = known_len(iterable)
    if n is None:
        return counting(iterable)
    if item_bytes and n > _BIG // 8:
        b.check_alloc(n * item_bytes)
    b.charge(n)
    return iterable


def recursion_guard(fn: F) -> F:
    """Convert a host ``RecursionError`` (deeply nested data in a C-level repr/==/hash) into
    ``RecursionLimit``: guest recursion is stopped by the budget long before the host's limit,
    so a RecursionError here always means nested data, never a guest bug."""

    @wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RecursionError as e:
            if depth_limit_of(e) is not None:  # the guest's own limit, in guest code fn called:
                raise  # catchable by the guest as in CPython
            raise RecursionLimit("data nested too deeply", value=current_or_default().max_depth) from None

    return guarded  # type: ignore[return-value]  # same signature as fn


def check_format_spec(spec: str, budget: Budget | None = None) -> None:
    """Refuse a ``format()`` spec whose width/precision would build a huge string."""
    width = format_spec_width(spec) if type(spec) is str else 0
    if width > _BIG:
        (budget or current_or_default()).check_alloc(width * 4)


def _check_int_str(bits: int) -> None:
    """Decimal conversion of a huge int is quadratic; CPython refuses above 4 300 digits unless
    the host lifted ``sys.set_int_max_str_digits``: then charge the estimated time."""
    if bits > _INT_STR_FREE_BITS:
        limit = sys.get_int_max_str_digits()
        if limit == 0 or limit * 3.33 > _INT_STR_FREE_BITS:
            current_or_default().check_work(int_str_ns(bits))


def _check_alloc(nbytes: int) -> None:
    if nbytes > _BIG:
        b = current_or_default()
        b.check_alloc(nbytes)
        b.charge(nbytes // 64)


# -- builtins ------------------------------------------------------------------------------
_NUMBERS = (int, float, complex)


def _binop(op_type: type[ast.operator]) -> Callable[[Any, Any], Any]:
    fn = guarded_binop(op_type)
    assert fn is not None
    return fn


_add = _binop(ast.Add)
_pow = _binop(ast.Pow)


def g_sum(iterable: Iterable[Any], /, start: Any = 0) -> Any:
    items = prepare(iterable)
    if type(start) in _NUMBERS or isinstance(start, str | bytes | bytearray):
        return builtins.sum(items, start)  # str/bytes start: CPython's own TypeError
    # Non-numeric start (lists, tuples): each step is a concatenation that can grow
    # quadratically inside one C call; do it step by step with the size check.
    acc = start
    for item in items:
        acc = _add(acc, item)
    return acc


def _minmax(fn: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1:
            return fn(prepare(args[0]), **kwargs)
        current_or_default().charge(len(args))
        return fn(*args, **kwargs)

    return guarded


def g_sorted(*args: Any, key: Any = None, reverse: bool = False) -> list[Any]:
    if len(args) != 1:  # CPython's message, not the missing-argument one of a Python signature
        raise TypeError(f"sorted expected 1 argument, got {len(args)}")
    return builtins.sorted(prepare(args[0], 8), key=key, reverse=reverse)


def _short_circuit(fn: Callable[[Iterable[Any]], bool]) -> Callable[[Iterable[Any]], bool]:
    @wraps(fn)
    def guarded(iterable: Iterable[Any], /) -> bool:
        n = known_len(iterable)
        if n is not None and n <= _SHORT_CIRCUIT_UPFRONT:
            current_or_default().charge(n)
            return fn(iterable)
        return fn(counting(iterable))

    return guarded


def g_format(value: Any, format_spec: str = "", /) -> str:
    check_format_spec(format_spec)
    if not format_spec and shown_text(value) is not None:
        return shown_text(value)  # type: ignore[return-value]
    if format_spec:
        from safe_eval.limits.routines import slot_price  # routines imports this module

        priced = slot_price(type(value), "__format__")  # format(date, '%c' * 10**7): strftime
        if priced is not None:
            return priced(value, format_spec)  # type: ignore[no-any-return]
    if type(value) is int and format_spec[-1:] not in ("b", "o", "x", "X", "c"):
        _check_int_str(value.bit_length())
    return builtins.format(value, format_spec)


def g_pow(base: Any, exp: Any, mod: Any = None) -> Any:
    if mod is None:
        return _pow(base, exp)
    pow_modular_check(base, exp, mod)
    return builtins.pow(base, exp, mod)


def g_divmod(a: Any, b: Any, /) -> Any:
    if type(a) is int and type(b) is int:
        if a.bit_length() > 62:
            current_or_default().check_work(int_div_ns(a.bit_length(), b.bit_length()))
    else:
        check_operands(a, b)
    return builtins.divmod(a, b)


def price_round(number: Any, ndigits: Any) -> Any:
    """``round(number, ndigits)``: ``round(Decimal('1E+999999'))`` builds a million-digit int in
    one C call; ``round(7, -10**7)`` computes ``10 ** 10**7`` first, and
    ``round(Fraction(1, 3), 10**7)`` does in ``fractions``' Python code. Returns ``ndigits`` as
    the routine must receive it (read once, for the host number types)."""
    if ndigits is None:
        check_to_int(number)
        return None
    if isinstance(number, int | float):  # their __round__ reads ndigits with __index__
        ndigits = as_index(ndigits)
        if ndigits < 0 and isinstance(number, int):
            price_pow(10, -ndigits)
    elif isinstance(number, _fraction_type()):
        ndigits = as_index(ndigits)  # ``Fraction.__round__`` computes ``10 ** abs(ndigits)``
        price_pow(10, abs(ndigits))
    return ndigits


def _fraction_type() -> Any:
    # fractions is loaded with the membrane's stdlib types; before that no Fraction exists
    module = sys.modules.get("fractions")
    return module.Fraction if module is not None else ()


def g_round(number: Any, ndigits: Any = None) -> Any:
    ndigits = price_round(number, ndigits)
    return builtins.round(number, ndigits)


def construct_args(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """The arguments of a guest subclass of a builtin type, paid for as the builtin's own
    constructor routine will read them (``class T(tuple): pass``, ``T(G())``: tuple's C code
    sizes its copy by ``G.__len__`` and pulls the items with no guest code per item). None when
    a guest class in the MRO defines ``__new__``/``__init__``: guest code receives the arguments
    as given, and its ``super()`` call reaches the priced routine (``_CONSTRUCTOR_SLOTS``)."""
    for klass in cls.__mro__:
        if klass is collections.defaultdict:  # dict's arguments after the default factory
            return (*args[:1], *_priced_args(dict, tuple(args[1:]), kwargs)) if args else args
        if klass in _CONSTRUCTOR_SLOTS:
            return _priced_args(klass, args, kwargs)
        if is_guest_class(klass) and ("__new__" in klass.__dict__ or "__init__" in klass.__dict__):
            return None
    return None


def check_construct(cls: type, args: tuple[Any, ...]) -> None:
    """A guest subclass of a host type is built by the host type's C constructor: the sizes its
    arguments ask for are checked as for the host type (``class B(bytearray)``, ``B(2**31)``)."""
    if len(args) == 1 and issubclass(cls, bytes | bytearray):
        source = args[0]
        if _is_size(source):
            _check_alloc(as_index(source))


def price_text(obj: Any) -> None:
    """Refuse ``repr``/``str``/``format`` text of data too big to build (``estimates.repr_bytes``)."""
    if type(obj) is not str:
        nbytes = repr_bytes(obj)
        if nbytes:
            current_or_default().check_alloc(nbytes)


# Host callables shown to the guest under CPython's text (``<built-in function print>``, not the
# Python function that guards it): id -> (the object, its text). Filled by the module that owns
# the callable (``show_as``); read by the text builtins below, never keyed by guest objects.
_SHOWN: dict[int, tuple[object, str]] = {}


def show_as(obj: object, text: str) -> None:
    """Let ``repr``/``str``/``ascii`` of the host object ``obj`` answer ``text``."""
    _SHOWN[id(obj)] = (obj, text)


def shown_text(obj: object) -> str | None:
    """The text registered for ``obj`` through ``show_as`` (None: none)."""
    entry = _SHOWN.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def _priced_text(fn: Callable[[Any], str]) -> Callable[[Any], str]:
    """``repr``/``ascii``/``str`` of data: escaping can make the text many times the data (a
    loop of ``x = repr(x)`` doubles a string per step in one C call each), so the result is
    priced before the call (``estimates.repr_bytes``). ``str`` of a str is the str itself."""
    raw = recursion_guard(fn)
    identity_on_str = fn is builtins.str

    def priced(obj: Any) -> str:
        if identity_on_str and type(obj) is str:
            return obj
        entry = _SHOWN.get(id(obj))
        if entry is not None and entry[0] is obj:
            return entry[1]
        nbytes = repr_bytes(obj)
        if nbytes:
            current_or_default().check_alloc(nbytes)
        return raw(obj)

    priced.__name__ = priced.__qualname__ = fn.__name__
    priced.__doc__ = fn.__doc__
    return priced


@recursion_guard
def g_hash(obj: Any, /) -> int:
    check_walk(obj)  # a shared nested tuple: 81 objects, 2**80 nodes to hash
    return builtins.hash(obj)


g_repr = _priced_text(builtins.repr)
g_ascii = _priced_text(builtins.ascii)
g_text = _priced_text(builtins.str)

GUARDED_BUILTINS: dict[str, Callable[..., Any]] = {
    "sum": g_sum,
    "min": _minmax(builtins.min),
    "max": _minmax(builtins.max),
    "sorted": g_sorted,
    "any": _short_circuit(builtins.any),
    "all": _short_circuit(builtins.all),
    "format": g_format,
    "pow": g_pow,
    "divmod": g_divmod,
    "repr": g_repr,
    "ascii": g_ascii,
    "iter": g_iter,
    "round": g_round,
    "hash": g_hash,
}
for _name, _guard in GUARDED_BUILTINS.items():  # a guest's TypeError names the builtin (sorted())
    _guard.__name__ = _guard.__qualname__ = _name


# -- constructors of builtin types -----------------------------------------------------------
# Bytes per element a constructor of these collections allocates (a list slot; a set entry).
_ITEM_BYTES: dict[type, int] = {list: 8, tuple: 8, set: 40, frozenset: 40}


def _priced_args(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The positional arguments of builtin ``cls``'s constructor as its C code may receive
    them, paid for: an iterable it consumes through ``prepare``, a size it allocates checked
    (read once), a text conversion priced. The one price of the construction, whichever path
    runs it: calling the type (``GUARDED_CONSTRUCTORS``) or its ``__new__``/``__init__`` read
    as an attribute (``tuple.__new__(tuple, it)``, ``super().__init__(it)``: ``_CONSTRUCTOR_SLOTS``)."""
    if len(args) != 1:
        if cls is int and args and type(args[0]) is str and len(args[0]) > 4300:
            base = args[1] if len(args) > 1 else kwargs.get("base", 10)
            if base not in (2, 4, 8, 16, 32):
                _check_int_str(int(len(args[0]) * 3.33))
        return args
    source = args[0]
    if cls is dict:
        if not hasattr(type(source), "keys"):
            return (keyed_pairs(prepare(source, 100)),)
        n = known_len(source)
        if n:
            current_or_default().charge(n)
        return args
    if cls is int:
        check_to_int(source)  # int(Decimal('1E+999999')): a quadratic base conversion
        if type(source) is str and len(source) > 4300 and kwargs.get("base", 10) not in (2, 4, 8, 16, 32):
            _check_int_str(int(len(source) * 3.33))
        return args
    if kwargs:
        return args
    item_bytes = _ITEM_BYTES.get(cls)
    if item_bytes is not None:
        copy = prepare(source, item_bytes)
        return (keyed_source(copy) if cls is set or cls is frozenset else copy,)
    if cls is bytes or cls is bytearray:
        if _is_size(source):
            size = as_index(source)  # read once: the size priced is the size allocated
            _check_alloc(size)
            return (size,)
        if not isinstance(source, str | bytes | bytearray | memoryview):
            return (prepare(source, 1),)
        return args
    if cls is str:
        if type(source) is int:
            _check_int_str(source.bit_length())
        elif type(source) is not str:
            shown = shown_text(source)
            if shown is not None:  # str(min): the builtin's text, as repr and f-strings give
                return (shown,)
            price_text(source)
    return args


def _constructor(cls: type) -> Callable[..., Any]:
    """Calling builtin type ``cls`` from guest code (it stays the real type for the guest)."""

    def construct(*args: Any, **kwargs: Any) -> Any:
        return cls(*_priced_args(cls, args, kwargs), **kwargs)

    construct.__name__ = construct.__qualname__ = cls.__name__
    construct.__doc__ = cls.__doc__
    return recursion_guard(construct) if cls is str else construct


def _constructor_slot(cls: type, name: str) -> Callable[..., Any]:
    """``cls.__new__(klass, ...)`` / ``cls.__init__(self, ...)`` of a builtin type, read as an
    attribute: the routine the call of ``cls`` runs, at the same price."""
    raw = cls.__dict__[name]
    slot: Callable[..., Any]
    if name == "__new__":

        def new(klass: Any, *args: Any, **kwargs: Any) -> Any:
            return raw(klass, *_priced_args(cls, args, kwargs), **kwargs)

        slot = new
    else:

        def init(self: Any, *args: Any, **kwargs: Any) -> None:
            raw(self, *_priced_args(cls, args, kwargs), **kwargs)

        slot = init
    slot.__name__ = slot.__qualname__ = name
    return recursion_guard(slot) if cls is str else slot


def _is_size(source: Any) -> bool:
    """``bytes(source)``/``bytearray(source)`` reads ``source`` as a size (zero bytes): CPython
    tries the buffer protocol, then ``__index__`` (``bytes(K())`` with a guest ``__index__``)."""
    if isinstance(source, str | bytes | bytearray | memoryview) or hasattr(type(source), "__bytes__"):
        return False
    return hasattr(type(source), "__index__")


# the routine each builtin type's constructor runs on its arguments (the other one ignores them)
_CONSTRUCTOR_SLOTS: dict[type, str] = {
    list: "__init__", tuple: "__new__", set: "__init__", frozenset: "__new__", dict: "__init__",
    bytes: "__new__", bytearray: "__init__", str: "__new__", int: "__new__",
}


GUARDED_CONSTRUCTORS: dict[type, Callable[..., Any]] = {
    **{cls: _constructor(cls) for cls in _CONSTRUCTOR_SLOTS},
    # lazy C iterator adapters: filter's search for a match is a C loop over its input
    map: lazy_adapter(map),
    filter: lazy_adapter(filter),
    zip: lazy_adapter(zip),
    enumerate: lazy_adapter(enumerate),
}


# -- methods -------------------------------------------------------------------------------
def _pad(name: str) -> Callable[..., Any]:
    def pad(self: Any, width: Any, *args: Any) -> Any:
        width = as_index(width)
        if width > len(self):
            _check_alloc(width * (4 if isinstance(self, str) else 1))
        return getattr(type(self), name)(self, width, *args)

    pad.__name__ = name
    return pad


def _zfill(self: Any, width: Any) -> Any:
    width = as_index(width)
    if width > len(self):
        _check_alloc(width * (4 if isinstance(self, str) else 1))
    return type(self).zfill(self, width)


def _expandtabs(self: Any, tabsize: Any = 8) -> Any:
    tabsize = as_index(tabsize)
    if tabsize > 1:
        tab = "\t" if isinstance(self, str) else b"\t"
        _check_alloc(len(self) + self.count(tab) * tabsize * (4 if isinstance(self, str) else 1))
    return type(self).expandtabs(self, tabsize)


def _join(self: Any, iterable: Any) -> Any:
    items = iterable if type(iterable) in (list, tuple) else list(prepare(iterable, 8))
    current_or_default().charge(len(items))
    if len(items) > 1:
        total = len(self) * (len(items) - 1)
        for item in items:
            if isinstance(item, str | bytes | bytearray):
                total += len(item)
        _check_alloc(total * (4 if isinstance(self, str) else 1))
    return type(self).join(self, items)


def _replace(self: Any, old: Any, new: Any, count: Any = -1) -> Any:
    count = as_index(count)
    if isinstance(old, str | bytes | bytearray) and isinstance(new, str | bytes | bytearray):
        if len(new) > len(old) and len(self) * len(new) > _BIG:
            hits = len(self) + 1 if not old else self.count(old)
            if count >= 0:
                hits = min(hits, count)
            _check_alloc((len(self) + hits * (len(new) - len(old))) * (4 if isinstance(self, str) else 1))
    return type(self).replace(self, old, new, count)


def _translate(self: str, table: Any) -> str:
    if isinstance(table, dict) and len(self) > 1:
        longest = max((len(v) for v in table.values() if isinstance(v, str)), default=1)
        if longest > 1:
            _check_alloc(len(self) * longest * 4)
    return str.translate(self, table)


def _split(name: str) -> Callable[..., Any]:
    def split(self: Any, sep: Any = None, maxsplit: Any = -1) -> Any:
        maxsplit = as_index(maxsplit)
        if len(self) > _BIG // 8:
            pieces = self.count(sep) + 1 if sep else len(self) // 2 + 1
            if maxsplit >= 0:
                pieces = min(pieces, maxsplit + 1)
            # A list slot plus a small string object per piece.
            _check_alloc(pieces * 60)
        if name == "rsplit" and _reverse_is_slow(self, sep):
            self = _exact(self)
            kind = type(self)
            if maxsplit < 0:  # every separator: the same pieces as split's, searched forwards
                return kind.split(self, sep)
            _check_alloc(2 * len(self) * _char_bytes(self))
            return [p[::-1] for p in reversed(kind.split(self[::-1], sep[::-1], maxsplit))]
        return getattr(type(self), name)(self, sep, maxsplit)

    split.__name__ = name
    return split


# Reverse search (rfind/rindex/rpartition/rsplit) is CPython's ``default_rfind``: no two-way
# search, O(n*m) for a needle of m characters (40 000 in 400 000 characters: 3.6 s in one C
# call). Past these sizes it runs as a forward search of the reversed text instead (two-way:
# linear), the reversed copies priced; short needles keep the native call (at most m per
# position).
_REVERSE_NEEDLE = 64
_REVERSE_TEXT = 1 << 12


def _reverse_is_slow(self: Any, sub: Any) -> bool:
    # exact types only: a guest subclass's own methods (``__len__``, ``__getitem__``) are never
    # called from here (its data is read through ``_exact``)
    return (type(sub) in (str, bytes, bytearray) and sub.__len__() > _REVERSE_NEEDLE
            and isinstance(sub, str) == isinstance(self, str)
            and _exact(self).__len__() > _REVERSE_TEXT)


def _exact(text: Any) -> Any:
    """``text``'s data as its exact builtin type (a copy for a subclass instance)."""
    if type(text) in (str, bytes, bytearray):
        return text
    if isinstance(text, str):
        return str.__str__(text)
    return bytes(memoryview(text)) if isinstance(text, bytes) else bytearray(memoryview(text))


def _char_bytes(text: Any) -> int:
    return 4 if isinstance(text, str) else 1


def _rfind_forward(self: Any, sub: Any, start: Any, end: Any) -> int:
    """``self.rfind(sub, start, end)`` by a forward search of the reversed slice."""
    self = _exact(self)
    lo, hi, _ = slice(None if start is None else as_index(start),
                      None if end is None else as_index(end)).indices(len(self))
    if hi - lo < len(sub):
        return -1
    _check_alloc(2 * (hi - lo) * _char_bytes(self))
    at = self[lo:hi][::-1].find(sub[::-1])
    return -1 if at < 0 else hi - at - len(sub)


def _rfind(self: Any, sub: Any, start: Any = None, end: Any = None) -> int:
    if _reverse_is_slow(self, sub):
        return _rfind_forward(self, sub, start, end)
    found: int = type(self).rfind(self, sub, start, end)
    return found


def _rindex(self: Any, sub: Any, start: Any = None, end: Any = None) -> int:
    if _reverse_is_slow(self, sub):
        at = _rfind_forward(self, sub, start, end)
        if at < 0:
            raise ValueError("substring not found")
        return at
    found: int = type(self).rindex(self, sub, start, end)
    return found


def _rpartition(self: Any, sep: Any) -> Any:
    if _reverse_is_slow(self, sep):
        self = _exact(self)
        at = _rfind_forward(self, sep, None, None)
        kind = str if isinstance(self, str) else type(self)
        if at < 0:
            return (kind(), kind(), kind(self)) if kind is not bytearray else (
                bytearray(), bytearray(), bytearray(self))
        return (self[:at], sep if kind is not bytearray else bytearray(sep), self[at + len(sep):])
    return type(self).rpartition(self, sep)


def _extend(self: Any, iterable: Any) -> None:
    type(self).extend(self, prepare(iterable, 8))


def _sort(self: list[Any], *, key: Any = None, reverse: bool = False) -> None:
    current_or_default().charge(len(self))
    self.sort(key=key, reverse=reverse)


def _consuming(name: str) -> Callable[..., Any]:
    """set/frozenset methods that consume any number of iterables in C."""

    def method(self: Any, *others: Any) -> Any:
        return getattr(type(self), name)(self, *(keyed_source(prepare(o, 40)) for o in others))

    method.__name__ = name
    return method


def _dict_update(self: dict[Any, Any], *args: Any, **kwargs: Any) -> None:
    if len(args) == 1 and not hasattr(type(args[0]), "keys"):
        self.update(keyed_pairs(prepare(args[0], 100)), **kwargs)
    else:
        self.update(*args, **kwargs)


def _fromkeys(cls_or_self: Any, iterable: Any, value: Any = None) -> Any:
    cls: Any = cls_or_self if isinstance(cls_or_self, type) else type(cls_or_self)
    return cls.fromkeys(keyed_source(prepare(iterable, 100)), value)


def _to_bytes(self: int, length: Any = 1, byteorder: Any = "big", *, signed: bool = False) -> bytes:
    length = as_index(length)
    _check_alloc(length)
    return int.to_bytes(self, length, byteorder, signed=signed)


def _as_integer_ratio(self: decimal.Decimal) -> tuple[int, int]:
    check_to_int(self)
    return self.as_integer_ratio()


def _range_count(self: range, value: Any, /) -> int:
    if type(value) is int or type(value) is bool:
        return self.count(value)
    # a non-int value makes CPython compare it with every element in C
    return builtins.sum(1 for x in counting(self) if x is value or x == value)


def _range_index(self: range, value: Any, /) -> int:
    if type(value) is int or type(value) is bool or not range_contains(self, value):
        return self.index(value)
    for i, x in enumerate(counting(self)):
        if x is value or x == value:
            return i
    raise ValueError(f"{value!r} is not in range")  # pragma: no cover (range_contains said yes)


def _splitlines(self: Any, keepends: Any = False) -> Any:
    """A list slot and a small string object per line (``('ab\\n' * 10**7).splitlines()`` is
    ten million 52-byte strings from 30 MB of text), priced like ``split``."""
    if len(self) > _BIG // 8:
        if isinstance(self, str):
            pieces = 1 + builtins.sum(self.count(c) for c in _LINE_BREAKS)
        else:
            pieces = 1 + self.count(b"\n") + self.count(b"\r")
        _check_alloc(pieces * 60)
    return type(self).splitlines(self, keepends)


# what str.splitlines splits on (bytes: \n and \r only)
_LINE_BREAKS = ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def _text_slot(raw: Callable[[Any], str]) -> Callable[[Any], str]:
    """``__repr__`` of a host container other than the builtin ones (``slice``, ``deque``, dict
    views, ``OrderedDict`` ...): the text of its members, priced like ``repr`` of data."""

    def text(self: Any) -> str:
        price_text(self)
        return raw(self)

    text.__name__ = text.__qualname__ = getattr(raw, "__name__", "__repr__")
    return text


# Routines whose output can exceed their input, each priced by its output bound before the
# call: chained in one op chunk (``.hex(' ').encode()`` four times over) unpriced copies would
# multiply what a run holds before any sample sees it.
# bytes a character of ``str.encode`` at most: a UTF-16/32 code unit pair (and the BOM below);
# escapes and replacement handlers write up to ten (``\U0010ffff``, ``&#1114111;``), and
# ``namereplace`` a character's name (the longest is 83 characters)
_ESCAPING_CODECS = frozenset({"unicode_escape", "unicode-escape", "raw_unicode_escape", "raw-unicode-escape"})
_ESCAPING_ERRORS = frozenset({"xmlcharrefreplace", "backslashreplace"})


def _encode_factor(encoding: Any, errors: Any) -> int:
    if errors == "namereplace":
        return 90
    if errors in _ESCAPING_ERRORS or (isinstance(encoding, str) and encoding.lower() in _ESCAPING_CODECS):
        return 10
    return 4


def _encode(self: Any, encoding: Any = "utf-8", errors: Any = "strict") -> Any:
    _check_alloc(len(self) * _encode_factor(encoding, errors) + 8)
    return str.encode(self, encoding, errors)


def _decode(self: Any, encoding: Any = "utf-8", errors: Any = "strict") -> Any:
    # a character a byte at most, four bytes each in memory (one astral character widens them
    # all); an error handler may write ``\xNN`` for one byte
    factor = 4 if errors in ("strict", "ignore", "replace", "surrogateescape") else 16
    _check_alloc(len(self) * factor)
    return type(self).decode(self, encoding, errors)


def _hex(self: Any, *args: Any, **kwargs: Any) -> Any:
    # two digits a byte, and a one-character separator between groups
    _check_alloc(len(self) * (3 if args or kwargs else 2))
    return type(self).hex(self, *args, **kwargs)


def _case_map(name: str) -> Callable[..., Any]:
    """``str`` case maps: ASCII text maps to ASCII of the same length; other text may triple
    (``'ß'.upper()``), Latin-1 text widen to two bytes a character (``'ÿ'.upper()``), wider
    text to four."""

    def case_map(self: Any) -> Any:
        if not self.isascii():
            n = len(self)
            latin1 = sys.getsizeof(self) - sys.getsizeof("\xff") < 2 * n  # one byte a character
            _check_alloc(n * (6 if latin1 else 12))
        return getattr(str, name)(self)

    case_map.__name__ = name
    return case_map


def _text_methods(kind: type) -> dict[str, Callable[..., Any]]:
    table: dict[str, Callable[..., Any]] = {
        "ljust": _pad("ljust"),
        "rjust": _pad("rjust"),
        "center": _pad("center"),
        "zfill": _zfill,
        "expandtabs": _expandtabs,
        "join": _join,
        "replace": _replace,
        "split": _split("split"),
        "rsplit": _split("rsplit"),
        "splitlines": _splitlines,
        "rfind": _rfind,
        "rindex": _rindex,
        "rpartition": _rpartition,
    }
    if kind is str:
        table["translate"] = _translate
        table["encode"] = _encode
        for name in ("capitalize", "casefold", "lower", "swapcase", "title", "upper"):
            table[name] = _case_map(name)
    else:
        table["decode"] = _decode
        table["hex"] = _hex
    return table


_SET_CONSUMERS = (
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "issubset",
    "issuperset",
    "isdisjoint",
)
_SET_UPDATERS = ("update", "intersection_update", "difference_update", "symmetric_difference_update")

GUARDED_METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    str: _text_methods(str),
    bytes: _text_methods(bytes),
    bytearray: {**_text_methods(bytearray), "extend": _extend},
    list: {"extend": _extend, "sort": _sort},
    set: {name: _consuming(name) for name in _SET_CONSUMERS + _SET_UPDATERS},
    frozenset: {name: _consuming(name) for name in _SET_CONSUMERS},
    dict: {"update": _dict_update, "fromkeys": _fromkeys},
    int: {"to_bytes": _to_bytes},
    range: {"count": _range_count, "index": _range_index},
}
for _cls, _slot in _CONSTRUCTOR_SLOTS.items():
    GUARDED_METHODS.setdefault(_cls, {})[_slot] = _constructor_slot(_cls, _slot)


def _group_matcher(group: type, name: str) -> Callable[..., Any]:
    """``BaseExceptionGroup.split``/``subgroup``: CPython's C code takes a predicate only when it
    is a Python function, which a guest function is not (it is the interpreter's callable): a
    guest function is handed over as one that calls it (its arguments enter through the guest
    function's own call, as every host-to-guest call's do). Any other callable is refused by
    CPython as under CPython."""
    raw = getattr(group, name)

    def matcher(self: Any, condition: Any, /) -> Any:
        from safe_eval.interpreter.functions import Function

        if type(condition) is Function:
            guest = condition

            def condition(exc: BaseException) -> Any:
                return guest(exc)

        return raw(self, condition)

    matcher.__name__ = matcher.__qualname__ = name
    return matcher


if sys.version_info >= (3, 11):
    _group: type = builtins.BaseExceptionGroup
    GUARDED_METHODS[_group] = {name: _group_matcher(_group, name) for name in ("split", "subgroup")}
_SLOT_GUARDS = frozenset(id(GUARDED_METHODS[c][n]) for c, n in _CONSTRUCTOR_SLOTS.items())


def is_constructor_slot(fn: Any) -> bool:
    """``fn`` is the guard of a builtin type's ``__new__``/``__init__``: the type it is given
    first is data (the class to build), never a callback."""
    return id(fn) in _SLOT_GUARDS
_container: type
for _container in (slice, type({}.keys()), type({}.values()), type({}.items()),
                   collections.deque, collections.OrderedDict, collections.defaultdict,
                   collections.Counter, collections.ChainMap, collections.UserList, collections.UserDict):
    GUARDED_METHODS.setdefault(_container, {})["__repr__"] = _text_slot(_container.__repr__)


def stdlib_guarded_methods() -> dict[type, dict[str, Callable[..., Any]]]:
    """``GUARDED_METHODS``' entries for the types of stdlib modules the cold start does not
    import (``decimal.Decimal``). The membrane registers them, importing the modules, before
    any of those types can reach guest code (``allowlists.ensure_stdlib_types``)."""
    import decimal

    return {decimal.Decimal: {"as_integer_ratio": _as_integer_ratio}}


# -- math ----------------------------------------------------------------------------------
def _factorial(n: Any, /) -> int:
    n = as_index(n)
    if n > 1000:
        bits = int(n * math.log2(n))
        b = current_or_default()
        b.check_alloc(int_bytes(bits))
        # Divide-and-conquer product: dominated by the last few big multiplications.
        b.check_work(4 * int_mul_ns(bits // 2, bits // 2))
    return math.factorial(n)


def _big_combinatoric(n: int, k: int) -> None:
    """comb(n, k) and perm(n, k) have about k * log2(n) bits (``n``, ``k`` already read)."""
    if n > 1000 and k > 0:
        bits = int(k * math.log2(n))
        b = current_or_default()
        b.check_alloc(int_bytes(bits))
        b.check_work(4 * int_mul_ns(bits // 2, bits // 2))


def _comb(n: Any, k: Any, /) -> int:
    n, k = as_index(n), as_index(k)
    _big_combinatoric(n, min(k, n - k))
    return math.comb(n, k)


def _perm(n: Any, k: Any = None, /) -> int:
    n, k = as_index(n), as_optional_index(k)
    _big_combinatoric(n, n if k is None else k)
    return math.perm(n, k)


def _isqrt(n: Any, /) -> int:
    """Newton's iteration at doubling precision: its last division (``bits`` by ``bits/2``)
    dominates; measured 1.0-1.1x of ``int_div_ns(bits, bits // 2)`` in total (3.11)."""
    n = as_index(n)
    bits = n.bit_length()
    if bits > 4096:
        b = current_or_default()
        b.check_alloc(int_bytes(bits // 2 + 1))
        b.check_work(2 * int_div_ns(bits, bits // 2))
    return math.isqrt(n)


def _prod(iterable: Iterable[Any], /, *, start: Any = 1) -> Any:
    acc = start
    for item in counting(iterable):
        acc = mul_slow(acc, item, operator.mul)
    return acc


def _gcd_like(fn: Callable[..., int]) -> Callable[..., int]:
    """math.gcd/lcm of many ints: one C loop whose accumulator (lcm) grows with every step;
    done pairwise here so each step ticks and is charged by size."""

    @wraps(fn)
    def guarded(*args: Any) -> int:
        ints = [as_index(x) for x in args]  # a guest __index__ could return a bigger int later
        if len(ints) <= 2:
            if len(ints) == 2 and type(ints[0]) is int and type(ints[1]) is int:
                bits = max(ints[0].bit_length(), ints[1].bit_length())
                if bits > 4096:
                    current_or_default().check_work(gcd_ns(bits) + int_mul_ns(bits, bits))
            return fn(*ints)
        b = current_or_default()
        acc = fn(ints[0])
        for x in ints[1:]:
            bits = acc.bit_length() if type(acc) is int else 0
            b.charge(1 + bits // 256)
            acc = fn(acc, x)
        return acc

    return guarded


def _to_int(fn: Callable[[Any], int]) -> Callable[[Any], int]:
    """math.floor/ceil/trunc: a Decimal with a huge exponent becomes a huge exact int."""

    @wraps(fn)
    def guarded(x: Any, /) -> int:
        check_to_int(x)
        return fn(x)

    return guarded


def _dist(p: Any, q: Any, /) -> float:
    """``math.dist`` makes a tuple of each point in C, sized first by the point's ``__len__``
    (a guest point claiming 10**9 coordinates: an 8 GB tuple in one call): built here."""
    make = GUARDED_CONSTRUCTORS[tuple]
    return math.dist(p if type(p) is tuple else make(p), q if type(q) is tuple else make(q))


def _math_pow(x: Any, y: Any, /) -> float:
    return math.pow(x, y)  # floats only: bounded


# -- itertools -----------------------------------------------------------------------------
def _pools(iterables: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    make = GUARDED_CONSTRUCTORS[tuple]
    return [make(it) for it in iterables]


# Bytes per slot of the index arrays and result tuple the combinatoric iterators allocate.
_SLOT = 8


def _product(*iterables: Any, repeat: Any = 1) -> Iterator[tuple[Any, ...]]:
    repeat = as_index(repeat)
    pools = _pools(iterables)
    if repeat > 1:
        # CPython keeps len(pools) * repeat slots three times (the pools tuple, the indices,
        # the result tuple) whatever the pools hold: ``product([], repeat=10**9)`` too.
        _check_alloc(3 * _SLOT * len(pools) * repeat)
    return itertools.product(*pools, repeat=repeat)


def _permutations(iterable: Any, r: Any = None) -> Iterator[Any]:
    r = as_optional_index(r)
    pool = GUARDED_CONSTRUCTORS[tuple](iterable)
    n = len(pool)
    # indices (n), cycles (r, even when r > n) and the result tuple (r)
    _check_alloc(_SLOT * (n + 2 * (n if r is None else max(r, 0))))
    return itertools.permutations(pool, r)


def _with_r(fn: Callable[..., Iterator[Any]], name: str) -> Callable[..., Iterator[Any]]:
    """combinations/combinations_with_replacement: indices (r) and the result tuple (r)."""

    def guarded(iterable: Any, r: Any) -> Iterator[Any]:
        r = as_index(r)
        pool = GUARDED_CONSTRUCTORS[tuple](iterable)
        if r > 0:
            _check_alloc(2 * _SLOT * r)
        return fn(pool, r)

    guarded.__name__ = name
    return guarded


# ``operator``'s functions are the operators themselves (``operator.floordiv(1 << 4_000_000,
# 3 ** 1_000_000)`` is one quadratic C division): each gets the operator's own guard.
_OPERATOR_FUNCTIONS: dict[str, tuple[type[ast.operator], bool]] = {
    "mul": (ast.Mult, False), "imul": (ast.Mult, True),
    "pow": (ast.Pow, False), "ipow": (ast.Pow, True),
    "lshift": (ast.LShift, False), "ilshift": (ast.LShift, True),
    "add": (ast.Add, False), "iadd": (ast.Add, True),
    "concat": (ast.Add, False), "iconcat": (ast.Add, True),
    "mod": (ast.Mod, False), "imod": (ast.Mod, True),
    "floordiv": (ast.FloorDiv, False), "ifloordiv": (ast.FloorDiv, True),
    "sub": (ast.Sub, False), "isub": (ast.Sub, True),
    "truediv": (ast.Div, False), "itruediv": (ast.Div, True),
}


def _operator_function(name: str) -> Callable[[Any, Any], Any]:
    fn = guarded_binop(*_OPERATOR_FUNCTIONS[name])
    assert fn is not None, name
    if name.endswith("concat"):
        raw = getattr(operator, name)

        def concat(a: Any, b: Any, /) -> Any:
            if not hasattr(type(a), "__getitem__"):
                return raw(a, b)  # CPython's own TypeError ("object can't be concatenated")
            return fn(a, b)

        concat.__name__ = concat.__qualname__ = name
        return concat
    return fn


def _comparison(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``operator.eq`` ...: one C walk of both operands, priced like ``==`` (shared nesting)."""

    @wraps(fn)
    def compare(a: Any, b: Any, /) -> Any:
        check_walk(a, b)
        return fn(a, b)

    return compare


def _tee(iterable: Any, n: Any = 2, /) -> tuple[Any, ...]:
    """``tee(it, n)`` makes ``n`` iterator objects at once (about 64 bytes each)."""
    n = as_index(n)
    if n > 0:
        _check_alloc(64 * n)
    return itertools.tee(iterable, n)


def _getitem(a: Any, b: Any, /) -> Any:
    """``operator.getitem``: a slice of a sequence is the copy the subscript prices."""
    if type(b) is slice and type(a) in SEQ_TYPES:
        price_slice(a, b)
    return operator.getitem(a, b)


GUARDED_MODULE_ATTRS: dict[str, dict[str, Callable[..., Any]]] = {
    "operator": {
        **{name: _operator_function(name) for name in _OPERATOR_FUNCTIONS},
        "getitem": _getitem,
        **{name: _comparison(getattr(operator, name)) for name in ("eq", "ne", "lt", "le", "gt", "ge")},
    },
    "math": {
        "factorial": _factorial,
        "isqrt": _isqrt,
        "comb": _comb,
        "perm": _perm,
        "prod": _prod,
        "pow": _math_pow,
        "dist": _dist,
        "gcd": _gcd_like(math.gcd),
        "lcm": _gcd_like(math.lcm),
        "floor": _to_int(math.floor),
        "ceil": _to_int(math.ceil),
        "trunc": _to_int(math.trunc),
    },
    "itertools": {
        "product": _product,
        "permutations": _permutations,
        "tee": _tee,
        "combinations": _with_r(itertools.combinations, "combinations"),
        "combinations_with_replacement": _with_r(
            itertools.combinations_with_replacement, "combinations_with_replacement"
        ),
    },
}
