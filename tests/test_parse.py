"""The parse stage: malformed input and parser bombs give P0xx diagnostics, never a host error."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safe_eval.errors import PolicyViolation
from safe_eval.pipeline.parse import DEFAULT_PARSE_LIMITS, ParseLimits, parse
from safe_eval.pipeline.program import build_program

MALFORMED = [
    pytest.param(123, "P001", id="int"),
    pytest.param(None, "P001", id="none"),
    pytest.param(["x = 1"], "P001", id="list"),
    pytest.param(ast.parse("x = 1"), "P001", id="ast-module"),
    pytest.param(b"x = '\xff'", "P002", id="bytes-not-utf8"),
    pytest.param(b"\xed\xa0\x80", "P002", id="bytes-encoded-surrogate"),
    pytest.param("x = 1\0", "P003", id="nul-byte"),
    pytest.param("x = '\ud800'", "P004", id="lone-surrogate"),
    pytest.param("x = 1\n" * 20_000, "P005", id="too-long"),
    pytest.param("def f(:\n    pass", "P006", id="syntax-error"),
    pytest.param("if x:\npass", "P006", id="indentation-error"),
    pytest.param("x = (1,", "P006", id="unclosed-bracket"),
    pytest.param("\tif x:\n        pass\n\tpass", "P006", id="tab-error"),
]


@pytest.mark.parametrize(("code", "expected"), MALFORMED)
def test_malformed_input_gives_one_parse_diagnostic(code: object, expected: str) -> None:
    parsed, diagnostics = parse(code)
    assert parsed is None
    assert [d.code for d in diagnostics] == [expected]
    assert diagnostics[0].stage == "parse"
    assert diagnostics[0].hint


@pytest.mark.parametrize(("code", "expected"), MALFORMED)
def test_malformed_input_raises_policy_violation(code: object, expected: str) -> None:
    with pytest.raises(PolicyViolation) as info:
        build_program(code)
    assert [d.code for d in info.value.diagnostics] == [expected]


@pytest.mark.parametrize(
    ("code", "line", "col"),
    [
        ("x = 1\ny = (2 +\n", 2, 5),
        ("a = 1\nb = 2\nc = )\n", 3, 5),
        ("x = 1\nx = 'a\0b'", 2, 7),
        ("x = 1\ny = '\udc80'", 2, 6),
    ],
)
def test_diagnostics_carry_a_position(code: str, line: int, col: int) -> None:
    _, diagnostics = parse(code)
    assert (diagnostics[0].line, diagnostics[0].col) == (line, col)


BOMBS = [
    pytest.param("(" * 100_000, id="open-parens-100k"),
    pytest.param("[" * 10_000 + "]" * 10_000, id="nested-lists-10k"),
    pytest.param("x = '" + "a" * 50_000_000 + "'", id="string-50MB"),
    pytest.param("1+" * 100_000 + "1", id="plus-chain-100k"),
    pytest.param("1+" * 45_000 + "1", id="plus-chain-under-length-limit"),
    pytest.param("-" * 90_000 + "1", id="unary-chain"),
    pytest.param("not " * 20_000 + "x", id="not-chain"),
    pytest.param("a" + ".b" * 30_000, id="attribute-chain"),
    pytest.param("f" + "()" * 30_000, id="call-chain"),
    pytest.param("lambda: " * 10_000 + "1", id="lambda-chain"),
    pytest.param("x if y else " * 5_000 + "x", id="ternary-chain"),
    pytest.param("[" * 150 + "]" * 150, id="nested-lists-150"),
    pytest.param("".join(" " * i + "if x:\n" for i in range(120)) + " " * 120 + "pass\n", id="indent-120"),
]


# How fast a bomb is refused is a benchmark figure (`python -m benchmarks --cases parse-bomb`), not a timed
# test; the per-test timeout only catches a hang.
@pytest.mark.timeout(10)
@pytest.mark.parametrize("code", BOMBS)
def test_parser_bombs_are_refused(code: str) -> None:
    with pytest.raises(PolicyViolation) as info:
        build_program(code)
    codes = {d.code for d in info.value.diagnostics}
    assert codes <= {"P005", "P007", "P008"} and codes


def test_depth_limit_is_what_later_walkers_may_rely_on() -> None:
    limit = DEFAULT_PARSE_LIMITS.max_depth
    ok = "[" * (limit - 3) + "]" * (limit - 3)  # Module > Expr > List ... : depth limit - 1
    parsed, diagnostics = parse(ok)
    assert parsed is not None and not diagnostics
    too_deep = "[" * (limit + 1) + "]" * (limit + 1)
    parsed, diagnostics = parse(too_deep)
    assert parsed is None and diagnostics[0].code == "P007"


def test_node_count_limit() -> None:
    parsed, diagnostics = parse("x = [1, 2, 3, 4, 5, 6]", limits=ParseLimits(max_nodes=5))
    assert parsed is None
    assert diagnostics[0].code == "P008"


@pytest.mark.parametrize("code", ["", "   \n\n", "# only a comment\n"])
def test_empty_code_is_an_empty_module(code: str) -> None:
    program = build_program(code)
    assert program.tree.body == []


@pytest.mark.parametrize(
    "code", [b"x = 1\nx", "x = 1\nx".encode("utf-8-sig"), bytearray(b"x = 1\nx"), memoryview(b"x = 1\nx")]
)
def test_utf8_bytes_are_decoded(code: bytes) -> None:
    program = build_program(code)
    assert program.source == "x = 1\nx"


def test_non_ascii_source_parses() -> None:
    program = build_program("café = 'naïve'\ncafé")
    assert isinstance(program.tree.body[-1], ast.Expr)


def test_last_expression_statement_is_kept() -> None:
    program = build_program("x = 1\ny = 2\nx + y")
    last = program.tree.body[-1]
    assert isinstance(last, ast.Expr) and isinstance(last.value, ast.BinOp)


def test_nodes_are_in_pre_order() -> None:
    parsed, _ = parse("a = b + c")
    assert parsed is not None
    names = [type(n).__name__ for n in parsed.nodes]
    assert names == ["Module", "Assign", "Name", "BinOp", "Name", "Name"]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_a_tree_or_diagnostics(text: str) -> None:
    parsed, diagnostics = parse(text)
    assert (parsed is None) == bool(diagnostics)
    assert all(d.line >= 1 and d.col >= 1 for d in diagnostics)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_give_a_tree_or_diagnostics(data: bytes) -> None:
    parsed, diagnostics = parse(data)
    assert (parsed is None) == bool(diagnostics)
