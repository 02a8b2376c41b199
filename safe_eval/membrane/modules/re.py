"""Curated ``re``: CPython ``re`` semantics, matched by the ``regex`` package under a deadline.

A regular expression match is one C call: once ``(a|aa)+$`` starts backtracking on a subject,
nothing in the interpreter runs until it returns. A shape heuristic (refuse "nested
quantifiers") cannot see every exponential pattern (``(?:a?){34}a{34}``) and says nothing
about polynomial ones, so the bound here is by construction instead: every match runs in a
matcher that stops itself.

Why ``regex`` and not RE2 (``google-re2``): RE2 is linear-time because it leaves out what
needs backtracking (backreferences ``(\\w+)\\s+\\1``, lookarounds ``(?=\\d)``, conditionals,
possessive quantifiers and atomic groups), all of which CPython ``re`` has and guest code
uses; swapping RE2 in would change what programs mean. ``regex`` (VERSION0, its
``re``-compatible mode) has all of them and takes ``timeout=``: its C matcher reads the clock
while it backtracks and raises ``TimeoutError`` once the time is up.

What the bound is: wall time inside the C matcher (and the scanner of ``finditer``/``sub``),
set on every call to the evaluation's *remaining* time (``Budget.remaining_time``), so a
match can never outlast the run's time limit; the overrun ends as the run's ``TimeLimit``
(the budget stays exhausted like every other limit). No signal is used: it holds on every
thread, and host timers are not touched.

How ``re`` semantics are kept: every pattern is first compiled by CPython's ``re``, which
decides what is a valid pattern (the same ``re.error`` messages) and gives ``pattern``,
``flags``, ``groups``, ``groupindex`` and the ``repr``; ``regex`` then compiles the same text
for matching with only ``re``'s flag bits. Where the two read the same text differently the
text is adjusted or refused: a ``{`` that ``re`` reads as a literal brace is escaped (``regex``
would read ``a{e<=1}`` as fuzzy matching), and patterns for which ``re`` warns of a future
change (``[[:alpha:]]``, ``[a--b]``: ``regex`` reads them as POSIX classes and set operations)
are refused with ``re.error``. ``re.DEBUG`` (prints to the host's stdout) is refused.

Sizes: ``sub``/``subn``/``Match.expand`` check the result size bound
``len(s) + (len(s)+1)*len(repl) + refs*len(s)`` before the call; ``escape`` at most doubles
its input. Replacement callables are called with this module's ``Match`` (never the
``regex`` object) and each call is one op.
"""

from __future__ import annotations

import functools
import re
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import regex

from safe_eval.errors import TimeLimit
from safe_eval.limits.budget import current_or_default
from safe_eval.membrane.modules._util import check_alloc

MAX_PATTERN = 10_000

FLAGS = ["A", "ASCII", "I", "IGNORECASE", "L", "LOCALE", "M", "MULTILINE", "S", "DOTALL", "X",
         "VERBOSE", "U", "UNICODE", "NOFLAG", "RegexFlag"]

# the flag bits ``re`` defines; nothing else reaches ``regex`` (its own bits change semantics)
_RE_BITS = int(re.A | re.I | re.L | re.M | re.S | re.X | re.U)

# ``{`` starts a repetition in ``re`` only as ``{m}``, ``{m,}``, ``{,n}``, ``{m,n}``
_QUANTIFIER = re.compile(r"\{\d*(?:,\d*)?\}")


def _flags_of(flags: Any) -> int:
    value = int(flags)
    if value & re.DEBUG:
        raise re.error("re.DEBUG is not available in safe-eval")
    return value


def _literal_braces(pattern: str | bytes) -> str | bytes:
    """``pattern`` with each ``{`` that CPython reads as a literal escaped for ``regex``."""
    text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
    if "{" not in text:
        return pattern
    out: list[str] = []
    i, n, in_class = 0, len(text), False
    while i < n:
        ch = text[i]
        if ch == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            out.append(ch)
            i += 1
            # a ``]`` first in the class (after an optional ``^``) is a literal
            if i < n and text[i] == "^":
                out.append("^")
                i += 1
            if i < n and text[i] == "]":
                out.append("]")
                i += 1
            continue
        elif ch == "{":
            m = _QUANTIFIER.match(text, i)
            if m is None or m.group() == "{}":
                ch = "\\{"
        out.append(ch)
        i += 1
    joined = "".join(out)
    return joined.encode("latin-1") if isinstance(pattern, bytes) else joined


