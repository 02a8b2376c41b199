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

Memory, which the deadline does not bound (``_regex_cost`` says how it is estimated):

- compiling: ``regex`` unrolls fixed repeats, so ``(?:(?:a{50}){50}){50}`` is a program of
  125 000 nodes; the node count is read from CPython's parse first and the compile is charged
  (memory and time) before ``regex`` runs, refused when it does not fit the run's limits;
- compiled patterns are cached for the process in at most ``CACHE_BYTES`` of estimated
  program size (a pattern bigger than an eighth of it is never cached), so what one run
  compiles cannot stay resident past that bound;
- matching: the matcher's backtracking state and capture history (per subject character,
  per group inside a repeat) are checked against the memory limit before each call;
- output: ``findall`` and ``split`` count the text of every group as they collect it (groups
  in lookaheads overlap, so the output can be quadratic in the subject), ``sub``/``subn``
  count every replacement as it is made (callables and templates with group references; a
  template without references has the closed bound ``len(s) + (len(s)+1)*len(repl)``), and
  ``Match.expand`` checks ``len(template) + refs*len(s)``; ``escape`` at most doubles its
  input. Replacement callables are called with this module's ``Match`` (never the ``regex``
  object) and each call is one op.
"""

from __future__ import annotations

import collections
import re
import sys
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import regex
import regex._main as _regex_main

from safe_eval.errors import TimeLimit
from safe_eval.limits.budget import current_or_default
from safe_eval.membrane.modules._re_parser import AmbiguousPattern
from safe_eval.membrane.modules._re_parser import template as _template_parse
from safe_eval.membrane.modules._regex_cost import NODE_BYTES, NODE_NS, PatternCost, pattern_cost
from safe_eval.membrane.modules._util import check_alloc

MAX_PATTERN = 10_000

FLAGS = ["A", "ASCII", "I", "IGNORECASE", "L", "LOCALE", "M", "MULTILINE", "S", "DOTALL", "X",
         "VERBOSE", "U", "UNICODE", "NOFLAG", "RegexFlag"]

# the flag bits ``re`` defines; nothing else reaches ``regex`` (its own bits change semantics)
_RE_BITS = int(re.A | re.I | re.L | re.M | re.S | re.X | re.U)

# ``{`` starts a repetition in ``re`` only as ``{m}``, ``{m,}``, ``{,n}``, ``{m,n}``
_QUANTIFIER = re.compile(r"\{\d*(?:,\d*)?\}")


# what CPython's TypeError for non-int flags names: ``flags & SRE_FLAG_x`` met a RegexFlag on
# 3.11 and 3.12, a plain int on 3.10 and 3.13
_FLAG_OPERAND = "RegexFlag" if (3, 11) <= sys.version_info[:2] <= (3, 12) else "int"


def _flags_of(flags: Any) -> int:
    if not isinstance(flags, int):
        raise TypeError(f"unsupported operand type(s) for &: '{type(flags).__name__}' and '{_FLAG_OPERAND}'")
    value = int.__index__(flags)  # the int itself: no guest __int__/__index__ runs
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


CACHE_BYTES = 8 * 2**20  # estimated program bytes the process keeps compiled, all runs together
_cache: collections.OrderedDict[tuple[type, str | bytes, int], tuple[Any, Any, PatternCost, int]] = (
    collections.OrderedDict()
)
_cache_bytes = 0
_cache_lock = threading.Lock()


def _compile_pair(pattern: str | bytes, flags: int) -> tuple[re.Pattern[Any], Any, PatternCost]:
    """CPython's compiled pattern (validity, attributes), ``regex``'s (matching) and the
    pattern's cost, from the byte-bounded cache or compiled (and charged) now."""
    global _cache_bytes
    key = (type(pattern), pattern, flags)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit[0], hit[1], hit[2]
    compiled, matcher, cost = _compile_new(pattern, flags)
    size = cost.nodes * NODE_BYTES
    if size <= CACHE_BYTES // 8:
        with _cache_lock:
            if key not in _cache:
                _cache[key] = (compiled, matcher, cost, size)
                _cache_bytes += size
                while _cache_bytes > CACHE_BYTES or len(_cache) > 512:
                    _cache_bytes -= _cache.popitem(last=False)[1][3]
    return compiled, matcher, cost


