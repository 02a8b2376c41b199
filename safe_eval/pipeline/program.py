"""The checked program handed to the interpreter (PLACEHOLDER: the foundation issue fills the
stages in: parse limits, scrub, restrict, policy check).

Interface:
    Program(source, filename, tree, annotations)    tree: the scrubbed original AST (never
                                                    rewritten by RestrictedPython)
    analyse(source, policy, filename) -> (Program | None, list[Diagnostic])
    build_program(source, policy, filename) -> Program      raises PolicyViolation
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from safe_eval.diagnostics import Diagnostic
from safe_eval.errors import PolicyViolation


@dataclass(frozen=True, eq=False)
class Program:
    source: str
    filename: str
    tree: ast.Module
    # function annotations kept aside by scrub: id(FunctionDef node) -> {param or "return": ast.expr}
    annotations: dict[int, dict[str, ast.expr]] = field(default_factory=dict)


def analyse(source: Any, policy: Any = None, filename: str = "<safe-eval>") -> tuple[Program | None, list[Diagnostic]]:
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as e:
        d = Diagnostic("P001", "syntax-error", str(e.msg), e.lineno or 1, e.offset or 1,
                       e.lineno or 1, (e.offset or 1) + 1, "parse")
        return None, [d]
    return Program(source, filename, tree), []


def build_program(source: Any, policy: Any = None, filename: str = "<safe-eval>") -> Program:
    program, diags = analyse(source, policy, filename)
    if program is None or diags:
        raise PolicyViolation(diags, source if isinstance(source, str) else "")
    return program
