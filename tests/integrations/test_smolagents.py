"""smolagents' CodeAgent on safe-eval: ``SafeEvalExecutor`` as the agent's executor.

Scripted models only (no network). Skipped when smolagents is not installed
(``pip install -e '.[smolagents]'``).
"""

from __future__ import annotations

from textwrap import dedent

import pytest

pytest.importorskip("smolagents", reason="smolagents is not installed (pip install -e '.[smolagents]')")

from smolagents import CodeAgent, Tool
from smolagents.default_tools import FinalAnswerTool
from smolagents.local_python_executor import ExecutionTimeoutError, InterpreterError
from smolagents.models import ChatMessage, MessageRole, Model

from safe_eval import Limits
from safe_eval.integrations.smolagents import SafeEvalExecutor

BASE_IMPORTS = "['collections', 'datetime', 'itertools', 'math', 'queue', 'random', 're', 'stat', 'statistics', 'time', 'unicodedata']"


class Photo:
    """A host object a tool returns: the guest holds it only as an opaque proxy."""

    def __init__(self, width: int) -> None:
        self.width = width


class TakePhoto(Tool):
    name = "take_photo"
    description = "Takes a photo."
    inputs = {"width": {"type": "integer", "description": "width in pixels"}}
    output_type = "object"

    def forward(self, width: int) -> Photo:
        return Photo(width)


class MeasurePhoto(Tool):
    name = "measure_photo"
    description = "Width of a photo."
    inputs = {"photo": {"type": "object", "description": "a photo from take_photo"}}
    output_type = "integer"

    def forward(self, photo: Photo) -> int:
        assert type(photo) is Photo, f"the tool got a {type(photo).__name__}"
        return photo.width


def executor(*imports: str, **kwargs: object) -> SafeEvalExecutor:
    ex = SafeEvalExecutor(list(imports), **kwargs)  # type: ignore[arg-type]
    ex.send_tools({"final_answer": FinalAnswerTool(), "take_photo": TakePhoto(), "measure_photo": MeasurePhoto()})
    return ex


@pytest.mark.parametrize(
    "code, output, logs, is_final",
    [
        ("1 + 2", 3, "", False),
        ("x = 5", 5, "", False),
        ("a = b = [1, 2]", [1, 2], "", False),
        ("n: int = 7", 7, "", False),
        ("n = 1\nn += 4", 5, "", False),
        ("d = {}\nd['k'] = 1", None, "", False),
        ("print('hi')\nx = 2", 2, "hi\n", False),
        ("print('done')\nfinal_answer(42)", 42, "done\n", True),
        ("import math\nfinal_answer(math.floor(2.5))", 2, "", True),
        ("measure_photo(take_photo(width=640))", 640, "", False),
        ("p = take_photo(width=3)\nmeasure_photo(photo={'x': p}['x'])", 3, "", False),
        ("isinstance(5, int)", True, "", False),
        ("__name__", "__main__", "", False),
    ],
    ids=["expression", "assignment", "chained-assignment", "annotated-assignment", "augmented-assignment",
         "subscript-assignment-gives-none", "print-then-assign", "final-answer-after-print",
         "final-answer-with-import", "proxy-unwrapped-for-tool", "proxy-inside-expression-unwrapped",
         "isinstance", "name-is-main"],
)
def test_an_action_returns_what_smolagents_returns(code, output, logs, is_final):
    out = executor()(code)
    assert (out.output, out.logs, out.is_final_answer) == (output, logs, is_final)


def test_state_persists_between_actions_and_holds_no_tools():
    ex = executor()
    ex("def double(v):\n    return 2 * v\nx = 21")
    assert ex("double(x)").output == 42
    assert sorted(k for k in ex.state if k != "__name__") == ["_print_outputs", "double", "x"]


def test_send_variables_are_visible_to_the_next_action():
    ex = executor()
    ex.send_variables({"rows": [3, 4]})
    assert ex("sum(rows)").output == 7


