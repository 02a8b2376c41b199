"""Invariant: a host walk over what a run returned is bounded by the data's size, not its shape.

A run can return, in a few operations, a structure that shares its parts (``a = [a, a]`` twenty
times: 21 objects, a million paths). Every host-side walk of a result (the MCP server's JSON,
reprs of what it cannot map) visits a bounded number of nodes and uses the guest's priced
``repr``: a result too large to show is a typed error, never unbounded host time.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("mcp", reason="the mcp package is not installed (pip install -e '.[mcp]')")

from safe_eval import Evaluator, Limits
from safe_eval.integrations.mcp import run_python_code

SHARED = {
    "list_of_itself_twice": "a = [1]\nfor i in range(40):\n    a = [a, a]\na",
    "dict_of_itself_twice": "a = {}\nfor i in range(40):\n    a = {'l': a, 'r': a}\na",
    "deep_then_shared": "a = [1]\nfor i in range(40):\n    a = [a, a]\nb = a\nfor i in range(70):\n    b = [b]\nb",
    "shared_inside_a_subclass": "class L(list):\n    pass\na = [1]\nfor i in range(40):\n    a = [a, a]\nL([a])",
}


@pytest.mark.parametrize("name", sorted(SHARED))
def test_the_mcp_server_refuses_a_shared_result_instead_of_expanding_it(name: str) -> None:
    start = time.process_time()
    reply = run_python_code(Evaluator(limits=Limits(time=2)), SHARED[name])
    assert reply["status"] == "run-error"
    assert "Limit" in reply["error"]
    assert time.process_time() - start < 5  # 2**40 nodes otherwise: days


def test_a_large_plain_result_is_still_returned_whole() -> None:
    reply = run_python_code(Evaluator(limits=Limits(time=5)), "[[i, str(i)] for i in range(20_000)]")
    assert reply["status"] == "success" and len(reply["return_value"]) == 20_000
