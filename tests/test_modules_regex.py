"""The curated ``re``: CPython ``re`` semantics (validity, results, errors, repr) over the
``regex`` matcher, which is what bounds the work (see ``tests/security/test_regex_bound.py``)."""

from __future__ import annotations

import ast
import gzip
import json
import re
import signal
from pathlib import Path

import pytest

from safe_eval import safe_eval
from safe_eval.errors import GuestError

DATA = Path(__file__).parent / "data"

ORDINARY = [
    r"\d{3}-\d{4}", r"(\d{3})-(\d{4})", r"[\w.]+@(\w+)\.org", r"[;\s]+", r"(\w+\.)+com",
    r"(\s*,\s*\w+)*", r"(cat|dog)+", r"(ab|ac)+", r"(?:[^\"\\]|\\.)*", r"((ab)*c)*", r"\b\w+\b",
    r"^\s*$", r"(\w+)\s+\1", r"(?P<year>\d{4})-(?P<month>\d\d)", r"[A-Z][a-z]*", r"(?i)hello",
    r"(\w+(?:\s\w+)*)", r"(?:\d+,)*\d+", r"([a-z]+(?:-[a-z]+)*)", r"[.?!]\s*", r"a{2,5}?",
    r"(?=\d)\w+", r"(a|b)*c", r"^-?\d+(\.\d+)?$", r"\s+", r"(\w|-)+", r"(\w+)=(\w+)",
    r"(?<=a)b", r"(?<!x)c", r"(?P<w>\w)(?P=w)", r"(a)?(?(1)b|c)", r"a++b", r"(?>a+)b", r"x*",
    r"", r"\b", r"(?m)^\w", r"(?s).", r"(?x) a \d  # comment", r"[^\W\d_]+", r"\{\d+\}", r"a{,3}",
    # re reads these braces as literal text; regex alone would read fuzzy matching or a repeat
    r"a{e<=1}", r"x{}", r"x{1,2", r"[{]}",
]

TEXT = ("Call 555-1234 or 555-9876; email a.b@x.org. cat dogcat, ab ac! word word  2024-05 x=1 "
        "a-b-c aab abc xc aa ac a{e<=1} x{} x{1,2 {} {42}")


def _everything(p: re.Pattern[str], text: str) -> tuple[object, ...]:
    m = p.search(text)
    return (p.findall(text), [x.span() for x in p.finditer(text)], p.sub("#", text), p.subn("<\\g<0>>", text),
            p.split(text)[:8], None if m is None else (m.group(0), m.groups(), m.span(), m.groupdict(),
                                                       m.lastindex, m.regs, repr(m)),
            bool(p.match(text)), bool(p.fullmatch(text)), p.groups, dict(p.groupindex), p.flags, repr(p))


@pytest.mark.parametrize("pattern", ORDINARY, ids=ORDINARY)
def test_ordinary_pattern_matches_cpython(pattern):
    code = (f"import re\np = re.compile({pattern!r})\nt = {TEXT!r}\nm = p.search(t)\n"
            "(p.findall(t), [x.span() for x in p.finditer(t)], p.sub('#', t), p.subn('<\\\\g<0>>', t),"
            " p.split(t)[:8], None if m is None else (m.group(0), m.groups(), m.span(), m.groupdict(),"
            " m.lastindex, m.regs, repr(m)), bool(p.match(t)), bool(p.fullmatch(t)), p.groups,"
            " dict(p.groupindex), p.flags, repr(p))")
    try:
        expected = _everything(re.compile(pattern), TEXT)
    except re.error as exc:  # syntax this CPython does not have yet (a++b before 3.11): refused alike
        with pytest.raises(GuestError) as info:
            safe_eval(code, {})
        assert (info.value.type_name, info.value.message) == (re.error.__name__, str(exc))
        return
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
def test_humaneval_patterns_match_cpython(pattern):
    code = f"import re\np = re.compile({pattern!r})\nt = {TEXT!r}\n(p.findall(t), p.split(t), p.sub('#', t))"
    p = re.compile(pattern)
    assert safe_eval(code, {}) == (p.findall(TEXT), p.split(TEXT), p.sub("#", TEXT))


