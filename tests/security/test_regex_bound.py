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
