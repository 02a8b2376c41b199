"""RestrictedPython 9 as its documentation recommends: ``compile_restricted`` on every run, then
``exec`` with ``safe_builtins`` plus ``utility_builtins`` and the standard guards.

``limited_builtins`` is left out: its ``range()`` refuses more than 1 000 items, which would turn
the loop and object cases into refusals rather than measurements.

RestrictedPython has no time, memory or operation limits and no import allowlist of its own
(``__import__`` is simply absent from ``safe_builtins``), so it runs the cases with none.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

from benchmarks.cases import IMPORTS, Case
from benchmarks.contenders.base import Runner, Unsupported, split_last_expression

# The in-place operators RestrictedPython leaves to the integrator (``_inplacevar_``), as Zope's
# AccessControl provides them: plain operators, nothing that mutates a host object.
_INPLACE = {
    "+=": operator.add, "-=": operator.sub, "*=": operator.mul, "/=": operator.truediv,
    "//=": operator.floordiv, "%=": operator.mod, "**=": operator.pow, "<<=": operator.lshift,
    ">>=": operator.rshift, "&=": operator.and_, "|=": operator.or_, "^=": operator.xor,
}


def _inplacevar(op: str, x: Any, y: Any) -> Any:
    return _INPLACE[op](x, y)


def _guarded_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                    level: int = 0) -> Any:
    """The shared import allowlist, as the ``__import__`` RestrictedPython leaves to the host."""
    if level != 0 or name.split(".")[0] not in IMPORTS:
        raise ImportError(f"import of {name!r} is not allowed")
    return __import__(name, globals, locals, fromlist, level)


class RestrictedPythonContender:
    name = "RestrictedPython"
    config = ("compile_restricted each run; safe_builtins + utility_builtins, safer_getattr, "
              "full_write_guard, guarded unpacking, `__import__` limited to IMPORTS; no limits")
    has_limits = False
    cold = (
        "from RestrictedPython import compile_restricted, safe_globals\n"
        "print(eval(compile_restricted('x + 1', '<s>', 'eval'), {**safe_globals, 'x': 41}))"
    )

    def __init__(self) -> None:
        self._globals: dict[str, Any] | None = None

    def unavailable(self) -> str | None:
        try:
            import RestrictedPython  # noqa: F401
        except ImportError:
            return "not installed"
        return None

    def _base_globals(self) -> dict[str, Any]:
        if self._globals is None:
            from RestrictedPython.Eval import default_guarded_getitem, default_guarded_getiter
            from RestrictedPython.Guards import (
                full_write_guard,
                guarded_iter_unpack_sequence,
                guarded_unpack_sequence,
                safe_builtins,
                safer_getattr,
            )
            from RestrictedPython.PrintCollector import PrintCollector
            from RestrictedPython.Utilities import utility_builtins

            self._globals = {
                "__builtins__": {**safe_builtins, **utility_builtins, "__import__": _guarded_import},
                "__name__": "restricted_module",
                "__metaclass__": type,
                "_getattr_": safer_getattr,
                "_getitem_": default_guarded_getitem,
                "_getiter_": default_guarded_getiter,
                "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
                "_unpack_sequence_": guarded_unpack_sequence,
                "_write_": full_write_guard,
                "_inplacevar_": _inplacevar,
                "_print_": PrintCollector,
            }
        return self._globals

    def prepare(self, case: Case, *, limits: bool = True) -> Runner:
        from RestrictedPython.compile import compile_restricted

        base = self._base_globals()
        # compile_restricted warns (SyntaxWarning) about the nodes it then refuses: the cell says so.
        warnings.filterwarnings("ignore", category=SyntaxWarning, module=r"RestrictedPython")
        if case.kind == "check":
            return lambda i: compile_restricted(case.text(i), "<bench>", "exec")
        if case.kind not in ("program", "limits"):
            raise Unsupported("n/a: no policy engine")
        body = split_last_expression(case.source)

        def run(i: int) -> Any:
            text = f"{body}\n# run {i}" if case.unique else body
            env = {**base, **case.env()}
            exec(compile_restricted(text, "<bench>", "exec"), env)
            return env.get("result")
        return run

    def end_case(self) -> None:
        pass

    def close(self) -> None:
        pass
