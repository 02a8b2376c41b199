"""Invariant 7: every regular expression match the guest can start ends within the run's time
limit, whatever the pattern's shape and however short the subject (the matcher's own timeout,
set to the run's remaining time, on every entry point)."""

from __future__ import annotations

import threading

import pytest

from safe_eval import safe_eval
from safe_eval.errors import GuestError, MemoryLimit, TimeLimit

# An overlapping alternation backtracks exponentially in every backtracking matcher; 41
# characters is far below the 256 the old shape guard left untimed.
EVIL = "'(a|aa)+$'"
SUBJECT = "'a' * 40 + 'b'"
LIMITS = {"time": 0.3}

ENTRY_POINTS = {
    "match": f"re.match({EVIL}, {SUBJECT})",
    "search": f"re.search({EVIL}, {SUBJECT})",
    "fullmatch": f"re.fullmatch({EVIL}, {SUBJECT})",
    "sub": f"re.sub({EVIL}, 'x', {SUBJECT})",
    "subn": f"re.subn({EVIL}, 'x', {SUBJECT})",
    "sub-with-callable": f"re.sub({EVIL}, lambda m: 'x', {SUBJECT})",
    "split": f"re.split({EVIL}, {SUBJECT})",
    "findall": f"re.findall({EVIL}, {SUBJECT})",
    "finditer-step": f"it = re.finditer({EVIL}, {SUBJECT})\nnext(it)",
    "Pattern.match": f"re.compile({EVIL}).match({SUBJECT})",
    "Pattern.search-pos": f"re.compile({EVIL}).search({SUBJECT}, 0, 41)",
    "Pattern.fullmatch": f"re.compile({EVIL}).fullmatch({SUBJECT})",
    "Pattern.sub": f"re.compile({EVIL}).sub('', {SUBJECT})",
    "Pattern.split": f"re.compile({EVIL}).split({SUBJECT})",
    "Pattern.findall": f"re.compile({EVIL}).findall({SUBJECT})",
    "Pattern.finditer": f"list(re.compile({EVIL}).finditer({SUBJECT}))",
    "flags": f"re.match('(A|aA)+$', {SUBJECT}, re.I)",
    "inline-flags": f"re.match('(?i)(a|a)+$', {SUBJECT})",
    "bytes": "re.match(rb'(a|aa)+$', b'a' * 40 + b'b')",
    "Match.re": f"re.compile({EVIL}).match('a').re.match({SUBJECT})",
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("call", list(ENTRY_POINTS.values()), ids=list(ENTRY_POINTS))
def test_an_exponential_match_on_a_short_subject_ends_with_time_limit(call):
    with pytest.raises(TimeLimit):
        safe_eval(f"import re\n{call}", {}, limits=LIMITS)


@pytest.mark.timeout(30)
def test_a_catastrophic_match_ends_with_time_limit_off_the_main_thread():
    out: list[str] = []

    def run() -> None:
        try:
            safe_eval(f"import re\nre.match({EVIL}, {SUBJECT})", {}, limits=LIMITS)
            out.append("ran")
        except TimeLimit:
            out.append("TimeLimit")

    t = threading.Thread(target=run)
    t.start()
    t.join(20)
    assert out == ["TimeLimit"]


@pytest.mark.timeout(30)
def test_a_match_started_late_in_the_run_gets_only_the_time_that_is_left():
    # the loop spends most of the run; the match gets the remainder, not a fresh limit
    code = f"import re\nn = 0\nwhile n < 10**9:\n    n += 1\n    if n == 200000:\n        re.match({EVIL}, {SUBJECT})"
    with pytest.raises(TimeLimit):
        safe_eval(code, {}, limits={"time": 0.5, "ops": 10**9})


@pytest.mark.parametrize(("code", "expected"), [
    ("m = re.match(r'(?:a?){34}a{34}', 'a' * 34)\nm.span()", (0, 34)),
    ("re.match('(a+)+$', 'a' * 40 + 'b')", None),
    ("re.match(r'(\\w+\\s?)+$', 'a' * 40 + '!')", None),
    ("re.search(r'\\s*$', ' ' * 300 + 'x').span()", (301, 301)),
], ids=["a-optional-34", "nested-plus", "words-and-spaces", "polynomial-short"])
def test_the_classic_redos_shapes_end_with_cpythons_answer(code, expected):
    assert safe_eval(f"import re\n{code}", {}, limits=LIMITS) == expected


@pytest.mark.parametrize("call", [
    "re.match('(a)', 'a' * 1000).expand(r'\\1' * 10**6)",
    "re.sub('a', r'\\g<0>' * 10**5, 'a' * 10**4)",
    "re.compile('a').subn('b' * 10**5, 'a' * 10**4)",
    "re.escape('.' * 10**9)",
], ids=["Match.expand", "sub-template", "Pattern.subn-template", "escape"])
def test_text_built_by_the_matcher_is_priced_before_it_is_built(call):
    with pytest.raises(MemoryLimit):
        safe_eval(f"import re\n{call}", {}, limits={"memory": 64 * 2**20, "time": 5.0})


@pytest.mark.parametrize(("call", "message"), [
    ("re.Pattern(re.compile('a'), re.compile('a'))", "TypeError: cannot create 're.Pattern' instances"),
    ("re.Match(None, re.compile('a'))", "TypeError: cannot create 're.Match' instances"),
    ("type(re.match('a', 'a'))(None, None, None)", "TypeError: cannot create 're.Match' instances"),
], ids=["Pattern", "Match", "Match-key-guessed"])
def test_the_guest_cannot_build_a_pattern_or_match_around_its_own_objects(call, message):
    with pytest.raises(GuestError) as info:
        safe_eval(f"import re\n{call}", {})
    assert str(info.value).endswith(message)


# -- memory the deadline does not bound (red-team round 2) ----------------------------------
SMALL = {"memory": 64 * 2**20, "time": 5.0}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("call", [
    "re.compile('(?:(?:(?:a{50}){50}){50}){50}')",
    "re.compile('(?:(?:(a){50}){50}){50}')",
    "re.search('x(?:(?:ab{50}){50}){50}', 'abc')",
    "re.compile(b'(?:(?:(?:a{50}){50}){50}){50}')",
], ids=["nested-fixed-repeats", "groups-in-fixed-repeats", "module-function", "bytes-pattern"])
def test_a_pattern_whose_compiled_program_would_not_fit_is_refused_before_it_is_built(call):
    with pytest.raises(MemoryLimit):
        safe_eval(f"import re\n{call}", {}, limits=SMALL)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("call", [
    "big = 'x' * 10**6\nre.sub('', lambda m: big, 'a' * 2000)",
    "big = 'x' * 10**6\nre.compile('a').subn(lambda m: big, 'a' * 2000)",
    "re.sub('(?=(.*))', r'\\1', 'a' * 30000)",
    "re.sub('(?=(.*))', r'\\g<1>', 'a' * 30000)",
    "re.split('(?=(.*))', 'a' * 30000)",
    "re.findall('(?=(.*))', 'a' * 30000)",
    "re.findall('(?=(.*))(?=(.*))', 'a' * 20000)",
], ids=["sub-callable", "subn-callable", "sub-template-lookahead", "sub-named-ref-lookahead",
        "split-lookahead-group", "findall-lookahead-group", "findall-two-groups"])
def test_text_the_matcher_returns_is_counted_as_it_grows(call):
    with pytest.raises(MemoryLimit):
        safe_eval(f"import re\n{call}", {}, limits=SMALL)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("call", [
    "re.match('(?:' + '(?=(a))' * 20 + 'a)*', 'a' * 200_000)",
    "re.fullmatch('(?:(a)|(b))*', 'a' * 400_000)",
    "re.compile('((a))*').search('a' * 400_000)",
    "list(re.finditer('(?:(?=(a))a)*', 'a' * 400_000))",
], ids=["lookahead-captures-in-a-repeat", "fullmatch-groups-in-a-repeat", "search-nested-groups",
        "finditer"])
def test_capture_history_and_backtracking_state_are_checked_before_the_match(call):
    with pytest.raises(MemoryLimit):
        safe_eval(f"import re\n{call}", {}, limits=SMALL)


@pytest.mark.parametrize(("call", "expected"), [
    ("re.sub(r'(\\d+)', r'<\\1>', 'a1b22')", "a<1>b<22>"),
    ("re.sub('(?=(b))', r'[\\1]', 'abab')", "a[b]ba[b]b"),
    ("re.subn('a', lambda m: m.group() * 2, 'banana')", ("baanaanaa", 3)),
    ("re.sub('x', r'\\n', 'axb')", "a\nb"),
    ("re.split('(,)', 'a,b,c', 1)", ["a", ",", "b,c"]),
    ("re.split(r'\\b', 'a b')", ["", "a", " ", "b", ""]),
    ("re.findall('(?=(aa))', 'aaaa')", ["aa", "aa", "aa"]),
    ("re.compile('(?:(?:a{5}){5}){5}').fullmatch('a' * 125) is not None", True),
    ("re.match('(a)*', 'aaa').group(1)", "a"),
], ids=["sub-ref", "sub-lookahead-ref", "subn-callable", "sub-escape-only", "split-group-maxsplit",
        "split-empty-matches", "findall-lookahead", "nested-fixed-repeat", "groups-in-repeat"])
def test_bounded_regex_calls_keep_cpython_results(call, expected):
    assert safe_eval(f"import re\n{call}", {}, limits=SMALL) == expected


def test_the_process_wide_pattern_cache_stays_within_its_byte_bound():
    from safe_eval.membrane.modules import re as curated_re

    code = "import re\nfor i in range(40):\n    re.compile('x{%d}(?:ab{2000})' % i)"
    safe_eval(code, {}, limits={"memory": 512 * 2**20, "time": 20.0, "ops": 10**7})
    assert 0 < curated_re._cache_bytes <= curated_re.CACHE_BYTES
    assert sum(entry[3] for entry in curated_re._cache.values()) == curated_re._cache_bytes
