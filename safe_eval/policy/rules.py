"""Tool rules (progent's model): ordered ``allow``/``deny`` rules over tool names and arguments.

    allow search(query: str, limit: int in 1..50)     the first rule that matches a call decides
    deny  delete_*(*) raise "deleting is never allowed"

Matching, for a call of tool ``t`` with arguments bound to parameter names:
- the rule's tool pattern (``*`` globs) must match ``t`` in full;
- ``(*)`` or no list: any arguments;
- an ``allow`` rule permits only the arguments it names (end the list with ``*`` to let others
  through unchecked) and each named argument the call passes must meet its conditions (an
  argument the call leaves out keeps the tool's own default);
- a ``deny`` rule fires when every argument it names is passed and meets its conditions or
  cannot be evaluated on it (deny when in doubt), whatever else the call passes; an argument
  the call leaves out counts as passed when a value for it may still reach the host (a non-empty
  ``*args``, or a tool without that parameter: see ``OutboundCall.absent_in_doubt``).
A rule is compiled once into a closure (``match``) and a glob regex; the explanations a model
reads on denial are computed on the denial path only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from safe_eval.errors import PolicyError
from safe_eval.policy._text import quote
from safe_eval.policy.decision import Decision
from safe_eval.policy.outbound import UNREADABLE, Incomplete

# conditions.py (six dataclasses, about 5 ms to import) is loaded when the first rule with
# arguments is built: a policy without tool rules, the common case, never needs it.
if TYPE_CHECKING:
    from safe_eval.policy.conditions import Condition, Predicate

__all__ = ["UNKNOWN", "Action", "Arg", "Decision", "ToolRule", "allow", "check_applicable", "deny"]

Action = Literal["allow", "deny"]
# (positional args, keyword args, the arguments by parameter name or None, whether an argument
# a deny rule names but the call leaves out may still reach the host, or None) -> matches
Absent = Callable[[str], bool]
Matcher = Callable[[tuple[Any, ...], Mapping[str, Any], "dict[str, Any] | None", "Absent | None"], bool]

# a tool's name in env, or ``Type.method`` for a method of an exposed object (globs included)
_TOOL_PATTERN = re.compile(r"[A-Za-z_*][A-Za-z0-9_*]*(\.[A-Za-z_*][A-Za-z0-9_*]*)*")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Unknown:
    """An argument value the static check cannot know (not a constant)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


# Which type names each kind of condition can hold for (a union needs one member that can).
_NUMBERS = frozenset({"int", "float", "bool", "complex", "Decimal", "Fraction", "Any", "object"})
_SIZED = frozenset({"str", "bytes", "bytearray", "list", "tuple", "dict", "set", "frozenset", "Sequence",
                    "Mapping", "Collection", "Sized", "Any", "object"})
_TEXT = frozenset({"str", "Any", "object"})


def check_applicable(arg: Arg) -> None:
    """Refuse a condition no value of the argument's type can meet (``x: str in 1..5``): the
    rule could never allow, or always deny, which is never what its author meant. The DSL
    calls this on what a policy file says (the Python API builds what it is given)."""
    from safe_eval.policy.conditions import IsType

    if not arg.conditions or not isinstance(arg.conditions[0], IsType):
        return
    _check_conditions(arg.name, arg.conditions[0].text, arg.conditions[1:])


def _check_conditions(name: str, type_text: str, conditions: tuple[Condition, ...]) -> None:
    from safe_eval.policy.conditions import InRange, LenRange, Matches

    members = _members(type_text)
    needs: tuple[tuple[type, frozenset[str], str], ...] = (
        (InRange, _NUMBERS, "a number range needs a number type"),
        (LenRange, _SIZED, "a length range needs a str, bytes or a collection"),
        (Matches, _TEXT, "a regular expression match needs a str"))
    for condition in conditions:
        for kind, fits, why in needs:
            if isinstance(condition, kind) and not members & fits and "Literal" not in members:
                raise PolicyError(f"argument `{name}`: `{condition.render()}` cannot apply to "
                                  f"`{type_text}` ({why})")


def _members(text: str) -> set[str]:
    """The type names a value of this type may have at the top: ``int | None`` ->
    ``{"int", "None"}``, ``Optional[list[int]]`` -> ``{"list", "None"}``."""
    out = set()
    for part in _split_top(text, "|"):
        head = part.split("[", 1)[0].strip().rsplit(".", 1)[-1]
        if head in ("Optional", "Union") and "[" in part:
            for inner in _split_top(part[part.index("[") + 1 : part.rindex("]")], ","):
                out |= _members(inner)
            if head == "Optional":
                out.add("None")
        else:
            out.add(head)
    return out


