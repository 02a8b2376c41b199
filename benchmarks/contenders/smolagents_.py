"""smolagents' ``LocalPythonExecutor``, configured as ``CodeAgent`` does it: the same authorised
imports as everyone else, ``send_tools`` (its base Python tools plus the case's env functions) and
``send_variables``, with its default 30 s timeout (a worker thread per run) and its built-in caps of
10 M operations and 1 M while-iterations.

``limits=False`` passes ``timeout_seconds=None``; the operation counter cannot be switched off.
"""

from __future__ import annotations

from typing import Any

from benchmarks.cases import IMPORTS, Case
from benchmarks.contenders.base import Runner, missing_module, programs_only


class SmolagentsContender:
    name = "smolagents"
    config = "LocalPythonExecutor(additional_authorized_imports=IMPORTS), timeout 30 s, 10 M ops cap"
    has_limits = True
    cold = (
        "from smolagents.local_python_executor import LocalPythonExecutor\n"
        f"e = LocalPythonExecutor(additional_authorized_imports={list(IMPORTS)!r})\n"
        "e.send_tools({})\ne.send_variables({'x': 41})\nprint(e('x + 1').output)"
    )

    def unavailable(self) -> str | None:
        return missing_module("smolagents.local_python_executor")

    def prepare(self, case: Case, *, limits: bool = True) -> Runner:
        from smolagents.local_python_executor import LocalPythonExecutor

        programs_only(case)
        executor = LocalPythonExecutor(
            additional_authorized_imports=list(IMPORTS), **({} if limits else {"timeout_seconds": None})
        )
        env = case.env()
        executor.send_tools({name: env[name] for name in case.tools})
        data = {k: v for k, v in env.items() if k not in case.tools}

        def run(i: int) -> Any:
            executor.send_variables(dict(data))
            return executor(case.text(i)).output
        return run

    def end_case(self) -> None:
        pass

    def close(self) -> None:
        pass
