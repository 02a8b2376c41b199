"""The guest standard library: library code that introspects user objects, run as guest code.

    load(name) -> dict[str, Any]      the namespace of guest-stdlib module ``name`` for this run

Host Python that runs on guest objects (a generated ``__init__`` doing raw ``setattr``, ``copy``
honouring a guest ``__reduce_ex__``, ``total_ordering`` reading and writing class attributes)
acts with host rights: a confused deputy. So the parts of ``dataclasses``, ``copy``,
``functools``, ``contextlib`` and ``collections.namedtuple`` that have to look into user objects
are written as Python source files in this package (``dataclasses.py``, ``copy.py`` ...) and run
by the interpreter as guest code: every attribute access, ``setattr`` and call in them goes
through the membrane exactly as the guest's own code would, under the guest's budget.

What guest code cannot express itself (reading a guest class's own annotations, storing
``__dataclass_fields__``) is done by the small host functions of ``_leaves.py``: each takes
plain data or a class the interpreter made, checks that, and never calls a guest method.

Lifetime: each source is parsed, checked and compiled through the normal pipeline ONCE per
process, lazily on its first import (never at ``import safe_eval``), and kept as an immutable
``CompiledModule``. Its body runs again in every evaluation that imports it, into a fresh
namespace kept in the run context: guest-stdlib functions and module globals are per run, so
one evaluation cannot poison the next through them.
"""

from __future__ import annotations

import os
import threading
from typing import Any

__all__ = ["MODULES", "REQUIRES", "load"]

# module name -> the leaves (host functions on plain data) its source may call, by name
MODULES: frozenset[str] = frozenset(
    {"dataclasses", "copy", "functools", "contextlib", "namedtuple", "collections"}
)

# module -> {global name: (guest-stdlib module, name)}: what a module takes from another one
# (the same run's instance, so ``dataclasses.asdict`` copies as ``copy.deepcopy`` does)
REQUIRES: dict[str, dict[str, tuple[str, str]]] = {
    "dataclasses": {"_deepcopy": ("copy", "deepcopy")},
}

_compiled: dict[str, Any] = {}
_lock = threading.Lock()
_DIR = os.path.dirname(os.path.abspath(__file__))


def _compile(name: str, leaves: frozenset[str]) -> Any:
    """The process-wide compiled module (parse -> scrub -> restrict -> policy check -> compile)."""
    hit = _compiled.get(name)
    if hit is not None:
        return hit
    from safe_eval.interpreter.compiler import compile_module
    from safe_eval.pipeline.program import build_program

    with _lock:
        hit = _compiled.get(name)
        if hit is None:
            with open(os.path.join(_DIR, f"{name}.py"), encoding="utf-8") as f:
                source = f.read()
            program = build_program(source, None, f"<guest-stdlib {name}>", env_names=leaves)
            hit = _compiled[name] = compile_module(program.tree, program.source, program.filename,
                                                   program.annotations)
    return hit


def load(name: str) -> dict[str, Any]:
    """The namespace of guest-stdlib module ``name``, run once per evaluation (kept in the run
    context; outside any evaluation, a fresh one under the default policy and limits)."""
    from safe_eval.context import current_context
    from safe_eval.guestlib._leaves import leaves_for

    if name not in MODULES:
        raise KeyError(name)
    ctx = current_context()
    key = f"safe_eval.guestlib:{name}"
    if ctx is not None:
        known: dict[str, Any] | None = ctx.extra.get(key)
        if known is not None:
            return known
    leaves = leaves_for(name)
    for global_name, (module, attr) in REQUIRES.get(name, {}).items():
        leaves[global_name] = load(module)[attr]
    compiled = _compile(name, frozenset(leaves))
    g: dict[str, Any] = dict(leaves)
    if ctx is None:
        _run_outside(compiled, g)
    else:
        compiled.run(g, ctx.budget)
        ctx.extra[key] = g
    return g


def _run_outside(compiled: Any, g: dict[str, Any]) -> None:
    """Host code imported a curated module with no evaluation active: run the body under a
    fresh budget and the default policy, as a host call of a guest function would be."""
    from safe_eval.context import RunContext
    from safe_eval.interpreter.session import run_guarded
    from safe_eval.limits.budget import Budget
    from safe_eval.policy import resolve_policy

    policy = resolve_policy(None)
    ctx = RunContext(Budget(policy.limits), policy)
    run_guarded(ctx, compiled.run, g, ctx.budget)
