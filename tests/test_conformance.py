"""Differential test: every conformance program under safe_eval and under CPython.

CPython runs ``exec`` of all but the last statement and ``eval`` of the last expression; both
sides must agree on the value (type and value; floats within 1e-9 relative), on printed
output, and on the exception (type and message) when there is one.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

import pytest
from _corpus import corpus_params
from _interp_diff import SEMANTICS_LIMITS, comparable, cpython, same_value

from safe_eval import Evaluator, GuestError

COUNT = 382  # programs in the corpus (a lost file fails here)
CORPUS = Path(__file__).parent / "data" / "conformance"
FILES = sorted(CORPUS.glob("*.py"))


CASES = corpus_params()


def _env(source: str) -> dict[str, Any]:
    first = source.splitlines()[0] if source else ""
    if not first.startswith("# env:"):
        return {}
    call = ast.parse(f"dict({first[len('# env:'):].strip()})", mode="eval")
    return eval(compile(call, "<env>", "eval"), {"math": math, "dict": dict})  # test oracle only


@pytest.mark.parametrize("path", CASES)
def test_conformance(path: Path) -> None:
    source = path.read_text()
    env = _env(source)
    expected_out, expected, expected_err = cpython(source, dict(env))
    try:
        result = Evaluator(limits=SEMANTICS_LIMITS).run(source, dict(env))
    except GuestError as e:
        assert expected_err == (e.type_name, e.message), e.render()
        return
    assert expected_err is None, f"CPython raised {expected_err}, safe_eval returned {result.value!r}"
    assert result.stdout == expected_out
    assert same_value(comparable(result.value), comparable(expected)), (result.value, expected)


def test_corpus_is_complete() -> None:
    assert len(FILES) == COUNT
