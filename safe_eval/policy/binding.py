"""Binding a tool call's arguments to parameter names, using the tool's signature.

A rule names parameters (``search(query: str, limit: int in 1..50)``); a call may pass them
positionally (``search("x", 5)``). With the tool's ``inspect.signature`` we know which is which;
the binder is built once per function object (cached) and is a plain zip for the common case
of a function without ``*args``/``**kwargs``/positional-only parameters.
Without a signature (some builtins, C callables) rules bind positions in their own order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

# inspect (about 5 ms to import) is loaded when the first tool call is bound, not at cold start
if TYPE_CHECKING:
    import inspect

__all__ = ["BindError", "Binder", "binder_for"]

Binder = Callable[[tuple[Any, ...], Mapping[str, Any]], dict[str, Any]]

_CACHE_SIZE = 512
# id(fn) -> (fn, binder or None): the fn is kept so a recycled id is never confused with it
_cache: dict[int, tuple[Any, Binder | None]] = {}


class BindError(TypeError):
    """The call's arguments do not fit the tool's signature."""


def binder_for(fn: Any) -> Binder | None:
    """The cached binder of ``fn``, or None when it has no usable signature."""
    entry = _cache.get(id(fn))
    if entry is not None and entry[0] is fn:
        return entry[1]
    binder = _make_binder(fn)
    if len(_cache) >= _CACHE_SIZE:
        _cache.clear()
    _cache[id(fn)] = (fn, binder)
    return binder


def _make_binder(fn: Any) -> Binder | None:
    import inspect

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    _P = inspect.Parameter
    if all(p.kind in (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY) for p in params):
        return _simple_binder(sig, params)
    return _general_binder(sig)


def _simple_binder(sig: inspect.Signature, params: list[inspect.Parameter]) -> Binder:
    from inspect import Parameter as _P  # loaded by _make_binder already
    positional = tuple(p.name for p in params if p.kind is _P.POSITIONAL_OR_KEYWORD)
    names = frozenset(p.name for p in params)
    required = tuple(p.name for p in params if p.default is _P.empty)

    def bind(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        if len(args) > len(positional):
            raise BindError(f"takes {len(positional)} positional argument(s) but {len(args)} were given")
        bound = dict(zip(positional, args, strict=False))
        for key, value in kwargs.items():
            if key not in names:
                raise BindError(f"got an unexpected keyword argument '{key}'")
            if key in bound:
                raise BindError(f"got multiple values for argument '{key}'")
            bound[key] = value
        for name in required:
            if name not in bound:
                raise BindError(f"missing a required argument: '{name}'")
        return bound

    return bind


def _general_binder(sig: inspect.Signature) -> Binder:
    from inspect import Parameter as _P  # loaded by _make_binder already

    kinds = {name: p.kind for name, p in sig.parameters.items()}

    def bind(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        try:
            arguments = sig.bind(*args, **kwargs).arguments
        except TypeError as exc:
            raise BindError(str(exc)) from None
        bound: dict[str, Any] = {}
        for name, value in arguments.items():
            if kinds[name] is _P.VAR_KEYWORD:
                bound.update(value)  # rules name the keywords a **kwargs tool receives
            else:
                bound[name] = value
        return bound

    return bind