@functools.lru_cache(maxsize=512)
def _compile_pair(pattern: str | bytes, flags: int) -> tuple[re.Pattern[Any], Any]:
    """CPython's compiled pattern (validity, attributes) and ``regex``'s (matching)."""
    if len(pattern) > MAX_PATTERN:
        raise re.error(f"pattern longer than {MAX_PATTERN} characters is not available in safe-eval")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        try:
            compiled = re.compile(pattern, flags)
        except FutureWarning as w:
            raise re.error(f"{w} (ambiguous pattern: not available in safe-eval)") from None
        except RecursionError:
            raise re.error("pattern nested too deeply") from None
    try:
        matcher = regex.compile(_literal_braces(pattern), (flags & _RE_BITS) | regex.VERSION0)
    except regex.error as e:
        raise re.error(str(e)) from None
    except RecursionError:
        raise re.error("pattern nested too deeply") from None
    return compiled, matcher


def _compile(pattern: Any, flags: Any) -> Pattern:
    if isinstance(pattern, Pattern):
        if flags:
            raise ValueError("cannot process flags argument with a compiled pattern")
        return pattern
    if not isinstance(pattern, (str, bytes)):
        raise TypeError("first argument must be string or compiled pattern")
    return Pattern(*_compile_pair(pattern, _flags_of(flags)), _KEY)


# -- the time bound -----------------------------------------------------------------------

def _bounded(call: Callable[[float], Any]) -> Any:
    """Run ``call(timeout)`` with the evaluation's remaining time as the matcher's timeout."""
    budget = current_or_default()
    budget.check_time()
    try:
        return call(budget.remaining_time())
    except TimeoutError:
        budget.check_time()  # the deadline has passed: the run's own TimeLimit
        # the matcher's clock ran out a hair before the budget's: same outcome
        raise _fail_time(budget) from None
    except regex.error as e:
        raise re.error(str(e)) from None


def _fail_time(budget: Any) -> TimeLimit:
    try:
        budget.check_work(float("inf"))
    except TimeLimit as err:
        return err
    raise AssertionError("check_work(inf) must raise")  # pragma: no cover


def _text_bound(repl: Any, string: Any) -> None:
    """A template's expansion is at most ``len(repl)`` plus one subject per reference."""
    if isinstance(repl, (str, bytes)) and isinstance(string, (str, bytes)):
        refs = repl.count("\\") if isinstance(repl, str) else repl.count(b"\\")
        n = len(string)
        check_alloc(n + (n + 1) * len(repl) + refs * n)


# -- Match and Pattern ----------------------------------------------------------------------

_KEY = object()

class Match:
    """One match: ``re.Match``'s interface over the ``regex`` match object."""

    __slots__ = ("_m", "_pattern")
    __class_getitem__: Any = classmethod(types.GenericAlias)  # re.Pattern[str] in annotations

    def __init__(self, m: Any, pattern: Pattern, key: object = None) -> None:
        if key is not _KEY:  # only this module makes them: its methods trust their slots
            raise TypeError("cannot create 're.Match' instances")
        self._m = m
        self._pattern = pattern

    def group(self, *groups: Any) -> Any:
        return self._m.group(*groups)

    def __getitem__(self, group: Any) -> Any:
        return self._m[group]

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return tuple(self._m.groups(default))

    def groupdict(self, default: Any = None) -> dict[str, Any]:
        return dict(self._m.groupdict(default))

    def start(self, group: Any = 0) -> int:
        return int(self._m.start(group))

    def end(self, group: Any = 0) -> int:
        return int(self._m.end(group))

    def span(self, group: Any = 0) -> tuple[int, int]:
        return tuple(self._m.span(group))

    def expand(self, template: Any) -> Any:
        _text_bound(template, self._m.string)
        try:
            return self._m.expand(template)
        except regex.error as e:
            raise re.error(str(e)) from None

    @property
    def string(self) -> Any:
        return self._m.string

    @property
    def pos(self) -> int:
        return int(self._m.pos)

    @property
    def endpos(self) -> int:
        return int(self._m.endpos)

    @property
    def lastindex(self) -> int | None:
        return self._m.lastindex  # type: ignore[no-any-return]

    @property
    def lastgroup(self) -> str | None:
        return self._m.lastgroup  # type: ignore[no-any-return]

    @property
    def regs(self) -> tuple[tuple[int, int], ...]:
        return tuple(self._m.regs)

    @property
    def re(self) -> Pattern:
        return self._pattern

    def __repr__(self) -> str:
        return f"<re.Match object; span={self.span()!r}, match={repr(self.group())[:50]}>"


class _MatchIter:
    """``finditer``'s iterator: each step is one search under the deadline. (A class, not a
    host generator: a generator would expose its frame.)"""

    __slots__ = ("_it", "_pattern")

    def __init__(self, it: Iterator[Any], pattern: Pattern) -> None:
        self._it = it
        self._pattern = pattern

    def __iter__(self) -> _MatchIter:
        return self

    def __next__(self) -> Match:
        return Match(_bounded(lambda _t: next(self._it)), self._pattern, _KEY)


def _wrap(m: Any, pattern: Pattern) -> Match | None:
    return None if m is None else Match(m, pattern, _KEY)


