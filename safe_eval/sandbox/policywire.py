"""A policy and its tools' signatures as plain JSON for the worker: the whole policy, not its name.

The worker's interpreter decides with the same policy the host holds: its imports, limits, tool
rules (with their argument conditions) and the floor of the policies it extends, so a guest
``exec``/``eval`` string the host never saw is checked by the same rules. Sent as data, not DSL
text: the worker never loads the policy parser. ``from_wire(to_wire(p)) == p`` for every policy
but its ``sandbox`` minimum, which the worker does not need (it runs in that sandbox already:
kept, the worker's evaluator would try to escalate again).

A tool's signature crosses as its parameters' names and kinds (defaults are never sent: binding
a call never fills them in, see ``policy.binding``), so a stub in the worker places a call's
arguments exactly as the host function will; an unreadable signature stays unreadable.

Anything this module does not know (a new condition class) is refused with ``SandboxError``:
a policy is never sent with a rule missing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from safe_eval.errors import SandboxError
from safe_eval.limits.model import Limits
from safe_eval.policy.model import Policy
from safe_eval.sandbox import codec

__all__ = ["from_wire", "signature_from_wire", "signature_to_wire", "to_wire"]

_KINDS = {p.name: p for p in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                             inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY,
                             inspect.Parameter.VAR_KEYWORD)}


# -- policies --------------------------------------------------------------------------------

def to_wire(policy: Policy) -> dict[str, Any]:
    """The policy as JSON-ready data (``SandboxError`` for a rule this module cannot carry)."""
    return {
        "name": policy.name,
        "imports": sorted(policy.imports),
        "limits": policy.limits.to_dict(),
        "tools": [_rule_to_wire(r) for r in policy.tools],
        "floor": [[_rule_to_wire(r) for r in rules] for rules in policy.floor],
    }


def from_wire(data: Any) -> Policy:
    """The worker's copy of the host's policy (without its sandbox minimum)."""
    if type(data) is not dict:
        raise ValueError("malformed policy")
    return Policy(
        str(data["name"]), frozenset(str(m) for m in data["imports"]), Limits(**data["limits"]),
        tuple(_rule_from_wire(r) for r in data["tools"]),
        tuple(tuple(_rule_from_wire(r) for r in rules) for rules in data["floor"]),
    )


def _rule_to_wire(rule: Any) -> dict[str, Any]:
    args = None if rule.args is None else [
        {"name": a.name, "conditions": [_condition_to_wire(c) for c in a.conditions]} for a in rule.args]
    return {"action": rule.action, "tool": rule.tool, "args": args, "rest": rule.rest,
            "message": rule.message, "raise_to_guest": rule.raise_to_guest}


def _rule_from_wire(data: dict[str, Any]) -> Any:
    from safe_eval.policy.rules import Arg, ToolRule

    args = data["args"]
    if args is not None:
        args = tuple(Arg(str(a["name"]), *(_condition_from_wire(c) for c in a["conditions"])) for a in args)
    return ToolRule(str(data["action"]), str(data["tool"]), args, bool(data["rest"]),  # type: ignore[arg-type]
                    str(data["message"]), bool(data["raise_to_guest"]))


def _condition_to_wire(c: Any) -> dict[str, Any]:
    from safe_eval.policy import conditions as k

    kind = type(c)
    if kind is k.IsType:
        return {"kind": "IsType", "text": c.text}
    if kind is k.Equals:
        return {"kind": "Equals", "value": codec.encode(c.value), "negate": c.negate}
    if kind is k.OneOf:
        return {"kind": "OneOf", "values": [codec.encode(v) for v in c.values], "negate": c.negate}
    if kind is k.InRange:
        return {"kind": "InRange", "low": codec.encode(c.low), "high": codec.encode(c.high)}
    if kind is k.LenRange:
        return {"kind": "LenRange", "low": c.low, "high": c.high}
    if kind is k.Matches:
        return {"kind": "Matches", "pattern": c.pattern, "negate": c.negate}
    raise SandboxError(f"a policy condition of type {kind.__name__} cannot be sent to a sandbox worker")


def _condition_from_wire(data: dict[str, Any]) -> Any:
    from safe_eval.policy import conditions as k

    kind = data["kind"]
    if kind == "IsType":
        return k.IsType(str(data["text"]))
    if kind == "Equals":
        return k.Equals(codec.decode(data["value"]), bool(data["negate"]))
    if kind == "OneOf":
        return k.OneOf([codec.decode(v) for v in data["values"]], bool(data["negate"]))
    if kind == "InRange":
        return k.InRange(codec.decode(data["low"]), codec.decode(data["high"]))
    if kind == "LenRange":
        return k.LenRange(data["low"], data["high"])
    if kind == "Matches":
        return k.Matches(str(data["pattern"]), bool(data["negate"]))
    raise ValueError(f"unknown policy condition {kind!r}")


# -- tool signatures -------------------------------------------------------------------------

def signature_to_wire(fn: Callable[..., Any]) -> list[list[Any]] | None:
    """The parameters of the host tool ``fn`` as [name, kind, has a default], or None when the
    policy gate cannot read its signature (``binding.parameters_of``)."""
    from safe_eval.policy.binding import parameters_of

    if parameters_of(fn) is None:
        return None
    sig = inspect.signature(fn, follow_wrapped=False)
    return [[p.name, p.kind.name, p.default is not inspect.Parameter.empty] for p in sig.parameters.values()]


_NO_DEFAULT_SENT = object()


def signature_from_wire(data: Any) -> inspect.Signature | str:
    """The stub's ``__signature__``: the host tool's parameters, or (unreadable) a value that
    makes ``inspect.signature`` raise, as it does for the host tool."""
    if data is None:
        return "unreadable"
    if type(data) is not list:
        raise ValueError("malformed tool signature")
    return inspect.Signature([
        inspect.Parameter(str(name), _KINDS[str(kind)], default=_NO_DEFAULT_SENT if has_default
                          else inspect.Parameter.empty)
        for name, kind, has_default in data])
