"""smolagents' ``PythonExecutor`` on safe-eval: ``CodeAgent(executor=SafeEvalExecutor([...]))``.

A drop-in for smolagents' ``LocalPythonExecutor`` (same constructor, ``state``, ``send_tools``,
``send_variables``, ``__call__(code) -> CodeOutput``), running each code action through an
``Evaluator`` instead of smolagents' own AST walker. What a ``CodeAgent`` relies on is kept:

- ``output`` is the value of the last top-level statement, an assignment included
  (``x = f()`` gives ``x``'s value, as smolagents returns it);
- ``state`` is the namespace that persists between actions (written back by the Evaluator);
  ``state["_print_outputs"]`` holds this action's printed text, also when the action failed,
  truncated to ``max_print_outputs_length`` as smolagents does;
- ``final_answer(x)`` ends the action with ``is_final_answer=True`` by raising ``FinalAnswer``,
  a ``SafeEvalError``: the interpreter never lets a guest ``except``/``with`` catch one, so
  ``try: final_answer(x) except BaseException: pass`` cannot swallow it;
- errors are smolagents' own: ``InterpreterError("Import of os is not allowed. Authorized
  imports are: [...]")`` (the agent matches that text), ``InterpreterError("Code execution
  failed at line '...' due to: ZeroDivisionError: ...")``, ``ExecutionTimeoutError`` for the
  time limit; the safe-eval error is the ``__cause__``.

Imports: smolagents' authorized list (its base modules plus ``additional_authorized_imports``,
``"*"`` and ``"pkg.*"`` included) narrowed to the modules safe-eval curates and the policy
allows; an authorized module without a curated wrapper (``numpy``) is refused at import with
the same wording, the reason appended. Tools are called through the policy like any env
callable; a host object a tool returned reaches the next tool as itself (the one door out
unwraps proxies, ``policy/plain.py``).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Mapping
from importlib.util import find_spec
from typing import Any

from smolagents.local_python_executor import (
    MAX_EXECUTION_TIME_SECONDS,
    CodeOutput,
    ExecutionTimeoutError,
    InterpreterError,
    PythonExecutor,
    check_import_authorized,
)
from smolagents.utils import BASE_BUILTIN_MODULES, truncate_content

from safe_eval.api import Evaluator
from safe_eval.errors import (
    GuestError,
    GuestFrame,
    LimitExceeded,
    OpLimit,
    PolicyViolation,
    SafeEvalError,
    TimeLimit,
)
from safe_eval.limits import Limits
from safe_eval.limits.budget import current
from safe_eval.membrane.modules import CURATED
from safe_eval.policy import resolve_policy

__all__ = ["FinalAnswer", "SafeEvalExecutor"]

DEFAULT_MAX_LEN_OUTPUT = 50_000  # smolagents' default for max_print_outputs_length
_PRINT_OUTPUTS = "_print_outputs"
_IMPORT_REFUSED = "import-not-allowed"  # the diagnostic name of a refused import (policy check)


class FinalAnswer(SafeEvalError):
    """Raised by ``final_answer``: ends the action with its value. A ``SafeEvalError``, so guest
    code cannot catch it (see ``safe_eval.errors``)."""

    def __init__(self, value: Any, stdout: str) -> None:
        super().__init__("final_answer was called")
        self.value = value
        self.stdout = stdout  # what the action printed before it


class SafeEvalExecutor(PythonExecutor):  # type: ignore[misc]  # smolagents is untyped
    """Runs smolagents code actions in safe-eval. ``policy``/``limits``/``sandbox`` are the
    ``Evaluator``'s; ``timeout_seconds`` is the time limit (None: the policy's)."""

    def __init__(
        self,
        additional_authorized_imports: list[str],
        max_print_outputs_length: int | None = None,
        additional_functions: Mapping[str, Callable[..., Any]] | None = None,
        timeout_seconds: int | None = MAX_EXECUTION_TIME_SECONDS,
        *,
        policy: Any = None,
        limits: Limits | Mapping[str, Any] | None = None,
        sandbox: str | None = None,
    ) -> None:
        self.state: dict[str, Any] = {"__name__": "__main__"}
        self.max_print_outputs_length = (
            DEFAULT_MAX_LEN_OUTPUT if max_print_outputs_length is None else max_print_outputs_length
        )
        self.additional_authorized_imports = list(additional_authorized_imports)
        self.authorized_imports = sorted(set(BASE_BUILTIN_MODULES) | set(additional_authorized_imports))
        _check_installed(self.authorized_imports)
        self.additional_functions = dict(additional_functions or {})
        self.timeout_seconds = timeout_seconds
        self.static_tools: dict[str, Callable[..., Any]] = {}
        base = resolve_policy(policy)
        imports = frozenset(m for m in base.imports if check_import_authorized(m, self.authorized_imports))
        time_limit = {} if timeout_seconds is None else {"time": float(timeout_seconds)}
        merged = {**time_limit, **(_limits_dict(limits))}
        self.evaluator = Evaluator(base.replace(imports=imports), merged or None, sandbox=sandbox)

    # -- the PythonExecutor interface ------------------------------------------------------
    def send_variables(self, variables: dict[str, Any]) -> None:
        self.state.update(variables)

    def send_tools(self, tools: Mapping[str, Any]) -> None:
        merged = {**tools, **self.additional_functions}
        self.static_tools = {
            name: _final_answer(fn) if name == "final_answer" else fn for name, fn in merged.items()
        }

    def __call__(self, code_action: str) -> CodeOutput:
        state = self.state
        state.pop(_PRINT_OUTPUTS, None)
        state.update(self.static_tools)
        try:
            result = self.evaluator.run(code_action, state)
        except FinalAnswer as stop:
            self._logs(stop.stdout)
            return CodeOutput(output=stop.value, logs=state[_PRINT_OUTPUTS], is_final_answer=True)
        except SafeEvalError as exc:
            self._logs(getattr(exc, "stdout", ""))
            raise self._translate(exc, code_action) from exc
        finally:
            self._drop_tools()
        self._logs(result.stdout)
        value = result.value
        if value is None:
            value = _assigned_value(code_action, state)
        return CodeOutput(output=value, logs=state[_PRINT_OUTPUTS], is_final_answer=False)

    # -- helpers ---------------------------------------------------------------------------
    def _logs(self, stdout: str) -> None:
        self.state[_PRINT_OUTPUTS] = truncate_content(stdout, max_length=self.max_print_outputs_length)

    def _drop_tools(self) -> None:
        # tools live in the namespace only during an action: state holds the agent's variables
        for name, fn in self.static_tools.items():
            if self.state.get(name) is fn:
                del self.state[name]

    def _translate(self, exc: SafeEvalError, code: str) -> Exception:
        """smolagents' exception for a safe-eval error (CodeAgent matches on its wording)."""
        if isinstance(exc, TimeLimit) and self.timeout_seconds is not None:
            return _error(ExecutionTimeoutError, "Code execution exceeded the maximum execution time "
                          f"of {self.timeout_seconds} seconds")
        if isinstance(exc, OpLimit):
            return _error(InterpreterError, f"Reached the max number of operations of {exc.value}. Maybe "
                          "there is an infinite loop somewhere in the code, or you're just asking too many "
                          "calculations.")
        if isinstance(exc, PolicyViolation):
            refused = _refused_import(exc, code)
            if refused is not None:
                return _error(InterpreterError, self._import_message(*refused))
            return _error(InterpreterError, f"Code was refused before it ran:\n{exc}")
        if isinstance(exc, GuestError):
            where = _top_level_segment(code, exc.traceback[0] if exc.traceback else None)
            return _error(InterpreterError,
                          f"Code execution failed at line '{where}' due to: {exc.type_name}: {exc.message}")
        if isinstance(exc, LimitExceeded):
            return _error(InterpreterError, f"Code execution failed due to: {type(exc).__name__}: {exc}")
        return _error(InterpreterError, f"Code execution failed due to: {exc}")

    def _import_message(self, kind: str, module: str) -> str:
        text = f"Import {kind} {module} is not allowed. Authorized imports are: {self.authorized_imports}"
        if check_import_authorized(module, self.authorized_imports):
            top = module.split(".")[0]
            text += f" ({top} is authorized, but safe-eval has no curated {top} module)"
        elif module.split(".")[0] not in CURATED and module not in CURATED:
            text += " (safe-eval has no curated module of that name)"
        return text


