"""Curated ``re``: the module functions and compiled patterns, with backtracking guards.

The rule (a C regex call cannot be interrupted by the interpreter):
1. Every pattern is analysed when compiled (``_regex_guard``): patterns that backtrack
   exponentially (nested quantifiers, overlapping repeated alternations) are refused with a
   clear ``re.error`` before they run. ``re.DEBUG`` (prints to the host's stdout) is refused.
2. Patterns with variable repetition may still backtrack polynomially (``\\s*$`` on a long
   run of spaces). When they run on a subject of more than ``TIMED_SUBJECT`` characters on the
   main thread, the call runs under a ``SIGALRM`` timer set to the evaluation's remaining time
   (``_sre`` checks signals while matching), so it ends with ``TimeLimit``. An existing host
   timer is honoured and restored. (Other threads cannot be interrupted: there only rule 1 holds.)
3. ``sub``/``subn`` check the result size bound ``len(s) + (len(s)+1)*len(repl) + refs*len(s)``
   before the call.
``compile`` returns a ``Pattern`` wrapper whose methods apply the same guards (a host
``re.Pattern`` would run unguarded).
"""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from safe_eval.errors import TimeLimit
from safe_eval.limits.budget import current
from safe_eval.membrane.modules._regex_guard import analyse
from safe_eval.membrane.modules._util import check_alloc

TIMED_SUBJECT = 256

FLAGS = ["A", "ASCII", "I", "IGNORECASE", "L", "LOCALE", "M", "MULTILINE", "S", "DOTALL", "X",
         "VERBOSE", "U", "UNICODE", "NOFLAG", "RegexFlag"]

_state = threading.local()


def _flags_of(flags: Any) -> int:
    value = int(flags)
    if value & re.DEBUG:
        raise re.error("re.DEBUG is not available in safe-eval")
    return value


def _compile(pattern: Any, flags: Any) -> tuple[re.Pattern[Any], bool]:
    if isinstance(pattern, Pattern):
        if flags:
            raise ValueError("cannot process flags argument with a compiled pattern")
        return pattern._compiled, pattern._risky
    if not isinstance(pattern, (str, bytes)):
        raise TypeError("first argument must be string or compiled pattern")
    iflags = _flags_of(flags)
    verdict = analyse(pattern, iflags)
    if verdict.refusal is not None:
        raise re.error(f"pattern refused by safe-eval ({verdict.refusal}): {pattern!r} can "
                       "backtrack exponentially; rewrite it without a repetition inside a "
                       "repetition (e.g. '(a+)+' -> 'a+')")
    return re.compile(pattern, iflags), verdict.risky


# -- the time bound -----------------------------------------------------------------------

@contextmanager
def _deadline(risky: bool, subject: Any) -> Iterator[None]:
    """Run the body under a SIGALRM timer ending at the evaluation's deadline (see rule 2)."""
    budget = current()
    if (not risky or budget is None or getattr(_state, "armed", False)
            or not isinstance(subject, (str, bytes)) or len(subject) <= TIMED_SUBJECT
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    remaining = budget.deadline - time.monotonic()
    if remaining <= 0:
        budget.check_time()
        remaining = 1e-3
    started = time.monotonic()
    host: dict[str, Any] = {}

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        if host.get("first"):
            # the host's own timer was due first: give it its signal, then re-arm ours
            host["first"] = False
            host["delay"] = 0.0
            signal.setitimer(signal.ITIMER_REAL, max(remaining - (time.monotonic() - started), 1e-3))
            if callable(host["handler"]):
                host["handler"](signum, frame)
            return
        err = TimeLimit("time limit exceeded in a regular expression", value=budget.limits.time,
                        reached=round(time.monotonic() - budget.started, 3))
        fail = getattr(budget, "_fail", None)
        if fail is not None:
            fail(err)  # the budget stays exhausted, like every other limit
        raise err

    host["handler"] = signal.signal(signal.SIGALRM, on_alarm)
    host["delay"], interval = signal.setitimer(signal.ITIMER_REAL, remaining)
    if host["delay"] and host["delay"] < remaining:
        host["first"] = True
        signal.setitimer(signal.ITIMER_REAL, host["delay"])
    _state.armed = True
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, host["handler"])
        _state.armed = False
        if host["delay"]:
            left = host["delay"] - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), interval)


def _guarded(risky: bool, subject: Any, call: Callable[[], Any]) -> Any:
    with _deadline(risky, subject):
        return call()


