"""The policy model: a frozen, hashable value (it keys the program cache).

    Policy(name, imports: frozenset[str], limits: Limits, tools: tuple[ToolRule, ...])
    Policy.decide(tool, args, kwargs, fn=None) -> Decision      run-time check of one tool call
    Policy.with_limits(...) / Policy.replace(...)                 modified copies
    default_policy() -> Policy                                    the shipped ``default`` policy

Built from the DSL (``parse_policy``/``load_policy``) or directly::

    Policy(name="agent", imports={"math", "re"}, limits=Limits(time=1.0),
           tools=[allow("search", Arg("query", IsType("str"))), deny("delete_*")])

Deny by default: ``Policy()`` imports nothing; a policy with tool rules denies every call no
allow rule matches; a policy without tool rules grants the callables the caller put in env.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from safe_eval._record import Frozen, Shown
from safe_eval.errors import PolicyError
from safe_eval.limits.model import Limits
from safe_eval.policy.binding import BindError
from safe_eval.policy.curated import curated
from safe_eval.policy.decision import Decision
from safe_eval.policy.outbound import UNREADABLE, OutboundCall
from safe_eval.rules import TOOL_ARGUMENT_DENIED, TOOL_NOT_ALLOWED

# the rule classes are imported when a policy has rules (cold start: the default has none)
if TYPE_CHECKING:
    from safe_eval.policy.rules import ToolRule

__all__ = ["Decision", "Policy", "default_policy", "denied_by", "unbindable"]

_GRANTED = Decision(True, "the policy has no tool rules: the callables passed in env are granted")
_CACHE_LIMIT = 1024
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_DEFAULT_LIMITS = Limits()  # frozen: every Policy() may share it
_UNSET: Any = object()


class Policy(Frozen, Shown):
    """A frozen value: equal when name, imports, limits, tools and floor are equal, hashed on
    them (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("name", "imports", "limits", "tools", "floor", "sandbox", "_by_tool", "_hash")
    _fields = ("name", "imports", "limits", "tools", "floor", "sandbox")
    __match_args__ = ("name", "imports", "limits", "tools", "floor")

    name: str
    imports: frozenset[str]
    limits: Limits
    tools: tuple[ToolRule, ...]
    # the rule lists of the policies this one extends (``extends``), nearest last: a call one of
    # them denies by a deny rule is denied, whatever ``tools`` says (the base's floor)
    floor: tuple[tuple[ToolRule, ...], ...]
    # the weakest OS sandbox evaluations under this policy may use (``sandbox bwrap``), or None
    sandbox: str | None
    # tool name -> (the rules whose pattern matches it, in order; the same of each floor list
    # holding a deny rule): filled lazily; not part of the value (two equal policies share
    # their behaviour, not their caches)
    _by_tool: dict[str, tuple[tuple[ToolRule, ...], tuple[tuple[ToolRule, ...], ...]]]
    _hash: int

    def __init__(
        self,
        name: str = "custom",
        imports: frozenset[str] = frozenset(),
        limits: Limits = _DEFAULT_LIMITS,
        tools: tuple[ToolRule, ...] = (),
        floor: tuple[tuple[ToolRule, ...], ...] = (),
        sandbox: str | None = None,
    ) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise PolicyError(
                f"a policy name is a letter or _ then letters, digits, _, . or -; got {name!r}"
            )
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_by_tool", {})
        imports = _imports(imports)
        if isinstance(limits, Mapping):
            limits = _limits(Limits(), limits)
        if not isinstance(limits, Limits):
            raise PolicyError(f"limits must be a Limits (or a dict of fields), got {type(limits).__name__}")
        tools = tuple(tools)
        if tools:
            from safe_eval.policy.rules import ToolRule
        floor = tuple(tuple(rules) for rules in floor)
        for rule in (*tools, *(r for rules in floor for r in rules)):
            if not isinstance(rule, ToolRule):
                raise PolicyError(f"tools must be ToolRule values (allow(...)/deny(...)), got {rule!r}")
        object.__setattr__(self, "imports", imports)
        object.__setattr__(self, "limits", limits)
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "floor", floor)
        if sandbox is not None:
            from safe_eval.errors import SandboxError
            from safe_eval.sandbox.selection import normalize

            try:
                sandbox = normalize(sandbox)
            except (SandboxError, TypeError) as exc:
                raise PolicyError(str(exc)) from None
        object.__setattr__(self, "sandbox", sandbox)
        object.__setattr__(self, "_hash", hash((self.name, imports, limits, tools, floor, sandbox)))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, Policy)
            return (self.name, self.imports, self.limits, self.tools, self.floor, self.sandbox) == (
                other.name, other.imports, other.limits, other.tools, other.floor, other.sandbox)
        return NotImplemented

    def __hash__(self) -> int:
        return self._hash

    # Deciding tool calls

    def decide(
        self,
        tool: str,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        fn: Callable[..., Any] | None = None,
    ) -> Decision:
        """Whether calling ``tool`` (the env name) with these arguments is allowed. ``fn`` is
        the callable, whose signature places the arguments (see ``outbound``); without it,
        rules bind positions in their own order."""
        if not self.tools:
            return _GRANTED
        try:
            call = OutboundCall(fn, args, kwargs)
        except BindError as exc:
            return unbindable(tool, exc)
        return self.decide_call(tool, call)

    def decide_call(self, tool: str, call: OutboundCall) -> Decision:
        """The decision on a normalised call (``enforce.call_tool`` then calls the host function
        with exactly ``call.host_args()``). The base policies' deny rules are decided first: an
        extending policy cannot lift them (see ``floor``)."""
        if not self.tools:
            return _GRANTED
        entry = self._by_tool.get(tool)
        if entry is None:
            entry = self._rules_and_floor(tool)
        rules, floors = entry
        for floor in floors:
            # a floor's allow rules decide nothing (the extending policy's rules do), its deny
            # rules and a call that cannot be placed (``unbindable``: the rule cannot tell what
            # the host will receive) deny
            decision = _first_match(tool, call, floor)
            if decision is not None and not decision.allowed:
                return decision
        decision = _first_match(tool, call, rules)
        if decision is not None:
            return decision
        named = call.named() if any(r.args is not None for r in rules) else None
        return self.explain(tool, call.args, call.kwargs, named, rules)

    def rules_for(self, tool: str) -> tuple[ToolRule, ...]:
        """The rules whose tool pattern matches ``tool``, in order (cached per name)."""
        entry = self._by_tool.get(tool)
        return (entry if entry is not None else self._rules_and_floor(tool))[0]

    def _rules_and_floor(self, tool: str) -> tuple[tuple[ToolRule, ...], tuple[tuple[ToolRule, ...], ...]]:
        rules = tuple(r for r in self.tools if r.glob.fullmatch(tool))
        floors = tuple(
            matching
            for matching in (tuple(r for r in base if r.glob.fullmatch(tool)) for base in self.floor)
            if any(r.action == "deny" for r in matching)
        )
        if len(self._by_tool) >= _CACHE_LIMIT:
            self._by_tool.clear()
        self._by_tool[tool] = (rules, floors)
        return rules, floors

    def explain(
        self,
        tool: str,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        bound: dict[str, Any] | None,
        rules: tuple[ToolRule, ...],
    ) -> Decision:
        """The denial of a call no rule matched, with the reason a model can act on."""
        allows = [r for r in rules if r.action == "allow"]
        if not allows:
            names = self.allowed_tools()
            listed = ", ".join(names) if names else "none"
            return Decision(
                False,
                f"`{tool}` is not an allowed tool; allowed tools: {listed}",
                None,
                False,
                TOOL_NOT_ALLOWED.code,
                f"call only these tools: {listed}",
            )
        reason = allows[0].failure(tool, args, kwargs, bound) or f"`{tool}` call not allowed"
        forms = "; ".join(f"{tool}{r.render_args()}" for r in allows)
        return Decision(
            False, f"`{tool}` call denied: {reason}", None, False, TOOL_ARGUMENT_DENIED.code,
            f"allowed calls: {forms}",
        )

    def allowed_tools(self, names: Iterable[str] | None = None) -> list[str]:
        """Tool names an allow rule may permit: among ``names`` (the env) when given, else the
        patterns of the allow rules. A tool denied outright by an earlier ``deny t(*)`` is left out."""
        if names is None:
            out = [r.tool for r in self.tools if r.action == "allow"]
            return list(dict.fromkeys(out))
        result = []
        for name in names:
            for rule in self.rules_for(name):
                if rule.action == "allow":
                    result.append(name)
                    break
                if rule.args is None:
                    break
        return result

    def lifted_denials(self) -> list[str]:
        """Notes on this policy's own allow rules that try to lift a deny rule of a policy it
        extends (they cannot: the base's deny rules are a floor, decided first). Two tool
        patterns overlap when either glob matches the other's text."""
        if not self.floor:
            return []
        own = self.tools[: len(self.tools) - len(self.floor[-1])]
        notes = []
        for rule in own:
            if rule.action != "allow":
                continue
            for base in self.floor:
                for deny in base:
                    if deny.action == "deny" and (
                        deny.glob.fullmatch(rule.tool) or rule.glob.fullmatch(deny.tool)
                    ):
                        notes.append(
                            f"`{rule.render()}` cannot lift the base policy's `{deny.render()}`: "
                            "a call the base denies stays denied"
                        )
        return list(dict.fromkeys(notes))

    # Imports

    def allows_import(self, module: str) -> bool:
        """Whether the guest may import ``module``: a curated module the policy names, or a
        curated submodule of one it names (``collections.abc`` with ``collections``)."""
        if module in self.imports:
            return True
        parent = module.rpartition(".")[0]
        return bool(parent) and parent in self.imports and module in curated()

    # Modified copies

    def replace(self, **changes: Any) -> Policy:
        """A copy with some fields replaced (``name``, ``imports``, ``limits``, ``tools``,
        ``floor``, ``sandbox``)."""
        unknown = sorted(set(changes) - set(self._fields))
        if unknown:
            raise TypeError(f"unknown Policy field(s): {', '.join(unknown)}")
        return self._replace(**changes)

    def with_limits(self, limits: Limits | Mapping[str, Any] | None = None, **fields: Any) -> Policy:
        """A copy whose limits have the given fields overridden: ``p.with_limits(time=1.0)``."""
        new = self.limits
        if isinstance(limits, Limits):
            new = limits
        elif limits is not None:
            new = _limits(new, limits)
        if fields:
            new = _limits(new, fields)
        return self._replace(limits=new)

    def _replace(self, **changes: Any) -> Policy:
        values: dict[str, Any] = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return Policy(**values)