def _error(kind: Any, text: str) -> Exception:
    """An instance of smolagents' (untyped) exception class ``kind``."""
    error: Exception = kind(text)
    return error


def _final_answer(tool: Callable[..., Any]) -> Callable[..., Any]:
    """``final_answer`` that ends the action with the tool's result (as smolagents wraps it)."""

    def final_answer(*args: Any, **kwargs: Any) -> Any:
        value = tool(*args, **kwargs)
        budget = current()
        raise FinalAnswer(value, budget.stdout if budget is not None else "")

    target = getattr(tool, "forward", tool)
    try:
        # the one door out binds the guest's arguments to this signature
        final_answer.__signature__ = inspect.signature(target)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pass
    return final_answer


def _check_installed(authorized: list[str]) -> None:
    missing = [
        top for name in authorized if name != "*" and find_spec(top := name.split(".")[0]) is None
    ]
    if missing:
        raise InterpreterError(
            f"Non-installed authorized modules: {', '.join(missing)}. "
            "Please install these modules or remove them from the authorized imports list."
        )


def _limits_dict(limits: Limits | Mapping[str, Any] | None) -> dict[str, Any]:
    if limits is None:
        return {}
    if isinstance(limits, Limits):
        return {name: getattr(limits, name) for name in limits._fields}
    return dict(limits)


