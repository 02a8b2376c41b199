"""Static policy check: what the policy forbids and the code already shows, all reported at once.

    check_policy(tree, policy, env_names, tool_names) -> list[Diagnostic]   (stage "policy")

    T001 import-not-allowed     ``import os``, ``from x import y`` outside ``policy.imports``,
                                relative imports (``from __future__ import ...`` is always
                                allowed: every feature is a no-op in the interpreter)
    T002 unknown-name           a call of a name the code never defines, that is not in env
                                and not a builtin (the typical hallucinated helper or tool);
                                a WARNING: CPython raises NameError only when the call runs
                                (``try: missing() except NameError:`` is valid code), and so
                                does the interpreter, whose name lookup sees the guest's
                                namespace and the guest builtins, nothing else
    T003 tool-not-allowed       a call of an env callable no allow rule permits (or a deny rule
                                refuses whatever its arguments)
    T004 tool-argument-denied   a tool call whose constant arguments already break the rules
    T005 tool-call-raises       a call a ``deny ... raise`` rule refuses whatever its arguments: a
                                WARNING, since the guest meets it as a PermissionError it may catch

``env_names`` may be the env mapping itself: its callables then bind positional arguments by
their signatures, exactly as at run time. ``tool_names`` are the env names that are tools (the
host's callables, entered by the membrane as ``Tool``s); the others are the session's data,
including functions and classes the guest bound in an earlier step, which are never checked
against tool rules (``None``: every env name may be a tool). Arguments that are not constants
are unknown here; only denials certain whatever their values are reported (the run-time check
sees the rest).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from safe_eval import rules
from safe_eval.diagnostics import Diagnostic, span_of
from safe_eval.pipeline.restrict import REFUSED_BUILTINS
from safe_eval.policy import Policy, resolve_policy
from safe_eval.policy.binding import BindError, binder_for
from safe_eval.policy.model import denied_by
from safe_eval.rules import Rule

# rules.py is needed only to check calls against tool rules (imported there): the default
# policy has none, and importing it costs cold-start time
if TYPE_CHECKING:
    from safe_eval.policy.rules import ToolRule

__all__ = ["check_policy", "defined_names"]

# The interpreter provides these on top of the membrane's BUILTINS table.
_INTERPRETER_BUILTINS = frozenset({"super", "print", "eval", "exec", "type", "isinstance", "iter", "next"})


def check_policy(tree: ast.Module, policy: Any, env_names: Iterable[str] = (),
                 tool_names: Iterable[str] | None = None) -> list[Diagnostic]:
    pol = resolve_policy(policy)
    env: Mapping[str, Any] = env_names if isinstance(env_names, Mapping) else dict.fromkeys(env_names)
    tools = env.keys() if tool_names is None else frozenset(tool_names)
    nodes = _walk(tree)
    out: list[Diagnostic] = []
    out += _check_imports(nodes, pol)
    out += _check_calls(nodes, pol, env, tools)
    out.sort(key=lambda d: (d.line, d.col))
    return out


def _diag(rule: Rule, node: ast.AST, hint: str | None = None, **fields: Any) -> Diagnostic:
    return rule.diagnostic(span_of(node), hint=hint, **fields)


# Imports


def _walk(tree: ast.AST) -> list[ast.AST]:
    """Every node once (the parse stage's fast iterative walk when it is there)."""
    try:
        from safe_eval.pipeline.parse import walk_nodes
    except ImportError:  # pragma: no cover - the parse stage predates this module
        return list(ast.walk(tree))
    return walk_nodes(tree)


def _check_imports(nodes: list[ast.AST], policy: Policy) -> list[Diagnostic]:
    allowed = ", ".join(sorted(policy.imports)) or "none"
    hint = f"importable modules under policy `{policy.name}`: {allowed}"
    out = []
    for node in nodes:
        t = type(node)
        if t is not ast.Import and t is not ast.ImportFrom:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not policy.allows_import(alias.name):
                    out.append(_diag(rules.IMPORT_NOT_ALLOWED, alias, hint, what=f"import of `{alias.name}`"))
        elif isinstance(node, ast.ImportFrom):
            if node.module == "__future__" and not node.level:
                continue  # no-ops here (annotations are never evaluated); compile_check vets the names
            if node.level:
                out.append(_diag(rules.IMPORT_NOT_ALLOWED, node, hint, what="a relative import"))
            elif not policy.allows_import(node.module or ""):
                out.append(_diag(rules.IMPORT_NOT_ALLOWED, node, hint, what=f"import from `{node.module}`"))
    return out


# Names the code defines


def defined_names(tree: ast.AST) -> tuple[set[str], bool]:
    """Every name the code binds anywhere, and whether it has a ``from m import *``."""
    return _defined(_walk(tree))


def _defined(nodes: list[ast.AST]) -> tuple[set[str], bool]:
    # one pass comparing exact node types (isinstance chains dominated the cost)
    names: set[str] = set()
    star = False
    for node in nodes:
        t = type(node)
        if t is ast.Name:
            if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                names.add(node.id)  # type: ignore[attr-defined]
        elif t is ast.arg:
            names.add(node.arg)  # type: ignore[attr-defined]
        elif t in _DEFINITIONS:
            names.add(node.name)  # type: ignore[attr-defined]
        elif t is ast.Import:
            names.update((a.asname or a.name).split(".")[0] for a in node.names)  # type: ignore[attr-defined]
        elif t is ast.ImportFrom:
            for a in node.names:  # type: ignore[attr-defined]
                if a.name == "*":
                    star = True
                else:
                    names.add(a.asname or a.name)
        elif t in _OPTIONAL_NAMES:
            if node.name:  # type: ignore[attr-defined]
                names.add(node.name)  # type: ignore[attr-defined]
        elif t is ast.MatchMapping:
            if node.rest:  # type: ignore[attr-defined]
                names.add(node.rest)  # type: ignore[attr-defined]
        elif t is ast.Global or t is ast.Nonlocal:
            names.update(node.names)  # type: ignore[attr-defined]
    return names, star


_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_OPTIONAL_NAMES = frozenset({ast.ExceptHandler, ast.MatchAs, ast.MatchStar})


@functools.cache
def _builtin_names() -> frozenset[str]:
    from safe_eval import membrane

    provider = getattr(membrane, "builtin_names", None)
    names = provider() if callable(provider) else membrane.BUILTINS.keys()
    return frozenset(names) | _INTERPRETER_BUILTINS


# Calls


def _check_calls(nodes: list[ast.AST], policy: Policy, env: Mapping[str, Any],
                 tools: Collection[str]) -> list[Diagnostic]:
    defined, star = _defined(nodes)
    builtins = _builtin_names()
    out = []
    for node in nodes:
        if type(node) is not ast.Call or type(node.func) is not ast.Name:
            continue
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        name = node.func.id
        if name in defined:
            continue  # the guest's own function (even if it shadows a tool)
        if name in env or _policy_tool(policy, name):
            # session data (a helper, an import of an earlier step) is no tool
            if policy.tools and (name in tools or name not in env):
                diag = _check_tool_call(node, name, policy, env)
                if diag is not None:
                    out.append(diag)
        elif name not in builtins and name not in REFUSED_BUILTINS and not star:
            # (a refused builtin is restrict's R001: one diagnostic, not two)
            out.append(_unknown_name(node.func, name, env, builtins, policy))
    return out


def _policy_tool(policy: Policy, name: str) -> bool:
    """A name an allow rule of the policy names: a tool the host is expected to pass."""
    return bool(policy.tools) and any(r.action == "allow" for r in policy.rules_for(name))


def _tools_and_data(policy: Policy, env: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The tools the code may call (callables in env, or what the allow rules name) and the
    other names the host defines (data, or names given without values)."""
    if policy.tools:
        tools = policy.allowed_tools(env) if env else policy.allowed_tools()
    else:
        tools = [n for n, v in env.items() if callable(v)]
    data = [n for n, v in env.items() if n not in tools and not callable(v)]
    return tools, data


def _unknown_name(
    node: ast.Name, name: str, env: Mapping[str, Any], builtins: frozenset[str], policy: Policy
) -> Diagnostic:
    tools, data = _tools_and_data(policy, env)
    # difflib is slow: only compare names with the same initial and about the same length
    slack = max(2, len(name) // 3)
    pool = [c for c in [*tools, *data, *sorted(builtins)]
            if c[:1] == name[:1] and abs(len(c) - len(name)) <= slack]
    import difflib  # only on this path: it is not needed to run correct code

    close = difflib.get_close_matches(name, pool, n=1)
    hint = f"did you mean `{close[0]}`? " if close else ""
    hint += (
        f"available tools: {', '.join(tools)}"
        if tools
        else "no tools are available: define the function yourself"
    )
    if data:
        hint += f"; other names the host defines: {', '.join(data)}"
    return _diag(rules.UNKNOWN_NAME, node, hint, name=name)


def _check_tool_call(node: ast.Call, name: str, policy: Policy, env: Mapping[str, Any]) -> Diagnostic | None:
    args, kwargs, splat = _static_arguments(node)
    tool_rules = policy.rules_for(name)
    decision = _static_decision(name, tool_rules, args, kwargs, splat, env.get(name))
    if decision is None:
        return None
    deciding, message = decision
    if deciding is not None:  # a deny rule fires whatever the unknown arguments are
        denial = denied_by(name, deciding)
        # a ``raise`` rule is met by the guest as a PermissionError it may catch: a warning
        rule = rules.TOOL_CALL_RAISES if deciding.raise_to_guest else _rule_of(denial.code)
        return _diag(rule, node, f"rule: {deciding.render()}", detail=denial.message)
    allows = [r for r in tool_rules if r.action == "allow"]
    if not allows:
        tools = ", ".join(policy.allowed_tools(env)) or "none"
        message = f"`{name}` is not an allowed tool; allowed tools: {tools}"
        return _diag(rules.TOOL_NOT_ALLOWED, node.func, f"call only these tools: {tools}", detail=message)
    forms = "; ".join(f"{name}{r.render_args()}" for r in allows)
    message = message or f"`{name}` call denied"
    where = _argument_node(node, message, env.get(name), allows[0]) or node
    return _diag(rules.TOOL_ARGUMENT_DENIED, where, f"allowed calls: {forms}", detail=message)


_ARGUMENT_IN_REASON = re.compile(r"argument `(\w+)`")


def _argument_node(node: ast.Call, reason: str, fn: Any, rule: ToolRule) -> ast.AST | None:
    """The argument a denial names, so the caret points at it rather than the whole call."""
    found = _ARGUMENT_IN_REASON.search(reason)
    if found is None:
        return None
    name = found.group(1)
    for kw in node.keywords:
        if kw.arg == name:
            return kw
    positional = _positional_names(fn) or [a.name for a in rule.args or ()]
    if name in positional:
        index = positional.index(name)
        if index < len(node.args) and not any(isinstance(a, ast.Starred) for a in node.args[: index + 1]):
            return node.args[index]
    return None


def _positional_names(fn: Any) -> list[str]:
    if fn is None:
        return []
    import inspect  # about 5 ms: loaded when a tool call is checked, not at cold start

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds]


def _rule_of(code: str) -> Rule:
    """The registered rule of a decision's code (a decision always carries one of ours)."""
    return rules.by_code(code) or rules.TOOL_NOT_ALLOWED


def _static_arguments(node: ast.Call) -> tuple[tuple[Any, ...], dict[str, Any], bool]:
    splat = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
    args = tuple(_constant(a) for a in node.args if not isinstance(a, ast.Starred))
    kwargs = {k.arg: _constant(k.value) for k in node.keywords if k.arg is not None}
    return args, kwargs, splat


def _constant(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        from safe_eval.policy.rules import UNKNOWN

        return UNKNOWN


def _static_decision(
    name: str, rules: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any], splat: bool, fn: Any
) -> tuple[Any, str] | None:
    """(deciding deny rule or None, reason) when the call is denied whatever its unknown
    arguments are; None when it may be allowed."""
    from safe_eval.policy.rules import tri_match

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