def _imports(value: Any) -> frozenset[str]:
    if isinstance(value, str):
        raise PolicyError(f"imports must be a collection of module names, not the string {value!r}")
    names = frozenset(value)
    allowed = curated()
    unknown = sorted(n for n in names if n not in allowed)
    if unknown:
        raise PolicyError(
            f"cannot allow import of {', '.join(map(repr, unknown))}: not a curated module; "
            f"curated modules: {', '.join(sorted(allowed))}"
        )
    return names


def _limits(base: Limits, fields: Mapping[str, Any]) -> Limits:
    try:
        return base.merged(dict(fields))
    except (TypeError, ValueError) as exc:
        raise PolicyError(str(exc)) from None


def _first_match(tool: str, call: OutboundCall, rules: tuple[ToolRule, ...]) -> Decision | None:
    """The decision of the first rule matching the call (None: no rule matches)."""
    named: Any = _UNSET  # placed once, on reaching the first rule that names arguments
    for rule in rules:
        if rule.args is None:
            matched = True
        else:
            if named is _UNSET:
                try:
                    named = call.named()
                except BindError as exc:
                    return unbindable(tool, exc)
            if named is UNREADABLE:
                # which argument is which is unknown: deny when in doubt
                if rule.action == "deny":
                    return denied_by(tool, rule)
                continue
            matched = rule.match(call.args, call.kwargs, named, call.absent_in_doubt)
        if matched:
            return rule.allowed if rule.action == "allow" else denied_by(tool, rule)
    return None


def denied_by(tool: str, rule: ToolRule) -> Decision:
    """The denial of calling ``tool`` by the deny rule ``rule``."""
    reason = rule.message or f"by the rule `{rule.render()}`"
    code = (TOOL_NOT_ALLOWED if rule.args is None else TOOL_ARGUMENT_DENIED).code
    return Decision(False, f"calling `{tool}` is denied ({reason})", rule, rule.raise_to_guest, code)


def unbindable(tool: str, exc: BindError) -> Decision:
    # the call would fail with a TypeError anyway: say so, and let the guest catch it
    return Decision(
        False, f"`{tool}` called with arguments that do not fit its signature: {exc}", None, True,
        TOOL_ARGUMENT_DENIED.code,
    )


def default_policy() -> Policy:
    """The shipped ``default`` policy (parsed once)."""
    from safe_eval.policy.files import shipped_policy  # the DSL needs this module first

    return shipped_policy("default")