def _parse(code: str) -> ast.Module | None:
    """The action's AST, for wording results and errors. Only called on text safe-eval's own
    parse stage accepted (a run happened, or a diagnostic from a later stage), so its limits on
    size and nesting already hold for this host-side parse."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _assigned_value(code: str, state: Mapping[str, Any]) -> Any:
    """The value smolagents returns for a last statement that is an assignment to a name:
    the name's value after the run (the guest already computed it; nothing is evaluated)."""
    tree = _parse(code)
    if tree is None or not tree.body:
        return None
    last = tree.body[-1]
    target: ast.expr | None = None
    if isinstance(last, ast.Assign):
        target = last.targets[-1]
    elif isinstance(last, (ast.AugAssign, ast.AnnAssign)) and getattr(last, "value", None) is not None:
        target = last.target
    if isinstance(target, ast.Name):
        return state.get(target.id)
    return None


def _top_level_segment(code: str, frame: GuestFrame | None) -> str:
    """The source of the top-level statement the module frame was running (smolagents names
    it): the last one starting at or before the frame's line and column."""
    tree = _parse(code)
    if tree is None or frame is None:
        return ""
    found: ast.stmt | None = None
    for node in tree.body:
        if (node.lineno, node.col_offset) <= (frame.line, frame.col):  # both 0-based columns
            found = node
    return (ast.get_source_segment(code, found) or "") if found is not None else ""


def _refused_import(exc: PolicyViolation, code: str) -> tuple[str, str] | None:
    """("of"|"from", module) of the first refused import in ``exc``, found in the AST at the
    diagnostic's position (1-based column: the module's name, or the ``from`` keyword)."""
    where = {(d.line, d.col) for d in exc.diagnostics if getattr(d, "name", "") == _IMPORT_REFUSED}
    tree = _parse(code) if where else None
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.lineno, node.col_offset + 1) in where:
            return "from", node.module or ""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (alias.lineno, alias.col_offset + 1) in where:
                    return "of", alias.name
    return None
