"""Parsing policy text into a ``Policy``; every error names file, line, column and what was expected.

The grammar is ``policy.lark``, parsed with lark's LALR parser (why lark: see ``_grammar.py``:
a real grammar in one readable file, fast, and precise "expected ..." sets for errors).

Statements (newlines do not matter; ``#`` starts a comment):

    policy NAME                          the policy's name (default: the file's stem)
    extends NAME | "path.policy"         start from a shipped policy or a file (path relative to
                                         this file); must come before everything but ``policy``
    imports a, b | imports none          replace the allowed modules
    imports += a, b / imports -= a       add to / remove from them
    limits time 2s, ops 10_000_000, memory 256MiB, recursion 200, output 64KiB
                                         override limits per field (time: ms, s, min; memory and
                                         output: B, KB, KiB, MB, MiB, GB, GiB)
    allow TOOL(ARGS) ["message"]         tool rules, first match decides; this policy's rules
    deny  TOOL(ARGS) [raise] ["message"] come before those of the policy it extends, but a
                                         call the base denies by a deny rule stays denied
                                         (the base's deny rules are a floor)
TOOL: an env name or ``Type.method`` (a method of an exposed object), ``*`` globs anywhere.

ARGS: ``*`` (anything), or ``name[: type] condition*`` items, optionally ending in ``*``;
conditions: ``== v``, ``!= v``, ``in {a, b}``, ``not in {a, b}``, ``in 1..50``,
``matches r"regex"``, ``not matches r"regex"``, ``len 1..100``. ``matches`` is a full match
with ``.`` matching every character, newlines too (``re.fullmatch`` with ``re.DOTALL``). A
condition that cannot be evaluated on a value (``matches`` on bytes, a range on a str, any
condition on a value that is not plain data) fails in an allow rule and fires a deny rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from safe_eval.errors import PolicyError
from safe_eval.limits.model import Limits
from safe_eval.policy._grammar import parser
from safe_eval.policy._text import decode_number, decode_string
from safe_eval.policy.conditions import Condition, Equals, InRange, IsType, LenRange, Matches, OneOf
from safe_eval.policy.curated import curated
from safe_eval.policy.model import Policy
from safe_eval.policy.rules import Action, Arg, ToolRule, check_applicable
from safe_eval.policy.types import literal_value, type_from_tree

__all__ = ["parse_policy"]

T = TypeVar("T")

# Loads another policy for ``extends``: (reference, is_path, referring filename, chain) -> Policy
Loader = Callable[[str, bool, str, tuple[str, ...]], Policy]

_TIME_UNITS = {"ms": 0.001, "s": 1.0, "min": 60.0}
_SIZE_UNITS = {"B": 1, "KB": 1000, "KiB": 1024, "MB": 1000**2, "MiB": 1024**2, "GB": 1000**3, "GiB": 1024**3}
_UNIT_KINDS: dict[str, dict[str, float] | dict[str, int]] = {
    "time": _TIME_UNITS,
    "memory": _SIZE_UNITS,
    "output": _SIZE_UNITS,
}

# What a terminal looks like, for "expected ..." messages.
_FRIENDLY = {
    "NAME": "a name",
    "POLICY_NAME": "a policy name",
    "TOOL": "a tool name (letters, digits, _ and * globs; Type.method for a method)",
    "STRING": "a quoted string",
    "NUMBER": "a number",
    "LIMIT_NAME": "a limit (time, ops, memory, recursion, output)",
    "UNIT": "a unit",
    "ACTION": "allow or deny",
    "IMPORT_OP": "+= or -=",
    "NONE_KW": "none",
    "STAR": "*",
    "DOTS": "..",
    "MINUS": "-",
    "ELLIPSIS": "...",
    "RAISE": "raise",
    "TRUE": "True",
    "FALSE": "False",
    "NONE": "None",
}
_STATEMENT_STARTS = {"POLICY", "EXTENDS", "IMPORTS", "LIMITS", "ACTION"}


def parse_policy(
    text: str, filename: str = "<policy>", *, loader: Loader | None = None, chain: tuple[str, ...] = ()
) -> Policy:
    """The ``Policy`` written in ``text``; ``PolicyError`` (with position) when it is malformed.
    ``filename`` is used in errors and to resolve ``extends "relative/path.policy"``."""
    if not isinstance(text, str):
        raise PolicyError(f"policy text must be a str, got {type(text).__name__}", filename=filename)
    try:
        tree = parser().parse(text, start="start")
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, filename) from None
    if loader is None:
        from safe_eval.policy.files import load_reference

        loader = load_reference
    return _Builder(filename, loader, chain).build(tree)


# Syntax errors


def _syntax_error(exc: UnexpectedInput, text: str, filename: str) -> PolicyError:
    line, col = exc.line, exc.column
    at_end = isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    if isinstance(exc, UnexpectedEOF) or at_end or line is None or line < 1:
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        return PolicyError(
            f"unexpected end of policy; expected {_expected(_expected_set(exc))}",
            filename=filename,
            line=line,
            col=col,
        )
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        found = text[pos] if pos < len(text) else "end of text"
        return PolicyError(
            f"unexpected character {found!r}; expected {_expected(exc.allowed)}",
            filename=filename,
            line=line,
            col=col,
        )
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        found = "end of policy" if token.type == "$END" else repr(str(token))
        return PolicyError(
            f"unexpected {found}; expected {_expected(exc.accepts or exc.expected)}",
            filename=filename,
            line=line,
            col=col,
        )
    return PolicyError(str(exc), filename=filename, line=line, col=col)  # pragma: no cover


def _expected_set(exc: UnexpectedInput) -> set[str]:
    if isinstance(exc, UnexpectedToken):
        return set(exc.accepts or exc.expected)
    return set(getattr(exc, "expected", None) or ())


def _expected(names: set[str] | frozenset[str] | None) -> str:
    names = set(names or ())
    parts: list[str] = []
    if names & _STATEMENT_STARTS and len(names & _STATEMENT_STARTS) >= 3:
        names -= _STATEMENT_STARTS
        parts.append("a new statement (policy, extends, imports, limits, allow, deny)")
    terms = {t.name: t for t in parser().terminals}
    for name in sorted(names):
        if name == "$END":
            parts.append("end of policy")
        elif name in _FRIENDLY:
            parts.append(_FRIENDLY[name])
        elif name in terms and terms[name].pattern.type == "str":
            parts.append(f"`{terms[name].pattern.value}`")
        else:
            parts.append(name.lower())
    return " or ".join(parts) if len(parts) <= 2 else ", ".join(parts[:-1]) + " or " + parts[-1]


# Building the model


def _pos(node: Tree[Token] | Token) -> tuple[int, int]:
    if isinstance(node, Token):
        return node.line or 1, node.column or 1
    meta = node.meta
    return getattr(meta, "line", 1), getattr(meta, "column", 1)


class _Builder:
    def __init__(self, filename: str, loader: Loader, chain: tuple[str, ...]) -> None:
        self.filename = filename
        self.loader = loader
        self.chain = chain

    def fail(self, node: Tree[Token] | Token, message: str) -> PolicyError:
        line, col = _pos(node)
        return PolicyError(message, filename=self.filename, line=line, col=col)

    def at(self, node: Tree[Token] | Token, make: Callable[[], T]) -> T:
        """``make()``, with a model error placed at ``node``."""
        try:
            return make()
        except PolicyError as exc:
            if exc.line is not None:
                raise
            raise self.fail(node, exc.message) from None
        except ValueError as exc:
            raise self.fail(node, str(exc)) from None

    def build(self, tree: Tree[Token]) -> Policy:
        name: str | None = None
        base: Policy | None = None
        imports: frozenset[str] = frozenset()
        limits: dict[str, Any] = {}
        rules: list[ToolRule] = []
        sandbox: str | None = None
        seen_other = False
        for stmt in tree.children:
            assert isinstance(stmt, Tree)
            kind = stmt.data
            if kind == "header":
                if name is not None or base is not None or seen_other:
                    raise self.fail(stmt, "`policy NAME` must be the first statement, and appear once")
                name = str(stmt.children[0])
                continue
            if kind == "extends":
                if base is not None or seen_other:
                    raise self.fail(
                        stmt, "`extends` must come before imports, limits and rules, and appear once"
                    )
                base = self.extends(stmt)
                imports = base.imports
                continue
            seen_other = True
            if kind == "imports":
                imports = self.imports(stmt, imports)
            elif kind == "limits":
                self.limits(stmt, limits)
            elif kind == "sandbox":
                sandbox = str(stmt.children[0])
            else:
                rules.append(self.rule(stmt))
        base_limits = base.limits if base is not None else Limits()
        final_limits = self.at(tree, lambda: base_limits.merged(limits)) if limits else base_limits
        tools = tuple(rules) + (base.tools if base is not None else ())
        # the base's rules stay a floor: a call it denies by a deny rule stays denied
        floor = (*base.floor, base.tools) if base is not None and base.tools else ()
        if sandbox is None and base is not None:
            sandbox = base.sandbox
        return Policy(name or _default_name(self.filename), imports, final_limits, tools, floor,
                      sandbox=sandbox)

    def extends(self, stmt: Tree[Token]) -> Policy:
        ref = stmt.children[0]
        assert isinstance(ref, Token)
        is_path = ref.type == "STRING"
        target = self.at(ref, lambda: decode_string(str(ref))) if is_path else str(ref)
        return self.at(ref, lambda: self.loader(target, is_path, self.filename, self.chain))

    def imports(self, stmt: Tree[Token], current: frozenset[str]) -> frozenset[str]:
        op = ""
        names: list[str] = []
        allowed = curated()
        for child in stmt.children:
            if isinstance(child, Token) and child.type == "IMPORT_OP":
                op = str(child)
            elif isinstance(child, Tree):
                module = ".".join(str(t) for t in child.children)
                if module not in allowed:
                    raise self.fail(
                        child,
                        f"unknown module `{module}`: policies may import only curated "
                        f"modules: {', '.join(sorted(allowed))}",
                    )
                names.append(module)
        if op == "+=":
            return current | frozenset(names)
        if op == "-=":
            return current - frozenset(names)
        return frozenset(names)

    def limits(self, stmt: Tree[Token], out: dict[str, Any]) -> None:
        for limit in stmt.children:
            assert isinstance(limit, Tree)
            field_tok, number_tok, *rest = limit.children
            assert isinstance(field_tok, Token) and isinstance(number_tok, Token)
            field, value = str(field_tok), decode_number(str(number_tok))
            if rest:
                unit_tok = rest[0]
                assert isinstance(unit_tok, Token)
                units = _UNIT_KINDS.get(field)
                if units is None:
                    raise self.fail(unit_tok, f"`{field}` is a plain count and takes no unit")
                if str(unit_tok) not in units:
                    raise self.fail(
                        unit_tok, f"unknown unit `{unit_tok}` for {field}; use {', '.join(units)}"
                    )
                value = value * units[str(unit_tok)]
            if field != "time":
                if value != int(value):
                    raise self.fail(number_tok, f"`{field}` must be a whole number, got {number_tok}")
                value = int(value)
            if field in out:
                raise self.fail(field_tok, f"limit `{field}` is given twice")
            self.at(number_tok, lambda f=field, v=value: Limits().merged({f: v}))  # type: ignore[misc]
            out[field] = value

    def rule(self, stmt: Tree[Token]) -> ToolRule:
        action_tok, tool_tok, *rest = stmt.children
        assert isinstance(action_tok, Token) and isinstance(tool_tok, Token)
        args: tuple[Arg, ...] | None = None
        star = False
        message = ""
        raise_to_guest = False
        for child in rest:
            if isinstance(child, Tree):
                args, star = self.arglist(child)
            elif child.type == "RAISE":
                if str(action_tok) != "deny":
                    raise self.fail(child, "`raise` only applies to deny rules")
                raise_to_guest = True
            elif child.type == "STRING":
                message = self.at(child, lambda c=child: decode_string(str(c)))  # type: ignore[misc]
        action: Action = "allow" if str(action_tok) == "allow" else "deny"
        return self.at(stmt, lambda: ToolRule(action, str(tool_tok), args, star, message, raise_to_guest))

    def arglist(self, tree: Tree[Token]) -> tuple[tuple[Arg, ...] | None, bool]:
        args: list[Arg] = []
        star = False
        for child in tree.children:
            if isinstance(child, Token):  # STAR
                star = True
            else:
                args.append(self.arg(child))
        seen: set[str] = set()
        for child, arg in zip(tree.children, args, strict=False):
            if arg.name in seen:
                raise self.fail(child, f"argument `{arg.name}` is named twice")
            seen.add(arg.name)
        if star and not args:
            return None, False
        return tuple(args), star

    def arg(self, tree: Tree[Token]) -> Arg:
        name_tok, *parts = tree.children
        assert isinstance(name_tok, Token)
        conditions: list[Condition] = []
        for part in parts:
            assert isinstance(part, Tree)
            conditions.append(self.at(part, lambda p=part: self.condition(p)))  # type: ignore[misc]
        arg = self.at(name_tok, lambda: Arg(str(name_tok), *conditions))
        self.at(name_tok, lambda: check_applicable(arg))
        return arg

    def condition(self, tree: Tree[Token]) -> Condition:
        kind = tree.data
        if kind == "type_expr":
            text, _hint = type_from_tree(tree, self.filename)
            return IsType(text)
        child = tree.children[0]
        if kind in ("eq", "ne"):
            assert isinstance(child, Tree)
            return Equals(self.literal(child), negate=kind == "ne")
        if kind in ("in_set", "not_in_set"):
            assert isinstance(child, Tree)
            values = [self.literal(c) for c in child.children if isinstance(c, Tree)]
            return OneOf(tuple(values), negate=kind == "not_in_set")
        if kind in ("matches", "not_matches"):
            assert isinstance(child, Token)
            pattern = self.at(child, lambda: decode_string(str(child)))
            return Matches(pattern, negate=kind == "not_matches")
        assert isinstance(child, Tree)
        low, high = self.range(child)
        if kind == "in_range":
            return InRange(low, high)
        if not (low is None or type(low) is int) or not (high is None or type(high) is int):
            raise self.fail(child, "length bounds must be whole numbers")
        return LenRange(low, high)

    def literal(self, tree: Tree[Token]) -> Any:
        return self.at(tree, lambda: literal_value(tree))

    def range(self, tree: Tree[Token]) -> tuple[int | float | None, int | float | None]:
        low: int | float | None = None
        high: int | float | None = None
        seen_dots = False
        for child in tree.children:
            if isinstance(child, Token):
                seen_dots = True
                continue
            toks = [t for t in child.children if isinstance(t, Token)]
            value = decode_number(str(toks[-1]), negative=len(toks) == 2)
            if seen_dots:
                high = value
            else:
                low = value
        return low, high


def _default_name(filename: str) -> str:
    if filename.startswith("<"):
        return "custom"
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(filename).stem)
    return stem if re.match(r"[A-Za-z_]", stem) else f"_{stem}" if stem else "custom"