def _split_top(text: str, separator: str) -> list[str]:
    """``int | list[str | None]`` split at ``|`` -> ``["int ", " list[str | None]"]``."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


@dataclass(frozen=True, slots=True, init=False)
class Arg:
    """One named argument of a rule and its conditions: ``Arg("limit", IsType("int"), InRange(1, 50))``."""

    name: str
    conditions: tuple[Condition, ...]
    # ``predicate``: every condition holds (what an allow rule needs); ``denies``: every
    # condition holds or cannot be evaluated (what fires a deny rule: deny when in doubt)
    predicate: Predicate = field(repr=False, compare=False, hash=False)
    denies: Predicate = field(repr=False, compare=False, hash=False)

    def __init__(self, name: str, *conditions: Condition) -> None:
        from safe_eval.policy.conditions import Condition, IsType, combine, combine_doubtful

        if not isinstance(name, str) or not _IDENT.fullmatch(name):
            raise PolicyError(f"argument name must be an identifier, got {name!r}")
        for c in conditions:
            if not isinstance(c, Condition):
                raise PolicyError(f"argument `{name}`: {c!r} is not a condition")
        types = [c for c in conditions if isinstance(c, IsType)]
        if len(types) > 1:
            raise PolicyError(f"argument `{name}` has more than one type")
        # the type is written first (`limit: int in 1..50`), so it is kept first
        ordered = tuple(types) + tuple(c for c in conditions if not isinstance(c, IsType))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "conditions", ordered)
        object.__setattr__(self, "predicate", combine(ordered))
        object.__setattr__(self, "denies", combine_doubtful(ordered))

    def render(self) -> str:
        from safe_eval.policy.conditions import IsType

        parts = [self.name]
        for c in self.conditions:
            text = c.render()
            parts.append(text if isinstance(c, IsType) else " " + text)
        return "".join(parts)

    def failure(self, value: Any) -> str | None:
        """Why ``value`` fails (the first failing condition), None if it passes."""
        if type(value) is Incomplete:
            if all(c.universal() for c in self.conditions):
                return None
            what = type(value.value).__name__
            return f"argument `{self.name}` is not plain data (a {what}), so it cannot be checked"
        for c in self.conditions:
            if not c.predicate(value):
                return f"argument `{self.name}` {c.failure(value)}"
        return None


@dataclass(frozen=True, slots=True)
class ToolRule:
    """``allow``/``deny`` a tool (``*`` globs) with argument conditions.

    ``args=None`` means any arguments (``(*)``); ``rest=True`` lets an allow rule accept
    arguments it does not name. ``raise_to_guest`` (deny only) makes the denial a
    ``PermissionError(message)`` the guest can catch instead of a ``PolicyViolation``."""

    action: Action
    tool: str
    args: tuple[Arg, ...] | None = None
    rest: bool = False
    message: str = ""
    raise_to_guest: bool = False
    glob: re.Pattern[str] = field(init=False, repr=False, compare=False, hash=False)
    match: Matcher = field(init=False, repr=False, compare=False, hash=False)
    allowed: Decision = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.action not in ("allow", "deny"):
            raise PolicyError(f"a rule's action is `allow` or `deny`, not {self.action!r}")
        if not isinstance(self.tool, str) or not _TOOL_PATTERN.fullmatch(self.tool):
            raise PolicyError(
                f"invalid tool pattern {self.tool!r}: use letters, digits, _ and * globs "
                "(Type.method for a method of an exposed object)"
            )
        if self.raise_to_guest and self.action != "deny":
            raise PolicyError(
                "`raise` only applies to deny rules (a call no allow rule matches is denied anyway)"
            )
        if not isinstance(self.message, str):
            raise PolicyError(f"a rule's message must be a string, got {self.message!r}")
        args = self.args
        if args is not None:
            args = tuple(args)
            for a in args:
                if not isinstance(a, Arg):
                    raise PolicyError(f"rule `{self.tool}`: {a!r} is not an Arg")
            seen = [a.name for a in args]
            dups = sorted({n for n in seen if seen.count(n) > 1})
            if dups:
                raise PolicyError(f"rule `{self.tool}` names argument `{dups[0]}` twice")
            if not args and self.rest:
                args = None  # `(*)`: any arguments
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "rest", bool(self.rest) and args is not None)
        glob = re.compile(".*".join(re.escape(part) for part in self.tool.split("*")))
        object.__setattr__(self, "glob", glob)
        object.__setattr__(self, "match", self._compile())
        object.__setattr__(self, "allowed", Decision(True, "", self))

    # Matching

    def _compile(self) -> Matcher:
        if self.args is None:
            return _any_arguments
        names = tuple(a.name for a in self.args)
        if self.action == "allow":
            return _allow_matcher(names, {a.name: a.predicate for a in self.args}, self.rest)
        return _deny_matcher(names, {a.name: a.denies for a in self.args})

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """Arguments by name in this rule's own parameter order (used when the tool has no
        signature), and what makes the binding unfit for an allow rule ("" if nothing)."""
        names = [a.name for a in self.args or ()]
        bound = dict(zip(names, args, strict=False))
        problem = ""
        if len(args) > len(names) and not self.rest:
            problem = f"takes at most {len(names)} positional argument(s) here"
        for key in kwargs:
            if key in bound:
                problem = f"got multiple values for argument `{key}`"
        bound.update(kwargs)
        return bound, problem

    def failure(
        self, tool: str, args: tuple[Any, ...], kwargs: Mapping[str, Any], bound: dict[str, Any] | None
    ) -> str | None:
        """Why this allow rule does not permit the call (None: it does). Slow path only."""
        if self.args is None:
            return None
        if bound is UNREADABLE:
            return f"the signature of `{tool}` cannot be read, so its arguments cannot be checked"
        if bound is None:
            bound, problem = self.bind(args, kwargs)
            if problem:
                return f"`{tool}` {problem}"
        by_name = {a.name: a for a in self.args}
        for key, value in bound.items():
            arg = by_name.get(key)
            if arg is None:
                if not self.rest:
                    return f"`{tool}` may not be passed argument `{key}`"
                continue
            if value is UNKNOWN:  # the static check does not know it: not the reason
                continue
            reason = arg.failure(value)
            if reason is not None:
                return reason
        return None

    def render(self) -> str:
        text = f"{self.action} {self.tool}{self.render_args()}"
        if self.raise_to_guest:
            text += " raise"
        if self.message:
            text += " " + quote(self.message)
        return text

    def render_args(self) -> str:
        if self.args is None:
            return "(*)"
        parts = [a.render() for a in self.args] + (["*"] if self.rest else [])
        return f"({', '.join(parts)})"


def _any_arguments(
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    bound: dict[str, Any] | None,
    absent: Absent | None = None,
) -> bool:
    return True


def _allow_matcher(names: tuple[str, ...], checks: dict[str, Predicate], rest: bool) -> Matcher:
    count = len(names)

    def match(
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        bound: dict[str, Any] | None,
        absent: Absent | None = None,
    ) -> bool:
        if bound is None:
            if len(args) > count and not rest:
                return False
            bound = dict(zip(names, args, strict=False))
            for key, value in kwargs.items():
                if key in bound:
                    return False
                bound[key] = value
        for key, value in bound.items():
            check = checks.get(key)
            if check is None:
                if not rest:
                    return False
            elif not check(value):
                return False
        return True

    return match


def _deny_matcher(names: tuple[str, ...], checks: dict[str, Predicate]) -> Matcher:
    def match(
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        bound: dict[str, Any] | None,
        absent: Absent | None = None,
    ) -> bool:
        if bound is None:
            bound = dict(zip(names, args, strict=False))
            bound.update(kwargs)
        for name in names:
            if name in bound:
                if not checks[name](bound[name]):
                    return False
            elif absent is None or not absent(name):
                return False  # left out: the tool's own default is used
        return True

    return match


def tri_match(
    rule: ToolRule, bound: dict[str, Any] | None, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> bool | None:
    """Three-valued match for the static check, where argument values may be ``UNKNOWN``:
    True (matches whatever the unknowns are), False (cannot match), None (depends)."""
    if rule.args is None:
        return True
    problem = ""
    guessed = bound is None  # positions placed in the rule's own order, not the tool's
    if bound is None:
        bound, problem = rule.bind(args, kwargs)
    checks = {a.name: a.predicate if rule.action == "allow" else a.denies for a in rule.args}
    result: bool | None = True
    if rule.action == "allow":
        if problem:
            return False
        for key, value in bound.items():
            check = checks.get(key)
            if check is None:
                if not rule.rest:
                    return False
            elif value is UNKNOWN:
                result = None
            elif not check(value):
                return False
        return result
    for name, check in checks.items():
        if name not in bound:
            return False
        if bound[name] is UNKNOWN or (guessed and name not in kwargs):
            # a value only guessed to be this argument (deny when in doubt fires on a value of
            # another kind): the run-time gate, which places by the real signature, decides
            result = None
        elif not check(bound[name]):
            return False
    return result


def _rule(
    action: Action, tool: str, args: Iterable[Arg], rest: bool, message: str, raise_to_guest: bool
) -> ToolRule:
    return ToolRule(action, tool, tuple(args) or None, rest, message, raise_to_guest)


def allow(tool: str, *args: Arg, rest: bool = False, message: str = "") -> ToolRule:
    """``allow tool(args...)``; with no args: any arguments (for "no arguments at all" write
    ``ToolRule("allow", tool, args=())``)."""
    return _rule("allow", tool, args, rest, message, False)


def deny(tool: str, *args: Arg, message: str = "", raise_to_guest: bool = False) -> ToolRule:
    """``deny tool(args...)``; with no args: every call of the tool."""
    return _rule("deny", tool, args, False, message, raise_to_guest)
