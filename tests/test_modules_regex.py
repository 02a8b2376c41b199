"""The curated ``re``: exponential patterns are refused before they run, ordinary patterns
behave exactly as in CPython, and polynomial backtracking ends at the time limit."""

from __future__ import annotations

import ast
import gzip
import json
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from safe_eval import safe_eval
from safe_eval.errors import GuestError, LimitExceeded
from safe_eval.membrane.modules._regex_guard import analyse

DATA = Path(__file__).parent / "data"

# Classic ReDoS shapes (OWASP, Snyk, Davis et al. "The impact of ReDoS in practice").
EXPONENTIAL = [
    r"(a+)+$", r"(a*)*$", r"(a+)*b", r"(\w+\s?)+$", r"(.*a){12}", r"(a|aa)+$", r"(a|a?)+$",
    r"^(\d+)+$", r"(x+x+)+y", r"(\d+|[a-z]+)+!", r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@)",
    r"^(([a-z])+.)+[A-Z]([a-z])+$", r"(?:a+){2,}$", r"((ab)*)+c", r"(\s*\w+\s*)*;",
]

ORDINARY = [
    r"\d{3}-\d{4}", r"(\d{3})-(\d{4})", r"[\w.]+@(\w+)\.org", r"[;\s]+", r"(\w+\.)+com",
    r"(\s*,\s*\w+)*", r"(cat|dog)+", r"(ab|ac)+", r"(?:[^\"\\]|\\.)*", r"((ab)*c)*", r"\b\w+\b",
    r"^\s*$", r"(\w+)\s+\1", r"(?P<year>\d{4})-(?P<month>\d\d)", r"[A-Z][a-z]*", r"(?i)hello",
    r"(\w+(?:\s\w+)*)", r"(?:\d+,)*\d+", r"([a-z]+(?:-[a-z]+)*)", r"[.?!]\s*", r"a{2,5}?",
    r"(?=\d)\w+", r"(a|b)*c", r"^-?\d+(\.\d+)?$", r"\s+", r"(\w|-)+", r"(\w+)=(\w+)",
]

TEXT = "Call 555-1234 or 555-9876; email a.b@x.org. cat dogcat, ab ac! word word  2024-05 x=1 a-b-c"


@pytest.mark.parametrize("pattern", EXPONENTIAL)
def test_exponential_pattern_is_refused_fast(pattern):
    t0 = time.monotonic()
    with pytest.raises(GuestError) as info:
        safe_eval(f"import re\nre.match({pattern!r}, 'a' * 40 + '!')", {})
    assert info.value.type_name == "error"
    assert "refused by safe-eval" in info.value.message and "backtrack exponentially" in info.value.message
    assert time.monotonic() - t0 < 1.0


def test_the_briefs_redos_example_ends_fast_with_a_clear_error():
    t0 = time.monotonic()
    with pytest.raises(GuestError, match=r"nested quantifier.*rewrite it"):
        safe_eval("import re\nre.match('(a+)+$', 'a' * 40 + 'b')", {})
    assert time.monotonic() - t0 < 1.0


def test_refused_pattern_is_catchable_as_re_error():
    code = "import re\ntry:\n    re.compile('(a+)+')\n    r = 'compiled'\nexcept re.error as e:\n    r = 'refused'\nr"
    assert safe_eval(code, {}) == "refused"


@pytest.mark.parametrize("pattern", ORDINARY)
def test_ordinary_pattern_matches_cpython(pattern):
    code = (f"import re\np = re.compile({pattern!r})\nt = {TEXT!r}\n"
            "m = p.search(t)\n"
            "(p.findall(t), [x.span() for x in p.finditer(t)], p.sub('#', t), p.split(t)[:5],"
            " None if m is None else (m.group(0), m.groups(), m.span()), bool(re.match(p, t)))")
    p = re.compile(pattern)
    m = p.search(TEXT)
    expected = (p.findall(TEXT), [x.span() for x in p.finditer(TEXT)], p.sub("#", TEXT), p.split(TEXT)[:5],
                None if m is None else (m.group(0), m.groups(), m.span()), bool(re.match(p, TEXT)))
    assert safe_eval(code, {}) == expected


def _humaneval_patterns() -> list[str]:
    found: set[str] = set()
    with gzip.open(DATA / "humaneval" / "HumanEval.jsonl.gz", "rt") as fh:
        for line in fh:
            problem = json.loads(line)
            tree = ast.parse(problem["prompt"] + problem["canonical_solution"])
            for node in ast.walk(tree):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                        and node.args and isinstance(node.args[0], ast.Constant)):
                    found.add(node.args[0].value)
    return sorted(found)


@pytest.mark.parametrize("pattern", _humaneval_patterns())
def test_humaneval_patterns_are_accepted(pattern):
    assert analyse(pattern, 0).refusal is None


def test_polynomial_backtracking_ends_at_the_time_limit():
    t0 = time.monotonic()
    with pytest.raises(LimitExceeded, match="time limit"):
        safe_eval("import re\nre.search(r'\\s*$', ' ' * 300000 + 'x')", {}, limits={"time": 0.5})
    assert time.monotonic() - t0 < 2.0


def test_host_alarm_handler_and_timer_are_restored():
    calls = []

    def host_handler(signum, frame):
        calls.append(signum)

    old = signal.signal(signal.SIGALRM, host_handler)
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        safe_eval("import re\nlen(re.findall(r'\\w+', 'ab cd ' * 1000))", {})
        assert signal.getsignal(signal.SIGALRM) is host_handler
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < remaining <= 30.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert calls == []


def test_refusal_holds_off_the_main_thread():
    out = []

    def run():
        try:
            safe_eval("import re\nre.match('(a+)+$', 'a' * 40 + 'b')", {})
            out.append("ran")
        except GuestError as e:
            out.append(e.type_name)

    t = threading.Thread(target=run)
    t.start()
    t.join(10)
    assert out == ["error"]


@pytest.mark.parametrize("code", [
    "import re\nre.compile('a', re.DEBUG if hasattr(re, 'DEBUG') else 128)",
    "import re\nre.compile('(' * 50000 + ')' * 50000)",
    "import re\nre.compile('a' * 20000)",
])
def test_debug_deep_and_huge_patterns_are_refused(code):
    with pytest.raises(GuestError) as info:
        safe_eval(code, {})
    assert info.value.type_name == "error"


def test_pattern_wrapper_keeps_repr_and_equality():
    assert safe_eval("import re\n(repr(re.compile('a+', re.I)), re.compile('x') == re.compile('x'))", {}) == (
        "re.compile('a+', re.IGNORECASE)", True)
