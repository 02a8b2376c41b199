"""``Decision``: the verdict on one tool call.

Its own module (re-exported by ``rules``) so that ``model`` can build a policy without tool
rules, the shipped default, without importing the rule machinery (``rules``/``conditions``:
dataclasses and regexes that cost cold-start time).
"""

from __future__ import annotations

from typing import Any

from safe_eval._record import Frozen, Record

__all__ = ["Decision"]


class Decision(Frozen, Record):
    """The verdict on one tool call. ``message`` is written for the model; ``rule`` is the rule
    that decided (None: no rule matched, or the policy has no tool rules); ``code`` is the
    diagnostic code of a denial (T003 tool not allowed, T004 arguments not allowed). A frozen,
    hashable value (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("allowed", "message", "rule", "raise_to_guest", "code", "hint")
    _fields = __slots__
    __match_args__ = ("allowed", "message", "rule", "raise_to_guest", "code", "hint")

    allowed: bool
    message: str
    rule: Any
    raise_to_guest: bool
    code: str
    hint: str

    def __init__(self, allowed: bool, message: str = "", rule: Any = None, raise_to_guest: bool = False,
                 code: str = "", hint: str = "") -> None:
        setattr_ = object.__setattr__
        setattr_(self, "allowed", allowed)
        setattr_(self, "message", message)
        setattr_(self, "rule", rule)
        setattr_(self, "raise_to_guest", raise_to_guest)
        setattr_(self, "code", code)
        setattr_(self, "hint", hint)
