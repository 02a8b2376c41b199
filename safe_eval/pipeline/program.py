"""The checked program handed to the interpreter, and the static pipeline that builds it.

    analyse(source, policy=None, filename, env_names=()) -> (Program | None, [Diagnostic])
        parse -> compile check -> scrub -> restrict -> policy_check.check_policy; every stage
        runs and every diagnostic is returned (sorted by position). The Program is None when
        there is an error (warnings alone do not stop the code).
    build_program(source, policy, filename, env_names=()) -> Program    raises PolicyViolation

``build_program`` is memoised in an LRU keyed by (source, filename, policy, env names), so a
loop that re-evaluates the same text skips every stage (and, through ``Program.compiled``,
the interpreter's compilation too). A Program is shared between the calls that hit the cache:
nobody may mutate its tree.

RestrictedPython (~20 ms to import) is imported when ``restrict`` first runs, not when this
module is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Hashable, Iterable
from functools import lru_cache
from typing import Any

from safe_eval._record import Frozen, Shown
from safe_eval.diagnostics import Diagnostic
from safe_eval.errors import InternalError, PolicyViolation, SafeEvalError
from safe_eval.pipeline.compile_check import compile_errors
from safe_eval.pipeline.parse import DEFAULT_PARSE_LIMITS, decode_source, parse
from safe_eval.pipeline.scrub import scrub

__all__ = ["CACHE_SIZE", "Program", "analyse", "build_program", "clear_cache"]

CACHE_SIZE = 256


class Program(Frozen, Shown):
    """A checked module: the decoded source, its scrubbed ORIGINAL tree (never rewritten by
    RestrictedPython; the last statement, when an ``Expr``, is the value) and the function
    annotations scrub kept aside: ``id(FunctionDef) -> {param or "return": expr}`` (and
    ``id(ClassDef) -> {field: expr}`` for annotated class fields). Frozen, compared by
    identity (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("source", "filename", "tree", "annotations", "compiled", "__weakref__")
    _fields = ("source", "filename", "tree", "annotations", "compiled")
    _repr_fields = ("source", "filename", "tree", "annotations")
    __match_args__ = ("source", "filename", "tree", "annotations", "compiled")

    source: str
    filename: str
    tree: ast.Module
    annotations: dict[int, dict[str, ast.expr]]
    # for the interpreter: memoise what it compiles from this Program (shared via the cache)
    compiled: dict[str, Any]

    def __init__(self, source: str, filename: str, tree: ast.Module,
                 annotations: dict[int, dict[str, ast.expr]] | None = None,
                 compiled: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "filename", filename)
        object.__setattr__(self, "tree", tree)
        object.__setattr__(self, "annotations", {} if annotations is None else annotations)
        object.__setattr__(self, "compiled", {} if compiled is None else compiled)


def analyse(
    source: Any,
    policy: Any = None,
    filename: str = "<safe-eval>",
    env_names: Iterable[str] = (),
) -> tuple[Program | None, list[Diagnostic]]:
    """Run every static stage; never executes guest code. Never raises for bad code (only
    ``InternalError`` for a bug in a stage, or the policy resolver's own errors)."""
    parsed, diagnostics = parse(source, filename)
    if parsed is None:
        return None, diagnostics
    from safe_eval.pipeline.policy_check import check_policy
    from safe_eval.pipeline.restrict import restrict
    from safe_eval.policy import resolve_policy

    resolved = resolve_policy(policy)
    try:
        diagnostics = compile_errors(parsed.tree, parsed.source)  # before scrub edits the tree
        annotations = scrub(parsed.tree, parsed.source)
        diagnostics += restrict(parsed.nodes, parsed.source)
        diagnostics += check_policy(parsed.tree, resolved, tuple(env_names))
    except SafeEvalError:
        raise
    except Exception as exc:  # a bug in a stage must not surface as an arbitrary exception
        raise InternalError(f"static check failed: {type(exc).__name__}: {exc}") from exc
    diagnostics.sort(key=lambda d: (d.line, d.col))
    if any(d.severity == "error" for d in diagnostics):
        return None, diagnostics
    # warnings only (unknown names, which raise NameError when reached, as in CPython)
    return Program(parsed.source, filename, parsed.tree, annotations), diagnostics


@lru_cache(maxsize=CACHE_SIZE)
def _cached(source: Hashable, policy: Hashable, filename: str,
            env_names: frozenset[str]) -> tuple[Program | None, tuple[Diagnostic, ...]]:
    program, diagnostics = analyse(source, policy, filename, env_names)
    return program, tuple(diagnostics)


def build_program(
    source: Any,
    policy: Any = None,
    filename: str = "<safe-eval>",
    env_names: Iterable[str] = (),
) -> Program:
    """The checked Program, from the LRU when this text was built before; raises
    ``PolicyViolation`` with every diagnostic when the code breaks a rule."""
    names = frozenset(env_names)
    try:
        if len(source) > DEFAULT_PARSE_LIMITS.max_chars:  # refused anyway: do not keep it alive
            raise TypeError
        program, diagnostics = _cached(source, policy, filename, names)
    except TypeError:  # no len, unhashable source or policy, or too long: build uncached
        program, found = analyse(source, policy, filename, names)
        diagnostics = tuple(found)
    if program is None:
        text = decode_source(source)
        raise PolicyViolation(diagnostics, text if isinstance(text, str) else "")
    return program


def clear_cache() -> None:
    """Forget every memoised Program (tests; a host that changed a policy in place)."""
    _cached.cache_clear()