def _compile_new(pattern: str | bytes, flags: int) -> tuple[re.Pattern[Any], Any, PatternCost]:
    if len(pattern) > MAX_PATTERN:
        raise re.error(f"pattern longer than {MAX_PATTERN} characters is not available in safe-eval")
    try:
        # the private parser reports ambiguity itself: no run touches the process-wide
        # warning filters (``_re_parser``)
        cost = pattern_cost(pattern, flags)
        # uncached: ``re.compile`` would keep the pattern in CPython's module cache (512
        # entries, whatever their size) after the run; only ``_cache`` here, bounded in bytes,
        # keeps compiled patterns
        compiled = _sre_compile(pattern, flags)
    except AmbiguousPattern as w:
        raise re.error(f"{w} (ambiguous pattern: not available in safe-eval)") from None
    except RecursionError:
        raise re.error("pattern nested too deeply") from None
    # regex's compile unrolls fixed repeats: its program is charged before it is built
    budget = current_or_default()
    if cost.nodes > _FREE_NODES:
        budget.check_alloc(cost.nodes * NODE_BYTES)
        budget.check_work(cost.nodes * NODE_NS)
    try:
        matcher = _regex_compile(_literal_braces(pattern), (flags & _RE_BITS) | regex.VERSION0)
    except regex.error as e:
        raise re.error(str(e)) from None
    except RecursionError:
        raise re.error("pattern nested too deeply") from None
    return compiled, matcher, cost


def _regex_compile(text: str | bytes, flags: int) -> Any:
    """``regex.compile`` keeping nothing of ``text`` in the module: not in its pattern cache
    (500 entries), nor in the per-pattern locale note it records for every compile."""
    notes = _regex_main._locale_sensitive
    key = (type(text), text)
    known = key in notes
    try:
        return regex.compile(text, flags, cache_pattern=False)
    finally:
        if not known:
            notes.pop(key, None)


def _forget_template(matcher: Any, template: Any) -> None:
    """Drop what ``regex`` cached for expanding ``template`` (its replacement cache keeps the
    pattern's and the template's text, up to 500 entries, after the run)."""
    _regex_main._replacement_cache.pop((matcher.pattern, matcher.flags, template), None)


if sys.version_info >= (3, 11):
    from re._compiler import compile as _sre_compile
else:  # pragma: no cover (3.10)
    from sre_compile import compile as _sre_compile

_FREE_NODES = 1024  # programs up to this size cost under a megabyte and a few milliseconds


def _compile(pattern: Any, flags: Any) -> Pattern:
    if isinstance(pattern, Pattern):
        if flags:
            raise ValueError("cannot process flags argument with a compiled pattern")
        return pattern
    if not isinstance(pattern, (str, bytes)):
        raise TypeError("first argument must be string or compiled pattern")
    # the exact text (a str/bytes subclass's stored value): the cache key hashes and compares it
    text = str.__str__(pattern) if isinstance(pattern, str) else bytes(pattern)
    return Pattern(*_compile_pair(text, _flags_of(flags)), _KEY)


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


