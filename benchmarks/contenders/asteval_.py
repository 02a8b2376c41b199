"""asteval 1.x: one ``Interpreter`` per case, its defaults for untrusted input (imports disabled,
``max_statement_length`` 50 000, its built-in caps on exponents, shifts and string sizes).

asteval has no time, memory or operation limit to switch on, and no class statement. Each run
evaluates the text with ``raise_errors=True`` so a failure surfaces instead of printing.
"""

from __future__ import annotations

from typing import Any

from benchmarks.cases import Case
from benchmarks.contenders.base import Runner, missing_module, programs_only


class AstevalContender:
    name = "asteval"
    config = ("Interpreter() defaults: imports off (its only choices are none or any), "
              "max_statement_length 50 000; no time/memory limits, no classes")
    has_limits = False
    cold = (
        "from asteval import Interpreter\n"
        "a = Interpreter(use_numpy=False)\na.symtable['x'] = 41\nprint(a.eval('x + 1', raise_errors=True))"
    )

    def unavailable(self) -> str | None:
        return missing_module("asteval")

    def prepare(self, case: Case, *, limits: bool = True) -> Runner:
        from asteval import Interpreter

        programs_only(case)
        interp = Interpreter(use_numpy=False)
        symtable = interp.symtable

        def run(i: int) -> Any:
            symtable.update(case.env())
            return interp.eval(case.text(i), show_errors=False, raise_errors=True)
        return run

    def end_case(self) -> None:
        pass

    def close(self) -> None:
        pass
