"""The policy DSL: parsing, rendering round trips, composition and every error path."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safe_eval.errors import PolicyError
from safe_eval.limits.model import Limits
from safe_eval.policy import (
    SHIPPED,
    Arg,
    Equals,
    InRange,
    IsType,
    LenRange,
    Matches,
    OneOf,
    Policy,
    ToolRule,
    allow,
    deny,
    describe_policy,
    parse_policy,
    render_policy,
    shipped_policy,
)
from safe_eval.policy.curated import curated
from safe_eval.policy.rules import check_applicable

SKETCH = """
policy sketch
imports math, re, json
limits time 2s, ops 10_000_000, memory 256MiB, recursion 200, output 64KiB
allow search(query: str, limit: int in 1..50)
allow read_file(path matches "^data/[A-Za-z0-9_./-]+$")
deny  delete_*(*)  "deleting is never allowed"
"""

TEXTS = {
    "sketch": SKETCH,
    "everything": """
        # comments anywhere
        policy everything   # trailing comment
        imports collections, collections.abc,
                itertools
        limits time 250ms, ops 1_000, memory 3KB, recursion 7, output 1GiB
        allow f(a: list[int] len 1..3, b: dict[str, float] | None, c in {"x", 'y', 1, -2.5, True, None})
        allow g(a != 3, b not in {"q"}, c in ..0, d in -1.5.., e matches r"\\d+", f not matches "x")
        allow h(t: tuple[int, ...], l: Literal["r", "w"], o: Optional[str], s: Sequence[int], *)
        allow noargs()
        deny  send_* raise "no sending"
        deny  drop "no dropping" raise
        allow *
    """,
    "empty": "",
    "no-imports": "policy bare\nimports none",
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_render_round_trips(name: str) -> None:
    policy = parse_policy(TEXTS[name])
    text = render_policy(policy)
    assert parse_policy(text) == policy
    assert render_policy(parse_policy(text)) == text


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_policies_round_trip(name: str) -> None:
    policy = shipped_policy(name)
    assert parse_policy(render_policy(policy)) == policy
    assert hash(parse_policy(render_policy(policy))) == hash(policy)


def test_sketch_parses_to_the_model_written_with_the_python_api() -> None:
    expected = Policy(
        name="sketch",
        imports={"math", "re", "json"},
        limits=Limits(time=2.0, ops=10_000_000, memory=256 * 2**20, recursion=200, output=64 * 1024),
        tools=[
            allow("search", Arg("query", IsType("str")), Arg("limit", IsType("int"), InRange(1, 50))),
            allow("read_file", Arg("path", Matches("^data/[A-Za-z0-9_./-]+$"))),
            deny("delete_*", message="deleting is never allowed"),
        ],
    )
    assert parse_policy(SKETCH) == expected


def test_policy_is_hashable_and_frozen() -> None:
    a, b = parse_policy(SKETCH), parse_policy(SKETCH)
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "limits"),
    [
        ("limits time 500ms", {"time": 0.5}),
        ("limits time 2min", {"time": 120.0}),
        ("limits time 1.5s", {"time": 1.5}),
        ("limits time 3", {"time": 3}),
        ("limits memory 1KB, output 2KiB", {"memory": 1000, "output": 2048}),
        ("limits memory 1GiB", {"memory": 2**30}),
        ("limits ops 10_000_000", {"ops": 10_000_000}),
        ("limits recursion 50", {"recursion": 50}),
    ],
)
def test_limit_units(text: str, limits: dict[str, float]) -> None:
    got = parse_policy(text).limits
    for field, value in limits.items():
        assert getattr(got, field) == value
    # the fields not named keep the defaults
    untouched = set(Limits().to_dict()) - set(limits)
    assert all(getattr(got, f) == getattr(Limits(), f) for f in untouched)


# Errors: (text, line, col, words of the message)
ERRORS = [
    ("imports math re", 1, 14, "expected"),
    ("imports os", 1, 9, "unknown module `os`"),
    ("imports math,\n  subprocess", 2, 3, "unknown module `subprocess`"),
    ("limits time 2 seconds", 1, 15, "unknown unit `seconds`"),
    ("limits ops 5s", 1, 13, "takes no unit"),
    ("limits speed 5", 1, 8, "a limit (time, ops, memory, recursion, output)"),
    ("limits recursion 2.5", 1, 18, "whole number"),
    ("limits time 0", 1, 13, "positive"),
    ("limits time 1, time 2", 1, 16, "given twice"),
    ("allow f(a: foo)", 1, 12, "unknown type `foo`"),
    ("allow f(a: int[str])", 1, 12, "takes no type arguments"),
    ("allow f(a: dict[str])", 1, 12, "takes 2 type argument(s)"),
    ("allow f(a: )", 1, 12, "expected"),
    ("allow f(a in 5..1)", 1, 11, "empty range"),
    ("allow f(a len 1.5..2)", 1, 15, "whole numbers"),
    ('allow f(a matches "(")', 1, 11, "invalid regular expression"),
    ('allow f(a matches "\\d")', 1, 19, "raw string"),
    ("allow f(a, a: int)", 1, 12, "named twice"),
    ('allow f raise "x"', 1, 9, "only applies to deny rules"),
    ("allow f(a\n  in {1,\n  2}, )", 3, 7, "expected"),
    ("policy a\npolicy b", 2, 1, "first statement"),
    ("imports math\nextends default", 2, 1, "`extends` must come before"),
    ("extends nothing", 1, 9, "unknown policy `nothing`"),
    ('extends "missing.policy"', 1, 9, "no policy file"),
    ("allow f(", 1, 9, "unexpected end of policy"),
    ("allow f(a: int) $", 1, 17, "unexpected character '$'"),
    ("deny", 1, 5, "tool name"),
    ("allow f(a in {})", 1, 15, "expected"),
]


@pytest.mark.parametrize(("text", "line", "col", "words"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_name_file_line_column_and_what_was_expected(text: str, line: int, col: int, words: str) -> None:
    with pytest.raises(PolicyError) as info:
        parse_policy(text, "bad.policy")
    err = info.value
    assert (err.filename, err.line, err.col) == ("bad.policy", line, col), str(err)
    assert words in err.message
    assert str(err).startswith(f"bad.policy:{line}:{col}: ")


def test_syntax_error_lists_expected_tokens_in_words() -> None:
    with pytest.raises(PolicyError) as info:
        parse_policy("imports math re")
    assert "a new statement (policy, extends, imports, limits, allow, deny)" in info.value.message
    assert "`,`" in info.value.message


def test_non_text_is_a_policy_error() -> None:
    with pytest.raises(PolicyError):
        parse_policy(b"imports math")  # type: ignore[arg-type]


# Composition


def test_extends_a_shipped_policy_and_overrides_parts() -> None:
    base = shipped_policy("default")
    child = parse_policy(
        "policy child\nextends default\nimports -= time, asyncio\nimports += collections.abc\n"
        "limits time 5s\nallow f(*)"
    )
    assert child.imports == (base.imports - {"time", "asyncio"}) | {"collections.abc"}
    assert child.limits == Limits(time=5.0, ops=base.limits.ops, memory=base.limits.memory,
                                  recursion=base.limits.recursion, output=base.limits.output)
    assert child.tools == (ToolRule("allow", "f"),)


def test_extends_replacing_imports() -> None:
    assert parse_policy("extends default\nimports math").imports == {"math"}
    assert parse_policy("extends default\nimports none").imports == frozenset()


def test_extending_rules_come_first(tmp_path) -> None:
    (tmp_path / "base.policy").write_text('policy base\nimports math\nlimits ops 5\nallow f(x == 1)\ndeny g "base"\n')
    (tmp_path / "sub").mkdir()
    child_file = tmp_path / "sub" / "child.policy"
    child_file.write_text('extends "../base.policy"\ndeny f(x == 1) "child"\nallow g\n')
    from safe_eval.policy import load_policy

    child = load_policy(child_file)
    assert child.name == "child"
    assert child.imports == {"math"} and child.limits.ops == 5
    assert [r.render() for r in child.tools] == [
        'deny f(x == 1) "child"', "allow g(*)", "allow f(x == 1)", 'deny g(*) "base"'
    ]
    assert not child.decide("f", (1,), {}).allowed
    # the base's deny rules are a floor: the child's `allow g` cannot lift `deny g`
    lifted = child.decide("g", (), {})
    assert not lifted.allowed and lifted.message == "calling `g` is denied (base)"
    assert child.lifted_denials() == [
        '`allow g(*)` cannot lift the base policy\'s `deny g(*) "base"`: a call the base denies stays denied'
    ]


def test_extends_cycle_is_reported(tmp_path) -> None:
    (tmp_path / "a.policy").write_text('extends "b.policy"')
    (tmp_path / "b.policy").write_text('extends "a.policy"')
    from safe_eval.policy import load_policy

    with pytest.raises(PolicyError, match="cycle"):
        load_policy(tmp_path / "a.policy")


# Imports: only curated modules


def test_python_api_rejects_uncurated_imports() -> None:
    with pytest.raises(PolicyError, match="not a curated module"):
        Policy(imports={"math", "os"})
    with pytest.raises(PolicyError, match="collection of module names"):
        Policy(imports="math")  # type: ignore[arg-type]


@pytest.mark.parametrize("module", sorted(curated()))
def test_every_curated_module_can_be_allowed(module: str) -> None:
    assert parse_policy(f"imports {module}").allows_import(module)


def test_deny_by_default_python_api() -> None:
    p = Policy()
    assert p.imports == frozenset() and p.tools == ()
    assert not p.allows_import("math")


def test_with_limits_and_replace() -> None:
    p = shipped_policy("agent")
    q = p.with_limits(time=1.0)
    assert q.limits.time == 1.0 and q.limits.ops == p.limits.ops and q.tools == p.tools
    assert p.with_limits(Limits(ops=5)).limits == Limits(ops=5)
    assert p.replace(name="x").name == "x"
    with pytest.raises(PolicyError):
        p.with_limits(time=-1)
    with pytest.raises(TypeError):
        p.replace(bogus=1)


def test_describe_policy_is_one_line() -> None:
    text = describe_policy(shipped_policy("agent"))
    assert "\n" not in text
    assert text.startswith("policy agent: imports ")
    assert "allow search, read_file, send_email; deny delete_*" in text


# Round trip of arbitrary models

_names = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
_literals = st.one_of(
    st.text(max_size=8), st.integers(-1000, 1000), st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(), st.none(),
)
_numbers = st.one_of(st.integers(-100, 100), st.floats(-100, 100, allow_nan=False, width=32))
_types = st.sampled_from(["int", "str", "list[int]", "dict[str, float]", "int | None", "tuple[int, ...]",
                          'Literal["a", 2]', "Any", "Optional[list[str]]"])


@st.composite
def _conditions(draw: st.DrawFn) -> list[object]:
    out: list[object] = []
    if draw(st.booleans()):
        out.append(IsType(draw(_types)))
    typed = out[:]
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["eq", "in", "range", "matches", "len"]))
        if kind == "eq":
            out.append(Equals(draw(_literals), draw(st.booleans())))
        elif kind == "in":
            out.append(OneOf(frozenset(draw(st.lists(_literals, min_size=1, max_size=3))), draw(st.booleans())))
        elif kind == "range":
            lo, hi = sorted([draw(_numbers), draw(_numbers)])
            out.append(InRange(lo, hi))
        elif kind == "matches":
            out.append(Matches(draw(st.sampled_from([r"\d+", 'a"b', "x\\\\", "[a-z]*", "\n", "é"])), draw(st.booleans())))
        else:
            out.append(LenRange(draw(st.integers(0, 5)), draw(st.integers(5, 10))))
    # a policy file may not give a condition its type rules out (`x: int matches ...`)
    return typed + [c for c in out[len(typed):] if _applies(typed, c)]


def _applies(typed: list[object], condition: object) -> bool:
    try:
        check_applicable(Arg("_", *typed, condition))  # type: ignore[arg-type]
    except PolicyError:
        return False
    return True


@st.composite
def _rules(draw: st.DrawFn) -> ToolRule:
    action = draw(st.sampled_from(["allow", "deny"]))
    tool = draw(st.sampled_from(["f", "g_*", "*", "send_email"]))
    if draw(st.booleans()):
        args = None
    else:
        names = draw(st.lists(_names, max_size=3, unique=True))
        args = tuple(Arg(n, *draw(_conditions())) for n in names)
    rest = action == "allow" and draw(st.booleans())
    return ToolRule(action, tool, args, rest, draw(st.text(max_size=10)),
                    action == "deny" and draw(st.booleans()))


@settings(max_examples=150, deadline=None)
@given(
    imports=st.frozensets(st.sampled_from(sorted(curated()))),
    time=st.sampled_from([0.001, 0.5, 2.0, 3.25, 60.0]),
    memory=st.integers(1, 2**40),
    rules=st.lists(_rules(), max_size=5),
)
def test_any_model_round_trips(imports: frozenset[str], time: float, memory: int, rules: list[ToolRule]) -> None:
    policy = Policy("generated", imports, Limits(time=time, memory=memory), tuple(rules))
    assert parse_policy(render_policy(policy)) == policy