@pytest.mark.parametrize(
    "code, message",
    [
        ("import os", f"Import of os is not allowed. Authorized imports are: {BASE_IMPORTS} "
                      "(safe-eval has no curated module of that name)"),
        ("import math, subprocess", f"Import of subprocess is not allowed. Authorized imports are: {BASE_IMPORTS} "
                                    "(safe-eval has no curated module of that name)"),
        ("from os import path", f"Import from os is not allowed. Authorized imports are: {BASE_IMPORTS} "
                                "(safe-eval has no curated module of that name)"),
        ("import json", f"Import of json is not allowed. Authorized imports are: {BASE_IMPORTS}"),
        ("import queue", f"Import of queue is not allowed. Authorized imports are: {BASE_IMPORTS} "
                         "(queue is authorized, but safe-eval has no curated queue module)"),
        ("print('a'); 1 / 0", "Code execution failed at line '1 / 0' due to: ZeroDivisionError: division by zero"),
        ("def f():\n    return {}['k']\ny = f()", "Code execution failed at line 'y = f()' due to: KeyError: 'k'"),
        ("while True:\n    pass", "Reached the max number of operations of 5000. Maybe there is an infinite "
                                  "loop somewhere in the code, or you're just asking too many calculations."),
    ],
    ids=["import", "second-of-two-imports", "import-from", "import-not-authorized-but-curated",
         "authorized-but-not-curated", "guest-exception", "guest-exception-in-function", "operations-limit"],
)
def test_a_failing_action_raises_smolagents_error_wording(code, message):
    ex = executor(limits=Limits(ops=5000))
    with pytest.raises(InterpreterError) as info:
        ex(code)
    assert str(info.value) == message


def test_an_additional_import_is_allowed_when_curated():
    assert executor("json")("import json\njson.dumps([1])").output == "[1]"


def test_star_authorizes_every_curated_module():
    assert executor("*")("import json, base64\nbase64.b64encode(json.dumps(1).encode())").output == b"MQ=="


def test_an_authorized_module_that_is_not_installed_is_refused_at_construction():
    with pytest.raises(InterpreterError, match="Non-installed authorized modules: i_do_not_exist"):
        SafeEvalExecutor(["i_do_not_exist"])


def test_the_time_limit_raises_smolagents_timeout_error():
    ex = executor(timeout_seconds=1, limits=Limits(ops=10**12))
    with pytest.raises(ExecutionTimeoutError, match="exceeded the maximum execution time of 1 seconds"):
        ex("while True:\n    pass")


def test_print_output_is_truncated_like_smolagents():
    out = executor(max_print_outputs_length=20)("print('x' * 30)")
    note = "\n..._This content has been truncated to stay below 20 characters_...\n"
    assert out.logs == "x" * 10 + note + "x" * 9 + "\n"


class ScriptedModel(Model):
    """A model that answers with the next scripted code action."""

    def __init__(self, actions: list[str]) -> None:
        super().__init__()
        self.actions = list(actions)
        self.prompts: list[str] = []

    def generate(self, messages, stop_sequences=None, **kwargs):
        self.prompts.append(str(messages))
        code = self.actions.pop(0)
        return ChatMessage(role=MessageRole.ASSISTANT, content=f"Thought: next step.\n<code>\n{code}\n</code>")


def test_a_code_agent_runs_a_multi_step_task_on_safe_eval():
    model = ScriptedModel([
        "print('measuring')\nwidth = measure_photo(take_photo(width=320))",
        "import os\nos.listdir('.')",
        dedent("""\
            try:
                final_answer(width * 2)
            except BaseException:
                print('swallowed')
            final_answer(-1)"""),
    ])
    agent = CodeAgent(tools=[TakePhoto(), MeasurePhoto()], model=model,
                      executor=SafeEvalExecutor([]), max_steps=5)
    assert agent.run("How wide is a 320 photo, doubled?") == 640
    observations = [getattr(step, "observations", None) for step in agent.memory.steps]
    assert "Execution logs:\nmeasuring\nLast output from code snippet:\n320" in observations
    errors = [str(step.error) for step in agent.memory.steps if getattr(step, "error", None)]
    assert errors == [f"Import of os is not allowed. Authorized imports are: {BASE_IMPORTS} "
                      "(safe-eval has no curated module of that name)"]
