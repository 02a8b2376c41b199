"""CPython itself: ``compile`` + ``exec``/``eval`` of the same string, the baseline of every ratio.

No sandbox and no limits. The source is compiled on every run, as a bare ``eval(code, env)``
would, so the drop-in comparison includes parsing.
"""

from __future__ import annotations

from typing import Any

from benchmarks.cases import Case
from benchmarks.contenders.base import Runner, Unsupported, split_last_expression


class CPythonContender:
    name = "CPython"
    config = "`exec(compile(code))` each run, the final expression bound to a name; no limits"
    has_limits = False
    #: ``cold``: the statement a fresh ``python -c`` runs (it must print 42).
    cold = "print(eval('x + 1', {'x': 41}))"

    def unavailable(self) -> str | None:
        return None

    def prepare(self, case: Case, *, limits: bool = True) -> Runner:
        if case.kind == "check":
            return lambda i: compile(case.text(i), "<bench>", "exec")
        if case.kind not in ("program", "limits"):
            raise Unsupported("n/a: no policy engine")
        body = split_last_expression(case.source)
        if case.unique:
            def run_unique(i: int) -> Any:
                env = case.env()
                exec(compile(f"{body}\n# run {i}", "<bench>", "exec"), env)
                return env.get("result")
            return run_unique
        if case.source.count("\n") == 0:
            # A single expression: exactly ``eval(code, env)``.
            return lambda i: eval(case.source, case.env())

        def run(i: int) -> Any:
            env = case.env()
            exec(compile(body, "<bench>", "exec"), env)
            return env.get("result")
        return run

    def end_case(self) -> None:
        pass

    def close(self) -> None:
        pass