class _OutputSize:
    """The text a scan returns, counted as it is collected: refused (``MemoryLimit``) once it
    would not fit the memory limit. Starts at the subject's own length (the unmatched parts
    ``sub`` and ``split`` copy)."""

    __slots__ = ("_chars", "_unit", "_checked")

    def __init__(self, string: Any) -> None:
        self._unit = 4 if isinstance(string, str) else 1
        self._chars = len(string) if isinstance(string, (str, bytes, bytearray)) else 0
        self._checked = 0

    def add(self, text: Any) -> None:
        if isinstance(text, (str, bytes, bytearray)):
            self._grow(len(text))

    def add_spans(self, m: Any, groups: int) -> None:
        if groups:
            self._grow(sum(max(0, end - start) for start, end in m.regs[1:groups + 1]))

    def _grow(self, n: int) -> None:
        self._chars += n
        if self._chars - self._checked > 4096:  # a check per 4 KiB of text, not per match
            self._checked = self._chars
            check_alloc(self._chars * self._unit)


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
        if isinstance(template, (str, bytes)):
            _template_parse(template, self._pattern._compiled)  # CPython's errors (``\9``: re.error)
        try:
            return self._m.expand(template)
        except regex.error as e:
            raise re.error(str(e)) from None
        finally:
            _forget_template(self._m.re, template)

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
        # ``re``'s: the name of group ``lastindex`` (``regex`` names the last named group matched)
        index = self._m.lastindex
        names = [name for name, i in self._pattern._compiled.groupindex.items() if i == index]
        return names[0] if names else None

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

    __slots__ = ("_compiled", "_matcher", "_per_char")
    __class_getitem__: Any = classmethod(types.GenericAlias)  # re.Pattern[str] in annotations

    def __init__(self, compiled: re.Pattern[Any], matcher: Any, cost: Any = None, key: object = None) -> None:
        if key is not _KEY or type(cost) is not PatternCost:
            raise TypeError("cannot create 're.Pattern' instances")
        self._compiled = compiled
        self._matcher = matcher
        self._per_char = cost.per_char

    def _state(self, string: Any, pos: Any = 0, endpos: Any = sys.maxsize) -> None:
        """Refuse a match whose backtracking state and capture history (``_regex_cost``) could
        outgrow the memory limit: an upper bound per character of the searched span."""
        if self._per_char and isinstance(string, (str, bytes, bytearray)):
            n = len(string)
            start = pos if type(pos) is int else 0
            end = endpos if type(endpos) is int else n
            span = max(0, min(n, end) - max(0, start))
            if span > 1024:
                check_alloc(span * self._per_char)

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
        self._state(string, pos, endpos)
        return _wrap(_bounded(lambda t: self._matcher.match(string, pos, endpos, timeout=t)), self)

    def fullmatch(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> Match | None:
        self._state(string, pos, endpos)
        return _wrap(_bounded(lambda t: self._matcher.fullmatch(string, pos, endpos, timeout=t)), self)

    def search(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> Match | None:
        self._state(string, pos, endpos)
        return _wrap(_bounded(lambda t: self._matcher.search(string, pos, endpos, timeout=t)), self)

    def findall(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        # re's shape, spelled out: ``regex.findall`` gives 1-tuples for one group
        self._state(string, pos, endpos)
        groups = self._compiled.groups
        budget = current_or_default()
        empty = string[:0] if isinstance(string, (str, bytes)) else ""
        out_size = _OutputSize(string)

        def scan(timeout: float) -> list[Any]:
            out: list[Any] = []
            for m in self._matcher.finditer(string, pos, endpos, timeout=timeout):
                budget.charge(1)
                item = (m.group(groups) or empty) if groups < 2 else m.groups(empty)
                out_size.add_spans(m, groups)
                out.append(item)
            return out

        return _bounded(scan)  # type: ignore[no-any-return]

    def finditer(self, string: Any, pos: int = 0, endpos: int = sys.maxsize) -> _MatchIter:
        self._state(string, pos, endpos)
        it = _bounded(lambda t: self._matcher.finditer(string, pos, endpos, timeout=t))
        return _MatchIter(it, self)

    def split(self, string: Any, maxsplit: int = 0) -> list[Any]:
        self._state(string)
        groups = self._compiled.groups
        if groups and isinstance(string, (str, bytes, bytearray)):
            # groups in lookaheads overlap: their text, returned per match, can be quadratic in
            # the subject. A first pass counts it (spans only, nothing built) before the split.
            out_size = _OutputSize(string)
            budget = current_or_default()
            limit = maxsplit if type(maxsplit) is int and maxsplit > 0 else None

            def count(timeout: float) -> None:
                for i, m in enumerate(self._matcher.finditer(string, timeout=timeout)):
                    if limit is not None and i >= limit:
                        break
                    budget.charge(1)
                    out_size.add_spans(m, groups)

            _bounded(count)
        return _bounded(lambda t: self._matcher.split(string, maxsplit, timeout=t))  # type: ignore[no-any-return]

    def sub(self, repl: Any, string: Any, count: int = 0) -> Any:
        return self.subn(repl, string, count)[0]

    def subn(self, repl: Any, string: Any, count: int = 0) -> tuple[Any, int]:
        self._state(string)
        if isinstance(repl, (str, bytes)) and isinstance(self.pattern, str) is not isinstance(repl, str):
            self._compiled.subn(repl, string[:0], count)  # CPython's own TypeError
        elif not callable(repl) and not isinstance(repl, (str, bytes)):
            # CPython's own TypeError for a template that is not text (``regex`` fails on an int
            # with a SystemError)
            self._compiled.subn(repl, self._compiled.pattern[:0], count)
        out_size = _OutputSize(string)
        template = None
        if callable(repl):
            guest = repl
            budget = current_or_default()

            def repl(m: Any) -> Any:
                budget.charge(1)
                result = guest(Match(m, self, _KEY))
                out_size.add(result)  # joined by the matcher in C: counted as it is made
                return result
        elif isinstance(repl, str) and "\\" in repl or isinstance(repl, bytes) and b"\\" in repl:
            # group references: each expansion is counted as it is made (``(?=(.*))`` with
            # ``\\1`` expands to the rest of the subject at every position)
            # CPython's template errors, even with no match (its parse: ``Pattern.sub``
            # would keep the template and the pattern in CPython's template cache)
            _template_parse(repl, self._compiled)
            if not isinstance(string, (str, bytes, bytearray)):
                # then CPython's own TypeError for the subject (``regex`` words it differently)
                self._compiled.subn(repl[:0], string, count)
            template = repl
            budget = current_or_default()

            def repl(m: Any) -> Any:
                budget.charge(1)
                result = m.expand(template)
                out_size.add(result)
                return result
        else:
            _text_bound(repl, string)
        try:
            return _bounded(lambda t: self._matcher.subn(repl, string, count, timeout=t))  # type: ignore[no-any-return]
        finally:
            if template is not None:
                _forget_template(self._matcher, template)

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
