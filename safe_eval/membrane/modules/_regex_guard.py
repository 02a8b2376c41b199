"""Static refusal of regular expressions that backtrack exponentially.

A CPython regex match is one C call: once ``(a+)+$`` starts on ``'a'*40 + 'b'`` nothing in
the interpreter can stop it. So patterns are analysed when compiled (cached) and refused with
a clear ``re.error`` when they contain an *ambiguous repetition*:

R1 (nested quantifier): a repetition that can iterate more than once (``+``, ``*``, ``{n,m}``
   with m > 1) whose body holds a variable-count repetition ``X`` (``+``, ``*``, ``{n,m}``,
   n != m) and no required single character that ``X`` cannot match. ``(a+)+``,
   ``(\\w+\\s?)*``, ``(.*a){12}`` are refused; ``(\\w+\\.)+`` and ``(\\s*,\\s*\\w+)*`` are not
   (the ``.``/``,`` delimits the iterations).
R2 (overlapping alternation): a repeated alternation two of whose branches can match the same
   text prefix (``(a|aa)+``, ``(\\w|\\d)+``); ``(cat|dog)+`` and ``(ab|ac)+`` are fine.

Possessive quantifiers and atomic groups never backtrack and are exempt. Character classes are
compared on a sample alphabet (ASCII, Latin-1 and a few representative code points), which
is exact for the classes LLM code writes. Polynomial backtracking (``\\s*$`` on a long run of
spaces) is not refused: the ``re`` wrapper bounds it with the evaluation's time limit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

try:  # Python 3.11+
    from re import _constants as C
    from re import _parser as P
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C  # type: ignore[no-redef,unused-ignore]
    import sre_parse as P  # type: ignore[no-redef,unused-ignore]

__all__ = ["Analysis", "analyse"]

MAX_PATTERN = 10_000

_ALPHABET = [chr(i) for i in range(0x250)] + list("\u0660\u0966\u00a0\u2028\u3000\u4e2d\u0416\U0001f600")

_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT}
_EXEMPT = {getattr(C, "POSSESSIVE_REPEAT", None), getattr(C, "ATOMIC_GROUP", None)} - {None}

_CATEGORY: dict[Any, Callable[[str], bool]] = {}
for _name, _fn in {
    "DIGIT": str.isdecimal,
    "SPACE": str.isspace,
    "WORD": lambda ch: ch.isalnum() or ch == "_",
    "LINEBREAK": lambda ch: ch == "\n",
}.items():
    for _prefix in ("CATEGORY_", "CATEGORY_UNI_", "CATEGORY_LOC_"):
        _pos = getattr(C, f"{_prefix}{_name}", None)
        _neg = getattr(C, f"{_prefix}NOT_{_name}", None)
        if _pos is not None:
            _CATEGORY[_pos] = _fn
        if _neg is not None:
            _CATEGORY[_neg] = functools.partial(lambda f, ch: not f(ch), _fn)


class Analysis:
    """What the ``re`` wrapper needs to know about one pattern."""

    __slots__ = ("refusal", "risky")

    def __init__(self, refusal: str | None, risky: bool) -> None:
        self.refusal = refusal  # why the pattern is refused, or None
        self.risky = risky  # has variable repetition: bound its run time


# -- character sets -----------------------------------------------------------------------

def _in_item(op: Any, av: Any, ch: str) -> bool:
    if op is C.LITERAL:
        return bool(ord(ch) == av)
    if op is C.NOT_LITERAL:
        return bool(ord(ch) != av)
    if op is C.ANY:
        return ch != "\n"
    if op is C.RANGE:
        return bool(av[0] <= ord(ch) <= av[1])
    if op is C.CATEGORY:
        fn = _CATEGORY.get(av)
        return True if fn is None else fn(ch)
    if op is C.IN:
        negate = bool(av) and av[0][0] is C.NEGATE
        items = av[1:] if negate else av
        hit = any(_in_item(o, a, ch) for o, a in items)
        return hit != negate
    return True  # unknown: assume it may match (refuse rather than hang)


def _charset(item: tuple[Any, Any]) -> frozenset[str] | None:
    """The sample characters one single-character item matches, None if not one."""
    op, av = item
    if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.CATEGORY):
        return frozenset(ch for ch in _ALPHABET if _in_item(op, av, ch))
    return None


# -- first sets ---------------------------------------------------------------------------

def _first(seq: Any) -> frozenset[str]:
    """Sample characters that can start a match of ``seq`` (all of them when unsure)."""
    out: set[str] = set()
    for op, av in seq:
        cs = _charset((op, av))
        if cs is not None:
            return frozenset(out | cs)
        if op is C.SUBPATTERN:
            sub = av[-1]
            out |= _first(sub)
            if not _nullable(sub):
                return frozenset(out)
        elif op in _REPEATS or op in _EXEMPT:
            sub = av[-1]
            out |= _first(sub)
            if op in _REPEATS and av[0] > 0 and not _nullable(sub):
                return frozenset(out)
        elif op is C.BRANCH:
            for alt in av[1]:
                out |= _first(alt)
            if not any(_nullable(alt) for alt in av[1]):
                return frozenset(out)
        elif op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue
        else:
            return frozenset(_ALPHABET)
    return frozenset(out)


def _nullable(seq: Any) -> bool:
    for op, av in seq:
        if _charset((op, av)) is not None:
            return False
        if op is C.SUBPATTERN and not _nullable(av[-1]):
            return False
        if op in _REPEATS and av[0] > 0 and not _nullable(av[-1]):
            return False
        if op is C.BRANCH and not any(_nullable(alt) for alt in av[1]):
            return False
        if op in (C.GROUPREF, C.GROUPREF_EXISTS):
            return False
    return True


# -- the rules ----------------------------------------------------------------------------

def _flat(seq: Any) -> list[tuple[Any, Any]]:
    """Top-level items of ``seq`` with plain groups unwrapped."""
    out: list[tuple[Any, Any]] = []
    for op, av in seq:
        if op is C.SUBPATTERN:
            out.extend(_flat(av[-1]))
        else:
            out.append((op, av))
    return out


def _variable_repeats(seq: Any) -> list[Any]:
    """Variable-count repetitions (max > 1) inside ``seq``, not crossing atomic parts."""
    found: list[Any] = []
    for op, av in seq:
        if op in _EXEMPT:
            continue
        if op in _REPEATS:
            lo, hi, sub = av
            if hi != lo and hi > 1:
                found.append(sub)
            found.extend(_variable_repeats(sub))
        elif op is C.SUBPATTERN:
            found.extend(_variable_repeats(av[-1]))
        elif op is C.BRANCH:
            for alt in av[1]:
                found.extend(_variable_repeats(alt))
    return found


def _delimited(body: Any, inner_first: frozenset[str], inner_all: frozenset[str]) -> bool:
    """Does ``body`` hold a required single character the inner repetition cannot match?"""
    for item in _flat(body):
        cs = _charset(item)
        if cs is not None and cs and not (cs & inner_all):
            return True
    return False


def _chars_of(seq: Any) -> frozenset[str]:
    out: set[str] = set()
    for op, av in seq:
        cs = _charset((op, av))
        if cs is not None:
            out |= cs
        elif op in (C.SUBPATTERN,) or op in _REPEATS or op in _EXEMPT:
            out |= _chars_of(av[-1])
        elif op is C.BRANCH:
            for alt in av[1]:
                out |= _chars_of(alt)
        elif op in (C.GROUPREF, C.GROUPREF_EXISTS):
            return frozenset(_ALPHABET)
    return frozenset(out)


def _prefix_sets(alt: Any, n: int = 3) -> list[frozenset[str]] | None:
    """Character sets of the first ``n`` positions of a branch made of single characters."""
    sets: list[frozenset[str]] = []
    for item in _flat(alt):
        if len(sets) == n:
            break
        cs = _charset(item)
        if cs is None:
            return None
        sets.append(cs)
    return sets


def _ambiguous_branch(alts: Any) -> bool:
    for i, a in enumerate(alts):
        for b in alts[i + 1:]:
            pa, pb = _prefix_sets(a), _prefix_sets(b)
            if pa is None or pb is None:
                if _first(a) & _first(b):
                    return True
                continue
            if all(x & y for x, y in zip(pa, pb, strict=False)):
                return True
    return False


def _check(seq: Any) -> str | None:
    for op, av in seq:
        if op in _REPEATS:
            lo, hi, body = av
            if hi > 1:
                for inner in _variable_repeats(body):
                    if not _delimited(body, _first(inner), _chars_of(inner)):
                        return "nested quantifier"
                for bop, bav in _flat(body):
                    if bop is C.BRANCH and _ambiguous_branch(bav[1]):
                        return "repeated alternation whose branches overlap"
            why = _check(body)
        elif op is C.SUBPATTERN or op in _EXEMPT or op in (C.ASSERT, C.ASSERT_NOT):
            why = _check(av[-1])
        elif op is C.BRANCH:
            why = next((w for w in map(_check, av[1]) if w), None)
        elif op is C.GROUPREF_EXISTS:
            why = _check(av[1]) or (_check(av[2]) if av[2] is not None else None)
        else:
            why = None
        if why:
            return why
    return None


def _has_variable(seq: Any) -> bool:
    for op, av in seq:
        if op in _REPEATS and av[1] != av[0]:
            return True
        if op in _REPEATS or op is C.SUBPATTERN or op in _EXEMPT or op in (C.ASSERT, C.ASSERT_NOT):
            if _has_variable(av[-1]):
                return True
        elif op is C.BRANCH and any(_has_variable(alt) for alt in av[1]):
            return True
    return False


@functools.lru_cache(maxsize=1024)
def analyse(pattern: str | bytes, flags: int) -> Analysis:
    """Parse ``pattern`` and decide whether it may run (raises ``re.error`` if invalid)."""
    import re

    if len(pattern) > MAX_PATTERN:
        return Analysis(f"pattern longer than {MAX_PATTERN} characters", False)
    try:
        tree = P.parse(pattern, flags)
    except RecursionError:
        raise re.error("pattern nested too deeply") from None
    why = _check(tree)
    return Analysis(why, why is None and _has_variable(tree))