class Pattern:
    """A compiled pattern whose every matching method runs under the deadline."""

    __slots__ = ("_compiled", "_matcher")
    __class_getitem__: Any = classmethod(types.GenericAlias)  # re.Pattern[str] in annotations

    def __init__(self, compiled: re.Pattern[Any], matcher: Any, key: object = None) -> None:
        if key is not _KEY:
            raise TypeError("cannot create 're.Pattern' instances")
        self._compiled = compiled
        self._matcher = matcher

    @property
    def pattern(self) -> Any:
        return self._compiled.pattern

    @property
    def flags(self) -> int:
        return self._compiled.flags

    @property
    def groups(self) -> int:
        return self._compiled.groups

    @property
    def groupindex(self) -> dict[str, int]:
        return dict(self._compiled.groupindex)  # a copy: the mappingproxy is a host type

    def match(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> Match | None:
        return _wrap(_bounded(lambda t: self._matcher.match(string, pos, endpos, timeout=t)), self)

    def fullmatch(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> Match | None:
        return _wrap(_bounded(lambda t: self._matcher.fullmatch(string, pos, endpos, timeout=t)), self)

    def search(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> Match | None:
        return _wrap(_bounded(lambda t: self._matcher.search(string, pos, endpos, timeout=t)), self)

    def findall(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        # re's shape, spelled out: ``regex.findall`` gives 1-tuples for one group
        groups = self._compiled.groups
        budget = current_or_default()
        empty = string[:0] if isinstance(string, (str, bytes)) else ""

        def scan(timeout: float) -> list[Any]:
            out: list[Any] = []
            for m in self._matcher.finditer(string, pos, endpos, timeout=timeout):
                budget.charge(1)
                out.append((m.group(groups) or empty) if groups < 2 else m.groups(empty))
            return out

        return _bounded(scan)  # type: ignore[no-any-return]

    def finditer(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> _MatchIter:
        it = _bounded(lambda t: self._matcher.finditer(string, pos, endpos, timeout=t))
        return _MatchIter(it, self)

    def split(self, string: Any, maxsplit: int = 0) -> list[Any]:
        return _bounded(lambda t: self._matcher.split(string, maxsplit, timeout=t))  # type: ignore[no-any-return]

    def sub(self, repl: Any, string: Any, count: int = 0) -> Any:
        return self.subn(repl, string, count)[0]

    def subn(self, repl: Any, string: Any, count: int = 0) -> tuple[Any, int]:
        _text_bound(repl, string)
        if callable(repl):
            guest = repl
            budget = current_or_default()

            def repl(m: Any) -> Any:
                budget.charge(1)
                return guest(Match(m, self, _KEY))
        elif isinstance(self.pattern, str) is not isinstance(repl, str) and isinstance(repl, (str, bytes)):
            self._compiled.subn(repl, string[:0], count)  # CPython's own TypeError
        return _bounded(lambda t: self._matcher.subn(repl, string, count, timeout=t))  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return repr(self._compiled)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pattern) and self._compiled == other._compiled

    def __hash__(self) -> int:
        return hash(self._compiled)


# -- module functions -----------------------------------------------------------------------

def compile(pattern: Any, flags: Any = 0) -> Pattern:
    return _compile(pattern, flags)


def match(pattern: Any, string: Any, flags: Any = 0) -> Match | None:
    return _compile(pattern, flags).match(string)


def fullmatch(pattern: Any, string: Any, flags: Any = 0) -> Match | None:
    return _compile(pattern, flags).fullmatch(string)


def search(pattern: Any, string: Any, flags: Any = 0) -> Match | None:
    return _compile(pattern, flags).search(string)


def findall(pattern: Any, string: Any, flags: Any = 0) -> list[Any]:
    return _compile(pattern, flags).findall(string)


def finditer(pattern: Any, string: Any, flags: Any = 0) -> _MatchIter:
    return _compile(pattern, flags).finditer(string)


def split(pattern: Any, string: Any, maxsplit: int = 0, flags: Any = 0) -> list[Any]:
    return _compile(pattern, flags).split(string, maxsplit)


def sub(pattern: Any, repl: Any, string: Any, count: int = 0, flags: Any = 0) -> Any:
    return _compile(pattern, flags).sub(repl, string, count)


def subn(pattern: Any, repl: Any, string: Any, count: int = 0, flags: Any = 0) -> tuple[Any, int]:
    return _compile(pattern, flags).subn(repl, string, count)


def escape(pattern: Any) -> Any:
    if isinstance(pattern, (str, bytes)):
        check_alloc(2 * len(pattern))  # at most one backslash per character
    return re.escape(pattern)


def build() -> dict[str, Any]:
    attrs: dict[str, Any] = {name: getattr(re, name) for name in FLAGS if hasattr(re, name)}
    attrs.update(compile=compile, match=match, fullmatch=fullmatch, search=search,
                 findall=findall, finditer=finditer, split=split, sub=sub, subn=subn,
                 escape=escape, error=re.error, Pattern=Pattern, Match=Match)
    return attrs
