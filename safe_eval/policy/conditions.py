"""Argument conditions of tool rules: each a frozen, hashable value with compiled predicates.

    IsType("list[int]")        name: list[int]          typeguard, every item checked
    Equals("read")             name == "read"           (negate=True: !=)
    OneOf({"a", "b"})          name in {"a", "b"}       (negate=True: not in)
    InRange(1, 50)             name in 1..50            a real number, bounds inclusive, either open
    Matches(r"data/\\w+")      name matches r"..."      the WHOLE string (re.fullmatch)
    LenRange(1, 100)           name len 1..100          str, bytes, list, tuple, dict, set, frozenset

Values reach the conditions as plain copies (``plain.py``: exact builtin types), and a value
that could not be copied whole never reaches them (``rules.Arg``). Each condition has two
predicates: ``predicate(v)``, "the condition holds", and ``doubt(v)``, "the condition cannot be
evaluated on ``v``" (a ``matches`` on bytes, a range on a Decimal NaN or on a str, a length of
an int). Deny when in doubt: an ``allow`` rule needs ``predicate``; a ``deny`` rule fires when
each condition holds *or is in doubt*, so a value of an unexpected kind cannot slip past a deny.

    condition          evaluated on (elsewhere: in doubt)
    name: T            every plain value
    == v, in {..}      a value of the literal's own kind: str, bool, int, float or None (a bool
                       for `== 1`, a float for `== 1`, a list for `== "a"`, bytes, Decimal ...
                       are of another kind: the host may still treat them as equal)
    in lo..hi          int, float (not NaN), Decimal, Fraction (not bool)
    matches r"..."     str
    len lo..hi         str, bytes, bytearray, list, tuple, dict, set, frozenset
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from safe_eval.errors import PolicyError
from safe_eval.policy._text import quote, render_literal, render_number
from safe_eval.policy.outbound import Incomplete
from safe_eval.policy.types import compile_type, resolve_type

__all__ = [
    "Condition", "Equals", "InRange", "IsType", "LenRange", "Matches", "OneOf", "Predicate",
    "combine", "combine_doubtful",
]

Predicate = Callable[[Any], bool]

_NUMBER_TYPES = (int, float)
_SIZED = (str, bytes, bytearray, list, tuple, dict, set, frozenset)
# values that may stand for a literal without being equal to it (b"a" for "a", Decimal(1) for 1)
_STAND_INS = frozenset({bytes, bytearray, complex})


def _never(value: Any) -> bool:
    return False


def _stand_in(value: Any) -> bool:
    t = type(value)
    return t in _STAND_INS or t.__module__ in ("decimal", "fractions", "_decimal", "_pydecimal")


def _kind(value: Any) -> str | None:
    """Which literal family a plain value belongs to (None: not a plain value). ``==`` and
    ``in`` compare within a family (1 == 1.0), never across (True is not 1)."""
    t = type(value)
    if t is str:
        return "str"
    if t is bool:
        return "bool"
    if t is int or t is float:
        return "number"
    if value is None:
        return "none"
    return None


def _exact_kind(value: Any) -> type:
    # what a literal is told apart by when policies are compared and hashed, and what an
    # argument must share with a literal for a deny rule to be sure of `==`/`in`: True == 1
    # and 1 == 1.0 in Python, but a host may treat them differently (`if flag is True`,
    # `json.dumps`), and `deny f(x == True)` must not be the same rule as `deny f(x == 1)`
    return type(value)


def literal_key(value: Any) -> tuple[str, Any]:
    """A literal as its policies compare and hash it: ``(exact type name, value)``."""
    return (type(value).__name__, value)


def _check_literal(value: Any) -> None:
    if _kind(value) is None:
        raise PolicyError(f"{value!r} is not a policy literal (str, int, float, bool or None)")
    if isinstance(value, float) and not math.isfinite(value):
        raise PolicyError(f"{value!r} is not a finite number")


def _set_compiled(obj: object, predicate: Predicate, doubt: Predicate = _never) -> None:
    object.__setattr__(obj, "predicate", predicate)
    object.__setattr__(obj, "doubt", doubt)


class Condition:
    """One condition on one argument value: ``predicate`` (it holds) and ``doubt`` (it cannot be
    evaluated on that value; never both)."""

    __slots__ = ()
    predicate: Predicate
    doubt: Predicate

    def universal(self) -> bool:
        """True when every value meets it, looked at or not (``x: Any``): no condition at all,
        so a value that is not plain data may pass it."""
        return False

    def render(self) -> str:
        raise NotImplementedError

    def failure(self, value: Any) -> str:
        """Why ``value`` fails this condition, written for a model."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class IsType(Condition):
    """``name: T``: the value conforms to type ``T`` (text, resolved against an allowlist)."""

    text: str
    predicate: Predicate = field(init=False, repr=False, compare=False, hash=False)
    doubt: Predicate = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        canonical, hint = resolve_type(self.text)
        object.__setattr__(self, "text", canonical)
        _set_compiled(self, compile_type(hint))

    def universal(self) -> bool:
        return self.text in ("Any", "object")

    def render(self) -> str:
        return f": {self.text}"

    def failure(self, value: Any) -> str:
        return f"must be of type {self.text}, got {type(value).__name__}"


