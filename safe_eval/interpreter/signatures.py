"""Decoded callables checked against an expected type (``Callable[[list[int]], int]``).

Guest annotations are kept as text and never evaluated as host code: ``resolve_annotation``
reads the annotation's AST against an allowlist of builtin types and ``typing`` names
(anything else is ``Any``). ``check_callable`` compares arity and declared types with the
expected ``Callable`` once, and returns a wrapper that checks every call's arguments and
result with typeguard.
"""

from __future__ import annotations

import ast
import collections.abc as cabc
import inspect
import typing
from typing import Any

from safe_eval.errors import GuestError

__all__ = ["CheckedFunction", "check_callable", "resolve_annotation"]

_NAMES: dict[str, Any] = {
    "int": int, "float": float, "str": str, "bool": bool, "bytes": bytes, "complex": complex,
    "list": list, "dict": dict, "set": set, "tuple": tuple, "frozenset": frozenset, "None": None,
    "object": object, "type": type,
    **{n: getattr(typing, n) for n in (
        "Any", "List", "Dict", "Set", "FrozenSet", "Tuple", "Optional", "Union", "Callable",
        "Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping", "Generator")},
}


def resolve_annotation(text: str) -> Any:
    """The type an annotation names, read from its AST against the allowlist (else Any)."""
    try:
        node = ast.parse(text, mode="eval").body
        return _resolve(node)
    except (SyntaxError, TypeError, ValueError, KeyError):
        return Any


def _resolve(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        if node.value is None:
            return None
        if isinstance(node.value, str):
            return resolve_annotation(node.value)
        if node.value is Ellipsis:
            return ...
        raise ValueError("literal annotation")
    if isinstance(node, ast.Name):
        return _NAMES[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "typing":
        return _NAMES[node.attr]
    if isinstance(node, ast.Subscript):
        base = _resolve(node.value)
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        resolved = [[_resolve(e) for e in a.elts] if isinstance(a, ast.List) else _resolve(a) for a in args]
        return base[tuple(resolved) if len(resolved) > 1 else resolved[0]]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return typing.Union[_resolve(node.left), _resolve(node.right)]
    raise ValueError("unsupported annotation")


def _normal(t: Any) -> Any:
    origin = typing.get_origin(t)
    if origin is None:
        return type(None) if t is None else t
    return (origin, tuple(_normal(a) for a in typing.get_args(t)))


def _compatible(declared: Any, expected: Any) -> bool:
    if declared is Any or expected is Any:
        return True
    return bool(_normal(declared) == _normal(expected))


class CheckedFunction:
    """A guest function whose calls are checked against the expected ``Callable`` type."""

    def __init__(self, fn: Any, params: list[Any] | None, result: Any) -> None:
        self.__wrapped__ = fn
        self.__signature__ = inspect.signature(fn)
        self.__name__ = getattr(fn, "__name__", "function")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = None
        self._params, self._result = params, result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from typeguard import TypeCheckError, check_type

        if self._params is not None:
            for i, (value, t) in enumerate(zip(args, self._params, strict=False)):
                try:
                    check_type(value, t)
                except TypeCheckError as e:
                    raise TypeError(f"argument {i} of {self.__name__}(): {e}") from None
        result = self.__wrapped__(*args, **kwargs)
        try:
            check_type(result, self._result)
        except TypeCheckError as e:
            message = f"{self.__name__}() returned a value of the wrong type: {e}"
            raise GuestError("TypeError", message) from None
        return result

    def __repr__(self) -> str:
        return f"<checked {self.__wrapped__!r}>"


def check_callable(fn: Any, expected: Any) -> CheckedFunction:
    if typing.get_origin(expected) is not cabc.Callable:
        raise TypeError(f"expected must be a Callable[...] type, not {expected!r}")
    params, result = typing.get_args(expected)
    sig = inspect.signature(fn)
    name = getattr(fn, "__name__", "function")
    if params is not Ellipsis:
        try:
            sig.bind(*[None] * len(params))
        except TypeError as e:
            raise GuestError("TypeError", f"{name}{sig} cannot be called as {_show(expected)}: {e}") from None
        positional = [p for p in sig.parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for p, t in zip(positional, params, strict=False):
            declared = resolve_annotation(p.annotation) if isinstance(p.annotation, str) else Any
            if not _compatible(declared, t):
                raise GuestError("TypeError", f"parameter '{p.name}' of {name} is annotated "
                                 f"{p.annotation}, expected {_show(t)}")
    if isinstance(sig.return_annotation, str):
        declared = resolve_annotation(sig.return_annotation)
        if not _compatible(declared, result):
            raise GuestError("TypeError", f"{name} returns {sig.return_annotation}, expected {_show(result)}")
    return CheckedFunction(fn, None if params is Ellipsis else list(params), result)


def _show(t: Any) -> str:
    return getattr(t, "__name__", None) or repr(t).replace("typing.", "")
