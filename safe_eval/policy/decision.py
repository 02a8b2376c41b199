"""``Decision``: the verdict on one tool call.

Its own module (re-exported by ``rules``) so that ``model`` can build a policy without tool
rules, the shipped default, without importing the rule machinery (``rules``/``conditions``:
dataclasses and regexes that cost cold-start time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Decision"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The verdict on one tool call. ``message`` is written for the model; ``rule`` is the rule
    that decided (None: no rule matched, or the policy has no tool rules); ``code`` is the
    diagnostic code of a denial (T003 tool not allowed, T004 arguments not allowed)."""

    allowed: bool
    message: str = ""
    rule: Any = None
    raise_to_guest: bool = False
    code: str = ""
    hint: str = ""