@dataclass(frozen=True, slots=True)
class Equals(Condition):
    """``name == v`` (or ``!=`` with ``negate``): plain values of the literal's kind only."""

    value: Any = field(compare=False)
    negate: bool = False
    # compared and hashed instead of ``value``: ``== True`` and ``== 1`` are different rules
    key: tuple[str, Any] = field(init=False, repr=False)
    predicate: Predicate = field(init=False, repr=False, compare=False, hash=False)
    doubt: Predicate = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        _check_literal(self.value)
        object.__setattr__(self, "key", literal_key(self.value))
        expected, kind, negate = self.value, _kind(self.value), self.negate
        exact = _exact_kind(expected)

        def equals(value: Any) -> bool:
            same = _kind(value) == kind and value == expected
            return same != negate and not _stand_in(value)

        def in_doubt(value: Any) -> bool:
            # a value of another kind than the literal's (1 for True, ["a"] for "a", b"a")
            return type(value) is not exact or _stand_in(value)

        _set_compiled(self, equals, in_doubt)

    def render(self) -> str:
        return f"{'!=' if self.negate else '=='} {render_literal(self.value)}"

    def failure(self, value: Any) -> str:
        verb = "must not be" if self.negate else "must be"
        return f"{verb} {render_literal(self.value)}, got {_show(value)}"


@dataclass(frozen=True, slots=True)
class OneOf(Condition):
    """``name in {a, b}`` (or ``not in``): plain values of the literals' kinds only."""

    # any iterable of literals (a list keeps ``{1, True}`` two values; a set would merge them)
    values: Iterable[Any] = field(compare=False)
    negate: bool = False
    # compared and hashed instead of ``values``: ``in {True}`` and ``in {1}`` are different rules
    key: frozenset[tuple[str, Any]] = field(init=False, repr=False)
    predicate: Predicate = field(init=False, repr=False, compare=False, hash=False)
    doubt: Predicate = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        unique: dict[tuple[str, Any], Any] = {}
        for v in self.values:
            _check_literal(v)
            unique.setdefault(literal_key(v), v)
        if not unique:
            raise PolicyError("`in {...}` needs at least one value")
        object.__setattr__(self, "values", tuple(unique.values()))
        object.__setattr__(self, "key", frozenset(unique))
        keyed = frozenset((_kind(v), v) for v in unique.values())
        exact = frozenset(_exact_kind(v) for v in unique.values())
        negate = self.negate

        def one_of(value: Any) -> bool:
            kind = _kind(value)
            return (kind is not None and (kind, value) in keyed) != negate and not _stand_in(value)

        def in_doubt(value: Any) -> bool:
            # a value of none of the literals' kinds (1 for {True}, ["a"] for {"a"}, b"a")
            return type(value) not in exact or _stand_in(value)

        _set_compiled(self, one_of, in_doubt)

    def sorted_values(self) -> list[Any]:
        return sorted(self.values, key=lambda v: (type(v).__name__, render_literal(v)))

    def render(self) -> str:
        items = ", ".join(render_literal(v) for v in self.sorted_values())
        return f"{'not in' if self.negate else 'in'} {{{items}}}"

    def failure(self, value: Any) -> str:
        items = ", ".join(render_literal(v) for v in self.sorted_values())
        verb = "must not be one of" if self.negate else "must be one of"
        return f"{verb} {items}, got {_show(value)}"


def _check_bounds(lo: int | float | None, hi: int | float | None, what: str) -> None:
    for b in (lo, hi):
        if b is not None and (type(b) not in _NUMBER_TYPES or not math.isfinite(b)):
            raise PolicyError(f"{what} bounds must be finite numbers, got {b!r}")
    if lo is None and hi is None:
        raise PolicyError(f"{what} needs at least one bound, e.g. 1..50, ..50 or 1..")
    if lo is not None and hi is not None and lo > hi:
        raise PolicyError(
            f"empty {what} {render_number(lo)}..{render_number(hi)}: the lower bound is above the upper"
        )


def _render_range(lo: int | float | None, hi: int | float | None) -> str:
    left = "" if lo is None else render_number(lo)
    right = "" if hi is None else render_number(hi)
    return f"{left}..{right}"


