"""The checked program handed to the interpreter, and the static pipeline that builds it.

    analyse(source, policy=None, filename, env_names=(), tool_names=None, writable=())
        -> (Program | None, [Diagnostic])
        parse -> compile check -> scrub -> restrict -> policy_check.check_policy; every stage
        runs and every diagnostic is returned (sorted by position). The Program is None when
        there is an error (warnings alone do not stop the code).
    build_program(source, policy, filename, env_names=(), tool_names=None, writable=()) -> Program
        raises PolicyViolation

``tool_names``: which env names are tools (see ``policy_check``); ``writable``: the (env name,
attribute) pairs the host declared writable (see ``restrict``, R013). ``build_program`` is
memoised in an LRU keyed by (source, filename, policy, env names, tool names, writable), so a
loop that re-evaluates the same text skips every stage (and, through ``Program.compiled``,
the interpreter's compilation too). A Program is shared between the calls that hit the cache:
nobody may mutate its tree. The LRU is bounded in bytes (``pipeline/cache.py``: each Program
weighs ``BYTES_PER_NODE`` per AST node plus the bytes of its source and literals, ``weight``),
and what guest ``exec``/``eval`` compiles is never
kept (``cache=False``): a run cannot leave its programs behind.

RestrictedPython (~20 ms to import) is imported when ``restrict`` first runs, not when this
module is imported.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from safe_eval._record import Frozen, Shown
from safe_eval.diagnostics import Diagnostic
from safe_eval.errors import InternalError, PolicyViolation, SafeEvalError
from safe_eval.pipeline.cache import BoundedCache
from safe_eval.pipeline.compile_check import compile_errors
from safe_eval.pipeline.parse import DEFAULT_PARSE_LIMITS, decode_source, parse
from safe_eval.pipeline.scrub import scrub

__all__ = [
    "BYTES_PER_NODE", "CACHE_BYTES", "CACHE_SIZE", "Program", "analyse", "build_program", "clear_cache",
]

CACHE_SIZE = 256
CACHE_BYTES = 64 * 2**20
# What one AST node of a kept program costs: the node and the interpreter's closures compiled
# from it (measured: 650 bytes per node for 45,000-node modules, tree and closures together)
BYTES_PER_NODE = 700


class Program(Frozen, Shown):
    """A checked module: the decoded source, its scrubbed ORIGINAL tree (never rewritten by
    RestrictedPython; the last statement, when an ``Expr``, is the value) and the function
    annotations scrub kept aside: ``id(FunctionDef) -> {param or "return": expr}`` (and
    ``id(ClassDef) -> {field: expr}`` for annotated class fields). Frozen, compared by
    identity (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("source", "filename", "tree", "annotations", "compiled", "nbytes", "__weakref__")
    _fields = ("source", "filename", "tree", "annotations", "compiled")
    _repr_fields = ("source", "filename", "tree", "annotations")
    __match_args__ = ("source", "filename", "tree", "annotations", "compiled")

    source: str
    filename: str
    tree: ast.Module
    annotations: dict[int, dict[str, ast.expr]]
    # for the interpreter: memoise what it compiles from this Program (shared via the cache)
    compiled: dict[str, Any]
    # estimated bytes it holds once compiled (for the caches' byte bound)
    nbytes: int

    def __init__(self, source: str, filename: str, tree: ast.Module,
                 annotations: dict[int, dict[str, ast.expr]] | None = None,
                 compiled: dict[str, Any] | None = None, nbytes: int = 0) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "filename", filename)
        object.__setattr__(self, "tree", tree)
        object.__setattr__(self, "annotations", {} if annotations is None else annotations)
        object.__setattr__(self, "compiled", {} if compiled is None else compiled)
        object.__setattr__(self, "nbytes", nbytes)


def analyse(
    source: Any,
    policy: Any = None,
    filename: str = "<safe-eval>",
    env_names: Iterable[str] = (),
    tool_names: Iterable[str] | None = None,
    writable: frozenset[tuple[str, str]] = frozenset(),
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
        diagnostics += restrict(parsed.nodes, parsed.source, writable=writable)
        # a mapping keeps its values: tools bind arguments by signature, data is not a tool
        env = env_names if isinstance(env_names, Mapping) else tuple(env_names)
        diagnostics += check_policy(parsed.tree, resolved, env, tool_names)
    except SafeEvalError:
        raise
    except Exception as exc:  # a bug in a stage must not surface as an arbitrary exception
        raise InternalError(f"static check failed: {type(exc).__name__}: {exc}") from exc
    diagnostics.sort(key=lambda d: (d.line, d.col))
    if any(d.severity == "error" for d in diagnostics):
        return None, diagnostics
    # warnings only (unknown names, which raise NameError when reached, as in CPython)
    return Program(parsed.source, filename, parsed.tree, annotations, nbytes=weight(parsed)), diagnostics


def weight(parsed: Any) -> int:
    """The bytes a kept program holds, for the caches' bounds: its nodes (the tree and the
    closures compiled from it) and the text it carries, which a node count does not see: the
    source and every literal, each counted twice (the source is also kept as lines for
    tracebacks and as the cache key; a literal by the tree and by the closure compiled from it).
    Measured: a program around one 99,000-character literal of 4-byte characters keeps
    1.6 MB, four times the literal; it counted as 5 KB by its nodes."""
    literals = 0
    for node in parsed.nodes:
        if type(node) is ast.Constant and type(node.value) in _SIZED:
            literals += sys.getsizeof(node.value)
    return len(parsed.nodes) * BYTES_PER_NODE + 2 * (sys.getsizeof(parsed.source) + literals)


_SIZED = (str, bytes, int)  # constants whose size the guest chooses


_CACHE = BoundedCache(CACHE_SIZE, CACHE_BYTES)


def build_program(
    source: Any,
    policy: Any = None,
    filename: str = "<safe-eval>",
    env_names: Iterable[str] = (),
    tool_names: Iterable[str] | None = None,
    writable: frozenset[tuple[str, str]] = frozenset(),
    *,
    cache: bool = True,
) -> Program:
    """The checked Program, from the LRU when this text was built before; raises
    ``PolicyViolation`` with every diagnostic when the code breaks a rule. ``cache=False``
    (guest ``exec``/``eval`` strings) neither reads nor fills the LRU."""
    names = frozenset(env_names)
    tools = None if tool_names is None else frozenset(tool_names)
    key: Hashable = None
    if cache and isinstance(source, (str, bytes)) and isinstance(policy, Hashable):
        key = (source, policy, filename, names, tools, writable)
        try:
            hit = _CACHE.get(key)
        except TypeError:  # an unhashable policy
            key = hit = None
        if hit is not None:
            _CACHE.move_to_end(key)
            program: Program = hit
            return program
    built, found = analyse(source, policy, filename, names, tools, writable)
    if built is None:
        text = decode_source(source)
        raise PolicyViolation(tuple(found), text if isinstance(text, str) else "", filename=filename)
    if key is not None and len(source) <= DEFAULT_PARSE_LIMITS.max_chars:
        _CACHE.put(key, built, built.nbytes)
    return built


def clear_cache() -> None:
    """Forget every memoised Program (tests; a host that changed a policy in place)."""
    _CACHE.clear()
