"""Type conditions: the text of a type (``list[int]``, ``int | None``) turned into a type object.

The text is parsed with the policy grammar and every name is looked up in an allowlist of
builtin types and typing names; it is never ``eval``-ed. Checking uses typeguard's
``check_type`` with every item of a collection checked (typeguard's default checks only the
first one), behind a plain ``isinstance`` fast path for the common scalar types.
"""

from __future__ import annotations

import collections.abc as cabc
import functools
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from safe_eval.errors import PolicyError
from safe_eval.policy._text import decode_number, decode_string, render_literal

# lark and typeguard are imported where a type is parsed or checked, not here: together they
# cost about 120 ms of import time (typeguard pulls in unittest.mock and asyncio), and the
# common evaluation (the default policy, no type conditions) needs neither.
if TYPE_CHECKING:
    from lark import Token, Tree

__all__ = ["TYPE_NAMES", "compile_type", "resolve_type", "type_from_tree"]

NoneType = type(None)

# name -> (the type or typing form, how many arguments it takes: 0 none, -1 any number)
_TYPES: dict[str, tuple[Any, int]] = {
    "int": (int, 0),
    "float": (float, 0),
    "complex": (complex, 0),
    "bool": (bool, 0),
    "str": (str, 0),
    "bytes": (bytes, 0),
    "object": (object, 0),
    "None": (NoneType, 0),
    "list": (list, 1),
    "set": (set, 1),
    "frozenset": (frozenset, 1),
    "dict": (dict, 2),
    "tuple": (tuple, -1),
    "Any": (typing.Any, 0),
    "Optional": (typing.Optional, 1),
    "Union": (typing.Union, -1),
    "Literal": (typing.Literal, -1),
    "List": (typing.List, 1),
    "Set": (typing.Set, 1),
    "FrozenSet": (typing.FrozenSet, 1),
    "Dict": (typing.Dict, 2),
    "Tuple": (typing.Tuple, -1),
    "Sequence": (cabc.Sequence, 1),
    "Mapping": (cabc.Mapping, 2),
    "Iterable": (cabc.Iterable, 1),
    "Collection": (cabc.Collection, 1),
}
_BARE_OK = {
    "list",
    "set",
    "frozenset",
    "dict",
    "tuple",
    "List",
    "Set",
    "FrozenSet",
    "Dict",
    "Tuple",
    "Sequence",
    "Mapping",
    "Iterable",
    "Collection",
}
TYPE_NAMES = frozenset(_TYPES)

# isinstance() is the whole check for these (typeguard's numeric tower: an int is a float).
_SCALARS: dict[Any, tuple[type, ...]] = {
    int: (int,),
    float: (int, float),
    complex: (int, float, complex),
    bool: (bool,),
    str: (str,),
    bytes: (bytes,),
    NoneType: (NoneType,),
    object: (object,),
}


def _error(message: str, node: Tree[Token] | Token, filename: str) -> PolicyError:
    line = getattr(node, "line", None) or getattr(getattr(node, "meta", None), "line", None) or 1
    col = getattr(node, "column", None) or getattr(getattr(node, "meta", None), "column", None) or 1
    return PolicyError(message, filename=filename, line=line, col=col)


def type_from_tree(tree: Tree[Token], filename: str = "<policy>") -> tuple[str, Any]:
    """(canonical text, type object) of a ``type_expr`` tree; errors point at its tokens."""
    from lark import Token, Tree

    def expr(node: Tree[Token]) -> tuple[str, Any]:
        parts = [atom(child) for child in node.children if isinstance(child, Tree)]
        if len(parts) == 1:
            return parts[0]
        return " | ".join(p[0] for p in parts), typing.Union[tuple(p[1] for p in parts)]

    def atom(node: Tree[Token]) -> tuple[str, Any]:
        name_tok = node.children[0]
        assert isinstance(name_tok, Token)
        name = str(name_tok)
        if name not in _TYPES:
            known = ", ".join(sorted(_TYPES))
            raise _error(f"unknown type `{name}`; known types: {known}", name_tok, filename)
        base, arity = _TYPES[name]
        args = node.children[1:]
        if not args:
            if arity != 0 and name not in _BARE_OK:
                raise _error(f"`{name}` needs type arguments, e.g. {name}[int]", name_tok, filename)
            return name, base
        if arity == 0:
            raise _error(f"`{name}` takes no type arguments", name_tok, filename)
        if arity > 0 and len(args) != arity:
            raise _error(f"`{name}` takes {arity} type argument(s), got {len(args)}", name_tok, filename)
        texts, values = [], []
        for i, arg in enumerate(args):
            text, value = argument(name, i, len(args), arg)
            texts.append(text)
            values.append(value)
        params = tuple(values) if len(values) > 1 else values[0]
        return f"{name}[{', '.join(texts)}]", base[params]

    def argument(owner: str, index: int, count: int, arg: Tree[Token] | Token) -> tuple[str, Any]:
        if owner == "Literal":
            if not (isinstance(arg, Tree) and arg.data == "literal"):
                raise _error('Literal[...] takes literals only, e.g. Literal["r", "w"]', arg, filename)
            value = literal_value(arg)
            return render_literal(value), value
        if isinstance(arg, Token) and arg.type == "ELLIPSIS":
            if owner not in ("tuple", "Tuple") or index != 1 or count != 2:
                raise _error("`...` is only allowed as in tuple[int, ...]", arg, filename)
            return "...", Ellipsis
        if isinstance(arg, Tree) and arg.data == "literal":
            if literal_value(arg) is None:
                return "None", NoneType
            raise _error("a literal is only allowed inside Literal[...]", arg, filename)
        assert isinstance(arg, Tree)
        return expr(arg)

    return expr(tree)


def literal_value(tree: Tree[Token]) -> Any:
    """The value of a ``literal`` tree."""
    from lark import Token

    toks = [t for t in tree.children if isinstance(t, Token)]
    first = toks[0]
    if first.type == "STRING":
        return decode_string(str(first))
    if first.type == "TRUE":
        return True
    if first.type == "FALSE":
        return False
    if first.type == "NONE":
        return None
    if first.type == "MINUS":
        return decode_number(str(toks[1]), negative=True)
    return decode_number(str(first))


@functools.lru_cache(maxsize=1024)
def resolve_type(text: str) -> tuple[str, Any]:
    """(canonical text, type object) of a type written as text; ``PolicyError`` if the text is
    not a type of the allowlist."""
    from lark.exceptions import LarkError, UnexpectedInput

    from safe_eval.policy._grammar import parser

    try:
        tree = parser().parse(text, start="type_expr")
    except UnexpectedInput as exc:
        raise PolicyError(
            f"invalid type `{text}`", filename="<type>", line=exc.line, col=exc.column
        ) from None
    except LarkError as exc:  # pragma: no cover - any other lark failure is still a bad type
        raise PolicyError(f"invalid type `{text}`: {exc}", filename="<type>") from None
    return type_from_tree(tree, filename="<type>")


def compile_type(hint: Any) -> Callable[[Any], bool]:
    """A predicate: does a value conform to ``hint``?"""
    if hint is typing.Any:
        return lambda value: True
    scalar = _SCALARS.get(hint)
    if scalar is not None:
        return lambda value: isinstance(value, scalar)

    from typeguard import CollectionCheckStrategy, TypeCheckError, check_type

    def conforms(value: Any) -> bool:
        try:
            check_type(value, hint, collection_check_strategy=CollectionCheckStrategy.ALL_ITEMS)
        except TypeCheckError:
            return False
        return True

    return conforms