@dataclass(frozen=True, slots=True)
class InRange(Condition):
    """``name in lo..hi``: an int or float (not bool) within inclusive bounds (None: open)."""

    low: int | float | None = field(default=None, compare=False)
    high: int | float | None = field(default=None, compare=False)
    # compared and hashed instead of the bounds: 1..5 and 1.0..5.0 render differently
    key: tuple[tuple[str, Any], tuple[str, Any]] = field(init=False, repr=False)
    predicate: Predicate = field(init=False, repr=False, compare=False, hash=False)
    doubt: Predicate = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        _check_bounds(self.low, self.high, "range")
        object.__setattr__(self, "key", (literal_key(self.low), literal_key(self.high)))
        lo = -math.inf if self.low is None else self.low
        hi = math.inf if self.high is None else self.high

        def in_range(value: Any) -> bool:
            t = type(value)
            if t in _NUMBER_TYPES:
                return bool(lo <= value <= hi)
            if t.__module__ in ("decimal", "fractions", "_decimal", "_pydecimal"):
                try:
                    return bool(lo <= value <= hi)
                except ArithmeticError:  # a signalling Decimal NaN
                    return False
            return False

        def in_doubt(value: Any) -> bool:
            # a NaN, a bool, a str the host may turn into a number, a Decimal NaN ...
            t = type(value)
            if t is int:
                return False
            if t is float or t.__module__ in ("decimal", "fractions", "_decimal", "_pydecimal"):
                try:
                    return bool(value != value)
                except ArithmeticError:
                    return True
            return True

        _set_compiled(self, in_range, in_doubt)

    def render(self) -> str:
        return f"in {_render_range(self.low, self.high)}"

    def failure(self, value: Any) -> str:
        return f"must be a number in {_render_range(self.low, self.high)}, got {_show(value)}"


@dataclass(frozen=True, slots=True)
class LenRange(Condition):
    """``name len lo..hi``: a str/bytes/list/tuple/dict/set/frozenset of bounded length."""

    low: int | None = None
    high: int | None = None
    predicate: Predicate = field(init=False, repr=False, compare=False, hash=False)
    doubt: Predicate = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        _check_bounds(self.low, self.high, "length range")
        for b in (self.low, self.high):
            if b is not None and (type(b) is not int or b < 0):
                raise PolicyError(f"length bounds must be whole numbers >= 0, got {b!r}")
        lo = 0 if self.low is None else self.low
        hi = math.inf if self.high is None else self.high

        def len_range(value: Any) -> bool:
            n = _length(value)
            return n is not None and lo <= n <= hi

        _set_compiled(self, len_range, lambda value: _length(value) is None)

    def render(self) -> str:
        return f"len {_render_range(self.low, self.high)}"

    def failure(self, value: Any) -> str:
        n = _length(value)
        got = f"length {n}" if n is not None else f"a {type(value).__name__} without a length"
        return f"must have length {_render_range(self.low, self.high)}, got {got}"


def _length(value: Any) -> int | None:
    # the builtin type's __len__, not an override a guest subclass may define
    for t in _SIZED:
        if isinstance(value, t):
            n: int = t.__len__(value)  # type: ignore[arg-type]  # any of the sized types
            return n
    return None


@dataclass(frozen=True, slots=True)
class Matches(Condition):
    """``name matches r"..."`` (or ``not matches``): a ``str`` the pattern matches WHOLLY."""

    pattern: str
    negate: bool = False
    predicate: Predicate = field(init=False, repr=False, compare=False, hash=False)
    doubt: Predicate = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        try:
            # `.` matches every character, a newline too: "x\ndrop" must not dodge `matches r".*drop"`
            regex = re.compile(self.pattern, re.DOTALL)
        except re.error as exc:
            raise PolicyError(f"invalid regular expression {quote(self.pattern)}: {exc}") from None
        full, negate = regex.fullmatch, self.negate

        def matches(value: Any) -> bool:
            return type(value) is str and (full(value) is not None) != negate

        _set_compiled(self, matches, lambda value: type(value) is not str)

    def render(self) -> str:
        return f"{'not matches' if self.negate else 'matches'} {quote(self.pattern)}"

    def failure(self, value: Any) -> str:
        if type(value) is not str:
            return f"must be a str matching {quote(self.pattern)}, got {type(value).__name__}"
        verb = "must not match" if self.negate else "must match"
        return f"{verb} {quote(self.pattern)}, got {_show(value)}"


def _show(value: Any) -> str:
    """A short rendering of an argument value for a denial message (never a guest repr)."""
    if _kind(value) is None:
        return f"a {type(value).__name__}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def combine(conditions: Iterable[Condition]) -> Predicate:
    """One predicate that holds when every condition holds (False on a value that is not plain
    data: ``outbound.Incomplete``)."""
    preds = tuple(c.predicate for c in conditions if not c.universal())
    if not preds:
        return lambda value: True
    if len(preds) == 1:
        only = preds[0]
        return lambda value: type(value) is not Incomplete and only(value)

    def all_hold(value: Any) -> bool:
        if type(value) is Incomplete:
            return False
        for p in preds:
            if not p(value):
                return False
        return True

    return all_hold


def combine_doubtful(conditions: Iterable[Condition]) -> Predicate:
    """One predicate that holds when every condition holds or cannot be evaluated (True on a
    value that is not plain data): what fires a deny rule."""
    pairs = tuple((c.predicate, c.doubt) for c in conditions if not c.universal())
    if not pairs:
        return lambda value: True

    def all_hold_or_doubt(value: Any) -> bool:
        if type(value) is Incomplete:
            return True
        for holds, doubt in pairs:
            if not holds(value) and not doubt(value):
                return False
        return True

    return all_hold_or_doubt
