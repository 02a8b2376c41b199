"""Policies: what guest code may import, which tools it may call with which arguments, its limits.

    resolve_policy(None | Policy | "default" | "strict" | "agent" | "path/to/x.policy") -> Policy
    parse_policy(text, filename) / load_policy(path) / render_policy(policy) / describe_policy(policy)
    Policy(name, imports, limits, tools, floor).decide(tool, args, kwargs, fn) -> Decision
    call_tool(name, fn, args, kwargs)        (safe_eval.policy.enforce) the run-time gate, the one
                                             door out: the host gets exactly what was decided on

See ``dsl.py`` for the language, ``rules.py`` for how rules match, ``model.py`` for the model,
``outbound.py``/``plain.py``/``binding.py`` for what a rule sees of a call.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from safe_eval.policy.files import SHIPPED, load_policy, resolve_name_or_path, shipped_policy
from safe_eval.policy.model import Decision, Policy, default_policy
from safe_eval.policy.render import describe_policy, render_policy

if TYPE_CHECKING:
    from safe_eval.policy.conditions import Condition, Equals, InRange, IsType, LenRange, Matches, OneOf
    from safe_eval.policy.dsl import Loader
    from safe_eval.policy.rules import Arg, ToolRule, allow, deny

# The condition classes are loaded on first use (``from safe_eval.policy import IsType`` works
# as before): importing them costs about 5 ms that an evaluation under a policy without
# argument conditions never needs.
_CONDITIONS = frozenset({"Condition", "Equals", "InRange", "IsType", "LenRange", "Matches", "OneOf"})


_RULES = frozenset({"Arg", "ToolRule", "allow", "deny"})


def __getattr__(name: str) -> Any:
    if name in _CONDITIONS:
        from safe_eval.policy import conditions

        value = getattr(conditions, name)
    elif name in _RULES:  # likewise the rule classes: the default policy has no rules
        from safe_eval.policy import rules

        value = getattr(rules, name)
    else:
        raise AttributeError(f"module 'safe_eval.policy' has no attribute {name!r}")
    globals()[name] = value
    return value

__all__ = [
    "SHIPPED",
    "Arg",
    "Condition",
    "Decision",
    "Equals",
    "InRange",
    "IsType",
    "LenRange",
    "Matches",
    "OneOf",
    "Policy",
    "ToolRule",
    "allow",
    "default_policy",
    "deny",
    "describe_policy",
    "load_policy",
    "parse_policy",
    "render_policy",
    "resolve_policy",
    "shipped_policy",
]


def resolve_policy(policy: object = None) -> Policy:
    """A Policy from what a caller passes: None (the shipped default), a Policy, a shipped
    policy name ("default", "strict", "agent") or a path to a ``.policy`` file."""
    if policy is None:
        return default_policy()
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, str | os.PathLike):
        return resolve_name_or_path(policy)
    raise TypeError(f"policy must be a Policy, a policy name or a path, not {type(policy).__name__}")


def parse_policy(
    text: str, filename: str = "<policy>", *, loader: Loader | None = None, chain: tuple[str, ...] = ()
) -> Policy:
    """The ``Policy`` written in ``text`` (see ``safe_eval.policy.dsl.parse_policy``).

    A thin wrapper so that importing ``safe_eval.policy`` does not import the DSL and lark
    (about 40 ms): most evaluations use the shipped default policy, which is pre-parsed."""
    from safe_eval.policy.dsl import parse_policy as parse

    return parse(text, filename, loader=loader, chain=chain)
