"""Invariant: what SafeEvalProvider.compile returns runs none of the guest's code, whoever
executes it; SafeEvalProvider.exec runs only what its compile checked (effectful integration)."""

import pytest

pytest.importorskip("effectful.handlers.llm.evaluation", reason="effectful[llm] is not installed (Python >= 3.12)")

from effectful.handlers.llm.evaluation import compile as compile_op
from effectful.handlers.llm.evaluation import exec as exec_op
from effectful.handlers.llm.evaluation import parse as parse_op
from effectful.ops.semantics import handler

from safe_eval.integrations.effectful import SafeEvalProvider


def test_the_compiled_code_object_only_raises_under_builtin_exec_and_runs_no_guest_line():
    calls = []
    with handler(SafeEvalProvider()):
        code = compile_op(parse_op("record('ran')\nx = 1\n", "<inert>"), "<inert>")
    env = {"record": calls.append}
    with pytest.raises(RuntimeError, match=r"not runnable outside SafeEvalProvider\.exec"):
        exec(code, env)
    assert calls == [] and "x" not in env
    assert code.co_filename == "<inert>" and "record" not in code.co_names


def test_exec_refuses_a_code_object_it_did_not_compile():
    with handler(SafeEvalProvider()), pytest.raises(TypeError, match="only code objects its compile"):
        exec_op(compile("x = 1", "<host>", "exec"), {})


