"""Invariant: what a remote executor sends back becomes plain data or a safe-eval error,
never a host object of a type it chose.

A process next to guest code (a pool process, a Ray actor) may be the attacker's. Its answer
is one JSON string, decoded by ``batch/wire.py``: values through the sandbox codec, errors
through the sandbox protocol's checked forms; anything else is ``SandboxCrashed``. Here the
attacker is the executor itself, answering every job with what it likes."""

from __future__ import annotations

import json
from concurrent.futures import Executor, Future

import pytest

from safe_eval.api import Result
from safe_eval.batch import FuturesExecutor, evaluate
from safe_eval.errors import GuestError, SandboxCrashed


class Hostile(Executor):
    """Answers every call with ``answer`` instead of running it."""

    def __init__(self, answer):
        self.answer = answer

    def submit(self, fn, /, *args, **kwargs):
        future = Future()
        future.set_result(self.answer)
        return future


class Pickled:
    def __reduce__(self):
        return (print, ("unpickled",))


MALFORMED = {
    "an object, not text": Pickled(),
    "a pickle stream": b"\x80\x04\x95\x00",
    "not json": "{'value': 1}",
    "a list": "[1, 2]",
    "an unknown value tag": json.dumps({"value": {"$": "object", "v": "os.system"}, "stdout": "",
                                        "ops": 0, "seconds": 0}),
    "a tagged dict with extra keys": json.dumps({"value": {"$": "int", "v": "1", "x": 1}, "stdout": "",
                                                 "ops": 0, "seconds": 0}),
    "stdout that is not text": json.dumps({"value": 1, "stdout": ["x"], "ops": 0, "seconds": 0}),
    "ops that are not an int": json.dumps({"value": 1, "stdout": "", "ops": "1", "seconds": 0}),
    "an error of an unknown kind": json.dumps({"error": {"kind": "SystemExit"}}),
    "a guest error with a malformed traceback": json.dumps(
        {"error": {"kind": "GuestError", "type": "E", "message": "m", "traceback": [1]}}),
    "deep nesting": '{"value": ' + "[" * 100_000 + "]" * 100_000 + "}",
}


@pytest.mark.parametrize("answer", list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_answer_from_the_executor_is_a_sandbox_crash(answer):
    [outcome] = evaluate(["1"], executor=FuturesExecutor(Hostile(answer)))
    assert type(outcome) is SandboxCrashed
    assert str(outcome) == "the batch executor sent a malformed outcome"


def test_a_well_formed_answer_decodes_to_plain_data_only():
    answer = json.dumps({"value": {"$": "tuple", "v": [1, {"$": "bytes", "v": "YQ=="}]}, "stdout": "s",
                         "ops": 3, "seconds": 0.5})
    [outcome] = evaluate(["1"], executor=FuturesExecutor(Hostile(answer)))
    assert type(outcome) is Result and outcome.value == (1, b"a") and outcome.stdout == "s"


def test_a_guest_error_answer_decodes_to_a_guest_error_with_checked_fields():
    answer = json.dumps({"error": {"kind": "GuestError", "type": "ValueError", "message": "no",
                                   "traceback": []}})
    [outcome] = evaluate(["1"], executor=FuturesExecutor(Hostile(answer)))
    assert type(outcome) is GuestError and (outcome.type_name, outcome.message) == ("ValueError", "no")
