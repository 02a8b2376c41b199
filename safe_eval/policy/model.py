"""The policy model (PLACEHOLDER: the policy issue replaces this with the full model + DSL).

Interface the rest of safe-eval relies on:

    Policy.imports: frozenset[str]           modules the guest may import
    Policy.limits: Limits                    the resource limits
    Policy.tools: tuple[ToolRule, ...]       ordered allow/deny rules (empty: env callables are granted)
    Policy.decide(tool, args, kwargs, fn) -> Decision      run-time check of one tool call
    default_policy() -> Policy               the shipped ``default`` policy
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from safe_eval.limits.model import Limits

DEFAULT_IMPORTS = frozenset(
    "math cmath re json string itertools functools operator collections heapq bisect statistics "
    "fractions decimal datetime random copy typing dataclasses enum abc contextlib textwrap time "
    "hashlib base64 uuid asyncio".split()
)


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    message: str = ""
    rule: Any = None
    raise_to_guest: bool = False


@dataclass(frozen=True, slots=True)
class Policy:
    name: str = "custom"
    imports: frozenset[str] = DEFAULT_IMPORTS
    limits: Limits = field(default_factory=Limits)
    tools: tuple[Any, ...] = ()

    def decide(
        self, tool: str, args: tuple[Any, ...], kwargs: Mapping[str, Any], fn: Callable[..., Any] | None = None
    ) -> Decision:
        return Decision(True)


_DEFAULT = Policy(name="default")


def default_policy() -> Policy:
    return _DEFAULT
