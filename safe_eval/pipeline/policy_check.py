"""Static policy check: what the policy forbids and the code already shows, all reported at once.

    check_policy(tree, policy, env_names) -> list[Diagnostic]        (stage "policy")

    T001 import-not-allowed     ``import os``, ``from x import y`` outside ``policy.imports``,
                                relative imports
    T002 unknown-name           a call of a name the code never defines, that is not in env
                                and not a builtin (the typical hallucinated helper or tool)
    T003 tool-not-allowed       a call of an env callable no allow rule permits (or a deny rule
                                refuses whatever its arguments; a ``deny ... raise`` rule is left
                                to run time, where the guest meets it as a PermissionError)
    T004 tool-argument-denied   a tool call whose constant arguments already break the rules

``env_names`` may be the env mapping itself: its callables then bind positional arguments by
their signatures, exactly as at run time. Arguments that are not constants are unknown here;
only denials certain whatever their values are reported (the run-time check sees the rest).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from safe_eval.diagnostics import Diagnostic, span_of
from safe_eval.policy import Policy, resolve_policy
from safe_eval.policy.binding import BindError, binder_for
from safe_eval.policy.model import denied_by
from safe_eval.policy.rules import UNKNOWN, tri_match

__all__ = ["check_policy", "defined_names"]

# The interpreter provides these on top of the membrane's BUILTINS table.
_INTERPRETER_BUILTINS = frozenset({"super", "print", "eval", "exec", "type", "isinstance", "iter", "next"})


def check_policy(tree: ast.Module, policy: Any, env_names: Iterable[str] = ()) -> list[Diagnostic]:
    pol = resolve_policy(policy)
    env: Mapping[str, Any] = env_names if isinstance(env_names, Mapping) else dict.fromkeys(env_names)
    out: list[Diagnostic] = []
    out += _check_imports(tree, pol)
    out += _check_calls(tree, pol, env)
    out.sort(key=lambda d: (d.line, d.col))
    return out


def _diag(node: ast.AST, code: str, name: str, message: str, hint: str) -> Diagnostic:
    line, col, end_line, end_col = span_of(node)
    return Diagnostic(code, name, message, line, col, end_line, end_col, "policy", hint)


# Imports


def _check_imports(tree: ast.Module, policy: Policy) -> list[Diagnostic]:
    allowed = ", ".join(sorted(policy.imports)) or "none"
    hint = f"importable modules under policy `{policy.name}`: {allowed}"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not policy.allows_import(alias.name):
                    out.append(
                        _diag(
                            alias,
                            "T001",
                            "import-not-allowed",
                            f"import of `{alias.name}` is not allowed",
                            hint,
                        )
                    )
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                out.append(
                    _diag(node, "T001", "import-not-allowed", "relative imports are not allowed", hint)
                )
            elif not policy.allows_import(node.module or ""):
                out.append(
                    _diag(
                        node,
                        "T001",
                        "import-not-allowed",
                        f"import from `{node.module}` is not allowed",
                        hint,
                    )
                )
    return out


# Names the code defines


def defined_names(tree: ast.AST) -> tuple[set[str], bool]:
    """Every name the code binds anywhere, and whether it has a ``from m import *``."""
    names: set[str] = set()
    star = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    star = True
                else:
                    names.add(a.asname or a.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
    return names, star


def _builtin_names() -> frozenset[str]:
    from safe_eval import membrane

    provider = getattr(membrane, "builtin_names", None)
    names = provider() if callable(provider) else membrane.BUILTINS.keys()
    return frozenset(names) | _INTERPRETER_BUILTINS


# Calls


def _check_calls(tree: ast.Module, policy: Policy, env: Mapping[str, Any]) -> list[Diagnostic]:
    defined, star = defined_names(tree)
    builtins = _builtin_names()
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        name = node.func.id
        if name in defined:
            continue  # the guest's own function (even if it shadows a tool)
        if name in env:
            if policy.tools:
                diag = _check_tool_call(node, name, policy, env)
                if diag is not None:
                    out.append(diag)
        elif name not in builtins and not star:
            out.append(_unknown_name(node.func, name, env, builtins, policy))
    return out


def _unknown_name(
    node: ast.Name, name: str, env: Mapping[str, Any], builtins: frozenset[str], policy: Policy
) -> Diagnostic:
    tools = policy.allowed_tools(env) if policy.tools else list(env)
    close = difflib.get_close_matches(name, [*tools, *sorted(builtins)], n=1)
    hint = f"did you mean `{close[0]}`? " if close else ""
    hint += (
        f"available tools: {', '.join(tools)}"
        if tools
        else "no tools are available: define the function yourself"
    )
    return _diag(node, "T002", "unknown-name", f"`{name}` is not defined", hint)


def _check_tool_call(node: ast.Call, name: str, policy: Policy, env: Mapping[str, Any]) -> Diagnostic | None:
    args, kwargs, splat = _static_arguments(node)
    rules = policy.rules_for(name)
    decision = _static_decision(name, rules, args, kwargs, splat, env.get(name))
    if decision is None:
        return None
    deciding, message = decision
    if deciding is not None and deciding.raise_to_guest:
        return None  # the guest is meant to meet this denial as a PermissionError it can catch
    if deciding is not None:  # a deny rule fires whatever the unknown arguments are
        denial = denied_by(name, deciding)
        return _diag(
            node, denial.code, _CODE_NAMES[denial.code], denial.message, f"rule: {deciding.render()}"
        )
    allows = [r for r in rules if r.action == "allow"]
    if not allows:
        tools = ", ".join(policy.allowed_tools(env)) or "none"
        message = f"`{name}` is not an allowed tool; allowed tools: {tools}"
        return _diag(node.func, "T003", "tool-not-allowed", message, f"call only these tools: {tools}")
    forms = "; ".join(f"{name}{r.render_args()}" for r in allows)
    message = message or f"`{name}` call denied"
    return _diag(node, "T004", "tool-argument-denied", message, f"allowed calls: {forms}")


_CODE_NAMES = {"T003": "tool-not-allowed", "T004": "tool-argument-denied"}


def _static_arguments(node: ast.Call) -> tuple[tuple[Any, ...], dict[str, Any], bool]:
    splat = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
    args = tuple(_constant(a) for a in node.args if not isinstance(a, ast.Starred))
    kwargs = {k.arg: _constant(k.value) for k in node.keywords if k.arg is not None}
    return args, kwargs, splat


def _constant(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNKNOWN


def _static_decision(
    name: str, rules: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any], splat: bool, fn: Any
) -> tuple[Any, str] | None:
    """(deciding deny rule or None, reason) when the call is denied whatever its unknown
    arguments are; None when it may be allowed."""
    bound: dict[str, Any] | None = None
    if fn is not None and not splat:
        binder = binder_for(fn)
        if binder is not None:
            try:
                bound = binder(args, kwargs)
            except BindError as exc:
                return None, f"`{name}` called with arguments that do not fit its signature: {exc}"
    first_reason = ""
    for rule in rules:
        if splat:
            verdict: bool | None = True if rule.args is None else None
        else:
            verdict = tri_match(rule, bound, args, kwargs)
        if verdict is False:
            if rule.action == "allow" and not first_reason:
                first_reason = rule.failure(name, args, kwargs, bound) or ""
            continue
        if verdict is None:
            if rule.action == "allow":
                return None  # may be allowed by this rule
            continue  # may be denied by this rule: the run-time check will tell
        return (rule, "") if rule.action == "deny" else None
    reason = f"`{name}` call denied: {first_reason}" if first_reason else ""
    return None, reason
