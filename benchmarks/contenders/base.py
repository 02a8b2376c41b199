"""What every contender offers the harness, and the two ways a cell can fail to be measured."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, Protocol

from benchmarks.cases import Case

#: One evaluation of a case; ``i`` is the iteration number (cases that must defeat a cache use it).
Runner = Callable[[int], Any]


class Unsupported(Exception):
    """The contender cannot run this case; the message goes into the table cell."""


class Contender(Protocol):
    name: str
    #: What the contender is configured with (limits, imports), printed under the table.
    config: str
    #: Whether the contender enforces resource limits that ``prepare(limits=False)`` can lift.
    has_limits: bool
    #: The ``cold`` case: what a fresh ``python -c`` runs; it must print 42.
    cold: str

    def unavailable(self) -> str | None:
        """None when usable, else why not (e.g. "not installed")."""

    def prepare(self, case: Case, *, limits: bool = True) -> Runner:
        """Set the case up and return its runner, or raise :class:`Unsupported`.

        ``limits=False`` asks for the contender's limits effectively off (the ``limits-cost`` case).
        """

    def end_case(self) -> None:
        """Release what the finished case's runners hold (sessions, interpreters)."""

    def close(self) -> None: ...


def missing_module(name: str) -> str | None:
    """``unavailable()`` of a peer that is a package: "not installed" when ``name`` won't import."""
    import importlib

    try:
        importlib.import_module(name)
    except ImportError:
        return "not installed"
    return None


def programs_only(case: Case) -> None:
    """Refuse the non-program cases for a peer without a static checker or a policy engine."""
    if case.kind not in ("program", "limits"):
        raise Unsupported("n/a: no static checker" if case.kind == "check" else "n/a: no policy engine")


def split_last_expression(source: str, target: str = "result") -> str:
    """The program with its final expression statement turned into ``target = <expr>``.

    The REPL-style contenders (safe-eval, smolagents, asteval, Monty) return the value of the last
    expression; exec-style ones (CPython's exec, RestrictedPython) run this rewrite, done once at
    set-up so that it is never timed.
    """
    tree = ast.parse(source)
    last = tree.body[-1]
    if isinstance(last, ast.Expr):
        tree.body[-1] = ast.copy_location(
            ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=last.value), last
        )
    return ast.unparse(ast.fix_missing_locations(tree))
