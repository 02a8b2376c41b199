"""Deciding tool calls: every condition kind both ways, rule order, globs, argument binding."""

from __future__ import annotations

import timeit
from typing import Any

import pytest

from safe_eval.policy import Policy, parse_policy

# (condition text, values it allows, values it denies)
CONDITIONS = [
    ("x: int", [1, -5, True], ["1", 1.5, None, [1]]),
    ("x: float", [1.5, 2], ["1.5", None]),
    ("x: str", ["", "a"], [b"a", 1, None]),
    ("x: list[int]", [[], [1, 2, 3]], [[1, "2"], (1, 2), "12", [1, 2, None]]),
    ("x: dict[str, float]", [{}, {"a": 1.0, "b": 2}], [{"a": "x"}, {1: 1.0}, [("a", 1.0)]]),
    ("x: int | None", [None, 3], ["3", 3.5]),
    ('x: Literal["r", "w"]', ["r", "w"], ["a", "rw", None]),
    ("x: tuple[int, ...]", [(), (1, 2)], [(1, "a"), [1, 2]]),
    ("x: Any", [object(), None, 1], []),
    ('x == "read"', ["read"], ["write", "READ", None, b"read"]),
    ("x == 1", [1, 1.0], [True, "1", 2]),
    ("x == True", [True], [1, 1.0, "True"]),
    ("x == None", [None], [0, "", False]),
    ('x != "root"', ["user", 1, None], ["root"]),
    ('x in {"a", "b", 3}', ["a", "b", 3, 3.0], ["c", True, None, ["a"]]),
    ('x not in {"root", "admin"}', ["bob", 1], ["root", "admin"]),
    ("x in 1..50", [1, 50, 25, 1.5], [0, 51, -1, "5", True, None, float("nan")]),
    ("x in ..0", [0, -10, -0.5], [1, 0.1]),
    ("x in -2.5..", [-2.5, 100], [-3]),
    (r'x matches r"data/[a-z]+\.txt"', ["data/a.txt"], ["data/a.txt\n", "xdata/a.txt", "data/A.txt", 5, None]),
    ('x matches "^a.*$"', ["a", "abc", "a\n"], ["ba", "\na"]),
    (r'x not matches r".*\.\..*"', ["data/a", "x"], ["data/../etc", 3]),
    ("x len 1..3", ["a", [1, 2, 3], (1,), {"k": 1}, b"ab", {1}], ["", [], "abcd", 5, None]),
    ("x len ..2", ["", "ab"], ["abc"]),
    ("x: str len 1..3 matches r\"[a-z]+\"", ["ab"], ["", "abcd", "AB", ["ab"]]),
]


@pytest.mark.parametrize(("cond", "good", "bad"), CONDITIONS, ids=[c[0] for c in CONDITIONS])
def test_each_condition_allows_and_denies(cond: str, good: list[Any], bad: list[Any]) -> None:
    policy = parse_policy(f"allow f({cond})")
    for value in good:
        assert policy.decide("f", (value,), {}).allowed, value
        assert policy.decide("f", (), {"x": value}).allowed, value
    for value in bad:
        decision = policy.decide("f", (value,), {})
        assert not decision.allowed, value
        assert decision.code == "T004"
        assert "argument `x`" in decision.message