def _check_sub(repl: Any, string: Any) -> None:
    if isinstance(repl, (str, bytes)) and isinstance(string, (str, bytes)):
        refs = repl.count("\\") if isinstance(repl, str) else repl.count(b"\\")
        n = len(string)
        check_alloc(n + (n + 1) * len(repl) + refs * n)


class _MatchIter:
    """``finditer``'s iterator: each step is one search, run under the guards. (A class, not a
    host generator: a generator would expose its frame.)"""

    __slots__ = ("_it", "_risky", "_subject")

    def __init__(self, it: Iterator[Any], risky: bool, subject: Any) -> None:
        self._it = it
        self._risky = risky
        self._subject = subject

    def __iter__(self) -> _MatchIter:
        return self

    def __next__(self) -> Any:
        return _guarded(self._risky, self._subject, lambda: next(self._it))


# -- the Pattern wrapper --------------------------------------------------------------------

class Pattern:
    """A compiled pattern whose matching methods run under the guards."""

    __slots__ = ("_compiled", "_risky")

    def __init__(self, compiled: re.Pattern[Any], risky: bool) -> None:
        self._compiled = compiled
        self._risky = risky

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
    def groupindex(self) -> Any:
        return self._compiled.groupindex

    def match(self, string: Any, *args: Any) -> Any:
        return _guarded(self._risky, string, lambda: self._compiled.match(string, *args))

    def fullmatch(self, string: Any, *args: Any) -> Any:
        return _guarded(self._risky, string, lambda: self._compiled.fullmatch(string, *args))

    def search(self, string: Any, *args: Any) -> Any:
        return _guarded(self._risky, string, lambda: self._compiled.search(string, *args))

    def findall(self, string: Any, *args: Any) -> Any:
        return _guarded(self._risky, string, lambda: self._compiled.findall(string, *args))

    def finditer(self, string: Any, *args: Any) -> _MatchIter:
        return _MatchIter(self._compiled.finditer(string, *args), self._risky, string)

    def split(self, string: Any, maxsplit: int = 0) -> Any:
        return _guarded(self._risky, string, lambda: self._compiled.split(string, maxsplit))

    def sub(self, repl: Any, string: Any, count: int = 0) -> Any:
        _check_sub(repl, string)
        return _guarded(self._risky, string, lambda: self._compiled.sub(repl, string, count))

    def subn(self, repl: Any, string: Any, count: int = 0) -> Any:
        _check_sub(repl, string)
        return _guarded(self._risky, string, lambda: self._compiled.subn(repl, string, count))

    def __repr__(self) -> str:
        return repr(self._compiled)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pattern) and self._compiled == other._compiled

    def __hash__(self) -> int:
        return hash(self._compiled)


# -- module functions -----------------------------------------------------------------------

def compile(pattern: Any, flags: Any = 0) -> Pattern:
    if isinstance(pattern, Pattern) and not flags:
        return pattern
    return Pattern(*_compile(pattern, flags))


def match(pattern: Any, string: Any, flags: Any = 0) -> Any:
    return compile(pattern, flags).match(string)


def fullmatch(pattern: Any, string: Any, flags: Any = 0) -> Any:
    return compile(pattern, flags).fullmatch(string)


def search(pattern: Any, string: Any, flags: Any = 0) -> Any:
    return compile(pattern, flags).search(string)


def findall(pattern: Any, string: Any, flags: Any = 0) -> Any:
    return compile(pattern, flags).findall(string)


def finditer(pattern: Any, string: Any, flags: Any = 0) -> Iterator[Any]:
    return compile(pattern, flags).finditer(string)


def split(pattern: Any, string: Any, maxsplit: int = 0, flags: Any = 0) -> Any:
    return compile(pattern, flags).split(string, maxsplit)


def sub(pattern: Any, repl: Any, string: Any, count: int = 0, flags: Any = 0) -> Any:
    return compile(pattern, flags).sub(repl, string, count)


def subn(pattern: Any, repl: Any, string: Any, count: int = 0, flags: Any = 0) -> Any:
    return compile(pattern, flags).subn(repl, string, count)


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    # ``Match.re`` is the raw host Pattern, whose methods would run unguarded
    allow_all([re.Match], refused=["re"])
    attrs: dict[str, Any] = {name: getattr(re, name) for name in FLAGS if hasattr(re, name)}
    attrs.update(compile=compile, match=match, fullmatch=fullmatch, search=search,
                 findall=findall, finditer=finditer, split=split, sub=sub, subn=subn,
                 escape=re.escape, error=re.error, Pattern=Pattern, Match=re.Match)
    return attrs