@pytest.mark.parametrize(("code", "expected"), [
    ("re.match(r'(?P<x>a)(b)?', 'a').expand(r'[\\g<x>|\\2]')", "[a|]"),
    ("re.sub('a', lambda m: m.group().upper() * 2, 'banana')", "bAAnAAnAA"),
    ("p.sub(lambda m: type(m).__name__ + str(m.re is p), 'xa')", "xMatchTrue"),
    ("re.split(r'\\W+', 'a, b c', maxsplit=1)", ["a", "b c"]),
    ("re.escape('a.b*c')", "a\\.b\\*c"),
    ("(type(re.match('a', 'a')) is re.Match, isinstance(p, re.Pattern), re.Pattern[str] is not None)",
     (True, True, True)),
    ("p.match('xxa', 2).span(), p.search('aaa', 0, 1).span(), p.fullmatch('ba', 1) is not None",
     ((2, 3), (0, 1), True)),
    ("[m.group() for m in re.finditer(r'\\d', 'a1b2')]", ["1", "2"]),
    ("re.findall(rb'\\d+', b'a12b3')", [b"12", b"3"]),
    ("re.compile('a', re.I | re.M).flags == re.compile('(?im)a').flags", True),
    ("(repr(re.compile('a+', re.I)), re.compile('x') == re.compile('x'))", ("re.compile('a+', re.IGNORECASE)", True)),
], ids=["expand", "sub-callable", "sub-callable-gets-re-Match", "split-maxsplit", "escape", "types",
        "pos-endpos", "finditer", "bytes", "flags", "repr-eq"])
def test_api_behaves_like_cpython(code, expected):
    assert safe_eval(f"import re\np = re.compile('a')\n{code}", {}) == expected


@pytest.mark.parametrize(("code", "type_name", "message"), [
    ("re.compile('a', 128)", "error", "re.DEBUG is not available in safe-eval"),
    ("re.compile('(' * 50000 + ')' * 50000)", "error", "pattern longer than 10000 characters"),
    ("re.compile('a' * 20000)", "error", "pattern longer than 10000 characters"),
    ("re.compile('[[:alpha:]]')", "error", "Possible nested set at position 1"),
    ("re.compile('(?<name>a)')", "error", "unknown extension ?<n at position 1"),
    ("re.compile(r'\\p{L}')", "error", "bad escape \\p at position 0"),
    ("re.compile('(?V1)a')", "error", "unknown extension ?V at position 1"),
    ("re.match('a', b'a')", "TypeError", "cannot use a string pattern on a bytes-like object"),
    ("re.sub('a', b'x', 'a')", "TypeError", "expected str instance, bytes found"),
    ("re.compile(re.compile('a'), re.I)", "ValueError", "cannot process flags argument with a compiled pattern"),
    ("getattr(re.match('a', 'a'), '_' + 'm')", "AttributeError", "'Match' object attribute '_m' is not accessible in safe-eval"),
    ("getattr(re.compile('a'), '_' + 'matcher')", "AttributeError",
     "'Pattern' object attribute '_matcher' is not accessible in safe-eval"),
], ids=["debug", "deep", "long", "posix-class", "regex-only-group-syntax", "regex-only-escape",
        "regex-only-flag", "str-on-bytes", "bytes-repl", "flags-on-compiled", "match-internals",
        "pattern-internals"])
def test_refusals_are_re_errors_with_cpythons_messages(code, type_name, message):
    if type_name == "error":
        type_name = re.error.__name__  # "PatternError" from CPython 3.13 on, as the guest sees it
    with pytest.raises(GuestError) as info:
        safe_eval(f"import re\n{code}", {})
    assert (info.value.type_name, message in info.value.message) == (type_name, True), info.value.message


def test_refused_pattern_is_catchable_as_re_error():
    code = "import re\ntry:\n    re.compile('[[:digit:]]')\n    r = 'compiled'\nexcept re.error as e:\n    r = 'refused'\nr"
    assert safe_eval(code, {}) == "refused"


def test_host_alarm_handler_and_timer_are_untouched():
    calls = []

    def host_handler(signum, frame):
        calls.append(signum)

    old = signal.signal(signal.SIGALRM, host_handler)
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        safe_eval("import re\nlen(re.findall(r'\\s*$', ' ' * 100000 + 'x'))", {})
        assert signal.getsignal(signal.SIGALRM) is host_handler
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < remaining <= 30.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert calls == []
