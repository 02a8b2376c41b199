"""Which sandbox an evaluation uses: argument > handler > environment; the policy's minimum
cannot be lowered. Observed through a value that only an in-process run accepts (an opaque
host object crosses the membrane as a proxy, but cannot cross the sandbox boundary)."""

from __future__ import annotations

import pytest

import safe_eval
from safe_eval import Evaluator
from safe_eval.errors import SandboxError, SandboxValueError
from safe_eval.policy import parse_policy
from safe_eval.sandbox import reload_environment

OPAQUE = {"o": object()}


def _in_process(**kwargs):
    try:
        return safe_eval.safe_eval("1", dict(OPAQUE), **kwargs) == 1
    except SandboxValueError:
        return False


@pytest.fixture
def environment(monkeypatch):
    def set_to(value):
        monkeypatch.setenv("SAFE_EVAL_SANDBOX", value)
        reload_environment()

    yield set_to
    monkeypatch.delenv("SAFE_EVAL_SANDBOX", raising=False)
    reload_environment()


def test_without_a_selection_the_run_is_in_process():
    assert _in_process()


def test_the_argument_selects_a_sandbox():
    assert not _in_process(sandbox="subprocess")
    assert safe_eval.safe_eval("x + 1", {"x": 41}, sandbox="subprocess") == 42


def test_the_handler_selects_a_sandbox_for_every_evaluation_in_it():
    with safe_eval.sandbox("subprocess"):
        assert not _in_process()
    assert _in_process()


def test_the_argument_off_beats_the_handler():
    with safe_eval.sandbox("subprocess"):
        assert _in_process(sandbox="off")


def test_the_environment_variable_selects_a_sandbox(environment):
    environment("subprocess")
    assert not _in_process()
    environment("off")
    assert _in_process()


def test_a_misspelt_environment_value_fails_loudly(environment):
    environment("bwarp")
    with pytest.raises(SandboxError):
        safe_eval.safe_eval("1")


def test_a_policy_minimum_cannot_be_lowered_by_the_argument():
    policy = parse_policy("policy boxed\nsandbox subprocess\n")
    with pytest.raises(SandboxValueError):
        safe_eval.safe_eval("1", dict(OPAQUE), policy=policy, sandbox="off")
    assert safe_eval.safe_eval("2 * 21", policy=policy, sandbox="off") == 42


def test_the_evaluator_argument_selects_a_sandbox():
    ev = Evaluator(sandbox="subprocess")
    result = ev.run("print('hi')\n6 * 7")
    assert (result.value, result.stdout) == (42, "hi\n")


@pytest.mark.parametrize("name", ["docker", "bwrap+turbo", ""])
def test_an_unknown_sandbox_name_is_a_sandbox_error(name):
    with pytest.raises(SandboxError):
        safe_eval.safe_eval("1", sandbox=name)