class Liar:
    """A guest-style object that claims to equal everything and to be short."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("read")

    def __len__(self) -> int:
        return 1


class LongList(list[int]):
    def __len__(self) -> int:
        return 1


@pytest.mark.parametrize(
    ("cond", "value"),
    [('x == "read"', Liar()), ('x in {"read"}', Liar()), ("x len 1..1", Liar()), ("x len 1..1", LongList(range(9)))],
)
def test_conditions_do_not_trust_the_values_own_methods(cond: str, value: Any) -> None:
    assert not parse_policy(f"allow f({cond})").decide("f", (value,), {}).allowed


def test_no_tool_rules_grants_env_callables() -> None:
    assert Policy().decide("anything", (1,), {"a": 2}).allowed


def test_with_rules_an_unmatched_call_is_denied_and_named() -> None:
    policy = parse_policy("allow search(q: str)\nallow read_file(*)")
    decision = policy.decide("delete_file", ("x",), {})
    assert not decision.allowed and decision.code == "T003"
    assert decision.message == "`delete_file` is not an allowed tool; allowed tools: search, read_file"


def test_first_matching_rule_decides() -> None:
    policy = parse_policy('deny f(x == 1) "one is bad"\nallow f(x: int)\ndeny f(*)')
    assert not policy.decide("f", (1,), {}).allowed
    assert policy.decide("f", (1,), {}).message == "calling `f` is denied (one is bad)"
    assert policy.decide("f", (2,), {}).allowed
    assert not policy.decide("f", ("2",), {}).allowed
    flipped = parse_policy('allow f(x: int)\ndeny f(x == 1) "one is bad"')
    assert flipped.decide("f", (1,), {}).allowed


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("delete_*", ["delete_", "delete_file", "delete_all_rows"], ["delete", "undelete_x", "xdelete_file"]),
        ("*_file", ["read_file", "_file"], ["read_files", "file"]),
        ("*", ["a", "anything_at_all"], []),
        ("get*value", ["getvalue", "get_the_value"], ["get_value_x"]),
        ("search", ["search"], ["searcher", "research"]),
    ],
)
def test_globs(pattern: str, matches: list[str], misses: list[str]) -> None:
    policy = parse_policy(f"deny {pattern}(*)\nallow *")
    for name in matches:
        assert not policy.decide(name, (), {}).allowed, name
    for name in misses:
        assert policy.decide(name, (), {}).allowed, name


def test_allow_rule_permits_only_named_arguments_unless_star() -> None:
    closed = parse_policy("allow f(a: int)")
    assert closed.decide("f", (1,), {}).allowed
    assert closed.decide("f", (), {}).allowed  # a left-out argument keeps the tool's default
    assert not closed.decide("f", (1,), {"b": 2}).allowed
    assert not closed.decide("f", (1, 2), {}).allowed
    assert "may not be passed argument `b`" in closed.decide("f", (1,), {"b": 2}).message
    opened = parse_policy("allow f(a: int, *)")
    assert opened.decide("f", (1, 2), {"b": 3}).allowed
    assert not opened.decide("f", ("1",), {"b": 3}).allowed
    none = parse_policy("allow f()")
    assert none.decide("f", (), {}).allowed and not none.decide("f", (1,), {}).allowed


def test_deny_rule_fires_when_its_conditions_hold_whatever_else_is_passed() -> None:
    policy = parse_policy('deny send(to matches r".*@evil\\.com")\nallow send(*)')
    assert not policy.decide("send", (), {"to": "a@evil.com", "cc": "x"}).allowed
    assert policy.decide("send", (), {"to": "a@ok.com", "cc": "x"}).allowed
    assert policy.decide("send", (), {"cc": "a@evil.com"}).allowed  # `to` not passed


def search(query: str, limit: int = 10, *, lang: str = "en") -> list[str]:
    return []


def test_positional_arguments_bind_by_the_tools_signature() -> None:
    # the rule lists `limit` first; the signature says `query` is first
    policy = parse_policy("allow search(limit: int in 1..5, query: str, lang: str)")
    assert policy.decide("search", ("q", 3), {}, search).allowed
    assert not policy.decide("search", ("q", 30), {}, search).allowed
    assert policy.decide("search", ("q",), {"lang": "de"}, search).allowed
    # without the function, positions follow the rule's order
    assert not policy.decide("search", ("q", 3), {}).allowed
    assert policy.decide("search", (3, "q"), {}).allowed


def test_call_that_does_not_fit_the_signature_is_denied_catchably() -> None:
    policy = parse_policy("allow search(*)\nallow search(query: str)")
    decision = policy.decide("search", (), {"nope": 1}, search)
    assert policy.decide("search", (), {"nope": 1}, None).allowed  # no signature: rule 1 allows
    assert decision.allowed  # rule 1 allows anything: no need to bind
    strict = parse_policy("allow search(query: str, limit: int)")
    decision = strict.decide("search", (), {"nope": 1}, search)
    assert not decision.allowed and decision.raise_to_guest
    assert "unexpected keyword argument 'nope'" in decision.message


def kw_tool(**options: Any) -> None:
    return None


def test_kwargs_tools_expose_their_keywords_to_rules() -> None:
    policy = parse_policy("allow kw_tool(mode in {\"a\"}, n: int)")
    assert policy.decide("kw_tool", (), {"mode": "a", "n": 1}, kw_tool).allowed
    assert not policy.decide("kw_tool", (), {"mode": "b"}, kw_tool).allowed
    assert not policy.decide("kw_tool", (), {"other": 1}, kw_tool).allowed


def test_signatureless_callables_are_decided_in_doubt() -> None:
    # which argument of `max` is `a` is unknown: an allow rule naming arguments cannot permit
    # the call, a deny rule naming them fires; a rule without argument conditions still applies
    assert not parse_policy("allow max(a: int, b: int)").decide("max", (1, 2), {}, max).allowed
    assert not parse_policy("deny max(a: int)\nallow max(*)").decide("max", (1, 2), {}, max).allowed
    assert parse_policy("allow max(*)").decide("max", (1, 2), {}, max).allowed
    assert parse_policy("allow max(a: int, b: int)").decide("max", (1, 2), {}).allowed  # no fn: rule order


def test_denial_messages_are_written_for_a_model() -> None:
    policy = parse_policy("allow search(query: str, limit: int in 1..50)")
    decision = policy.decide("search", ("x",), {"limit": 100}, search)
    assert decision.message == "`search` call denied: argument `limit` must be a number in 1..50, got 100"
    assert decision.hint == "allowed calls: search(query: str, limit: int in 1..50)"


def _twenty_rules() -> Policy:
    lines = [f"allow tool_{i}(a: str len 1..100, b: int in 0..1000)" for i in range(17)]
    lines += ['deny delete_*(*) raise "no"', "allow search(query: str, limit: int in 1..50)", "deny *(*)"]
    return parse_policy("\n".join(lines))


def test_decision_cost_with_twenty_rules() -> None:
    policy = _twenty_rules()
    assert len(policy.tools) == 20
    args, kwargs = ("cats",), {"limit": 10}
    assert policy.decide("search", args, kwargs, search).allowed
    n = 2000
    per_call = min(timeit.repeat(lambda: policy.decide("search", args, kwargs, search), number=n, repeat=5)) / n
    # the target is 5 us on a normal machine; leave room for a loaded CI box
    assert per_call < 50e-6, f"{per_call * 1e6:.1f} us per decision"


# The three ways a rule is evaluated must agree: the fast matcher (run time), the explanation
# (denial messages) and the three-valued matcher (static check) when every value is known.

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from safe_eval.policy.rules import tri_match  # noqa: E402

_RULE_TEXTS = [
    "allow f(a: int in 0..10, b: str len 1..3)",
    "allow f(a: int, *)",
    'allow f(a in {1, "x"}, b matches r"[a-z]+")',
    "allow f()",
    'deny f(a == 1, b: str)',
    "deny f(b len ..2)",
    "allow f(*)",
]
_values = st.one_of(st.integers(-3, 12), st.text(max_size=4), st.none(), st.lists(st.integers(), max_size=2))


@settings(max_examples=300, deadline=None)
@given(
    text=st.sampled_from(_RULE_TEXTS),
    args=st.lists(_values, max_size=3).map(tuple),
    kwargs=st.dictionaries(st.sampled_from(["a", "b", "c"]), _values, max_size=3),
)
def test_matcher_explanation_and_static_matcher_agree(text: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    (rule,) = parse_policy(text).tools
    fast = rule.match(args, kwargs, None)
    static = tri_match(rule, None, args, kwargs)
    if rule.action == "deny" and args and static is None:
        # positions the static check can only guess (no signature): it leaves them to run time
        assert not set(a.name for a in rule.args or ()) <= set(kwargs)
    else:
        assert static is fast
    if rule.action == "allow":
        assert (rule.failure("f", args, kwargs, None) is None) is fast
