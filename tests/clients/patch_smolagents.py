"""pytest plugin (``-p patch_smolagents``): smolagents' own tests with ``SafeEvalExecutor`` in
place of ``LocalPythonExecutor``, wherever the tests or ``CodeAgent`` construct one."""

import smolagents.agents
import smolagents.local_python_executor

from safe_eval.integrations.smolagents import SafeEvalExecutor

smolagents.local_python_executor.LocalPythonExecutor = SafeEvalExecutor  # type: ignore[misc]
smolagents.agents.LocalPythonExecutor = SafeEvalExecutor  # type: ignore[misc]
