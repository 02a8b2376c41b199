"""Binding a tool call's arguments to the host function's real signature, as CPython would.

A rule names parameters (``search(query: str, limit: int in 1..50)``); a call may pass them
positionally (``search("x", 5)``), and for ``def fetch(url, /, **options)`` a keyword ``url=``
lands in ``options``, not in ``url``. ``placer_for(fn)`` gives a function that places a call's
arguments exactly as CPython will when the host function is called, and returns

    (args, kwargs, named, star)

``args``/``kwargs`` are what the host function is then called with (``inspect.BoundArguments``
``.args``/``.kwargs``), ``named`` what rules see: parameter name -> value, the keywords a
``**kwargs`` parameter receives spread by name, the ``*args`` tuple under its own name
(``star``, None when the signature has no ``*args``).

The placer is built once per function (cached by identity; for a bound method, per underlying
function in a cache of its own, so the instance is not kept and the function called plain never
gets the placer that skips ``self``) and is a plain zip for the common signature without
``*args``/``**kwargs``/positional-only parameters.

The signature read is the one CPython calls: never ``__wrapped__`` (a ``functools.wraps``
decorator's ``(*args, **kwargs)`` wrapper is what receives the call, not the narrower function
it names). ``None``: the signature cannot be read (some C callables), or a class whose own
``__new__`` and ``__init__`` take different parameters (each would receive the arguments in
another place); the gate then cannot tell which argument is which (see ``model.Policy.decide``).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

# inspect (about 5 ms to import) is loaded when the first tool call is bound, not at cold start
if TYPE_CHECKING:
    import inspect

__all__ = ["BindError", "Binder", "Placed", "Placer", "binder_for", "parameters_of", "placer_for"]

Placed = tuple[tuple[Any, ...], dict[str, Any], dict[str, Any], "str | None"]
Placer = Callable[[tuple[Any, ...], Mapping[str, Any]], Placed]
Binder = Callable[[tuple[Any, ...], Mapping[str, Any]], dict[str, Any]]

_CACHE_SIZE = 512


# id(key) -> (key, placer, the names of its parameters other than *args/**kwargs), or
# (key, None, None) for an unreadable signature: the key is kept so a recycled id is never
# confused with it. Callables called as they are in ``_cache``; bound methods, keyed by their
# ``__func__`` (whose placer skips the first parameter), in ``_method_cache``.
Entry = tuple[Any, "Placer | None", "frozenset[str] | None"]
_cache: dict[int, Entry] = {}
_method_cache: dict[int, Entry] = {}


class BindError(TypeError):
    """The call's arguments do not fit the tool's signature."""


def placer_for(fn: Any) -> Placer | None:
    """The cached placer of ``fn``'s arguments, or None when it has no readable signature."""
    entry = _cache.get(id(fn))
    if entry is not None and entry[0] is fn:
        return entry[1]
    return _entry(fn)[1]


def parameters_of(fn: Any) -> frozenset[str] | None:
    """The names of ``fn``'s parameters but ``*args``/``**kwargs`` (None: unreadable signature)."""
    return _entry(fn)[2]


def _entry(fn: Any) -> Entry:
    if type(fn) is types.MethodType:
        key, cache = fn.__func__, _method_cache
    else:
        key, cache = fn, _cache
    entry = cache.get(id(key))
    if entry is not None and entry[0] is key:
        return entry
    entry = (key, *_make_placer(fn))
    owner = getattr(fn, "__self__", None)
    if key is fn and owner is not None and not isinstance(owner, types.ModuleType):
        return entry  # a C method bound to an instance: caching it would keep the instance
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[id(key)] = entry
    return entry


def binder_for(fn: Any) -> Binder | None:
    """Parameter name -> value of a call (``named`` of ``placer_for``); for the static check."""
    placer = placer_for(fn)
    if placer is None:
        return None
    return lambda args, kwargs: placer(args, kwargs)[2]


def _make_placer(fn: Any) -> tuple[Placer | None, frozenset[str] | None]:
    import inspect

    try:
        sig = inspect.signature(fn, follow_wrapped=False)
        if isinstance(fn, type) and not _one_signature(fn):
            return None, None
    except (TypeError, ValueError):
        return None, None
    params = list(sig.parameters.values())
    _P = inspect.Parameter
    shape = frozenset(p.name for p in params if p.kind not in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD))
    if all(p.kind in (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY) for p in params):
        return _simple_placer(params), shape
    return _general_placer(sig), shape


def _one_signature(cls: type) -> bool:
    """Whether ``cls(...)`` places its arguments one way: ``inspect.signature(cls)`` shows one
    of ``__new__``/``__init__``, and CPython passes the arguments to both. Only methods written
    in Python are looked at, as ``inspect`` does (a C ``__new__`` such as ``BaseException``'s
    takes any arguments and only stores them)."""
    import inspect

    new, init = (getattr(cls, name, None) for name in ("__new__", "__init__"))
    if not (isinstance(new, types.FunctionType) and isinstance(init, types.FunctionType)):
        return True
    return _after_first(inspect.signature(new, follow_wrapped=False)) == _after_first(
        inspect.signature(init, follow_wrapped=False)
    )


def _after_first(sig: inspect.Signature) -> list[tuple[str, Any, Any]]:
    # the parameters after ``cls``/``self``, by name, kind and default (annotations aside)
    return [(p.name, p.kind, p.default) for p in list(sig.parameters.values())[1:]]


def _simple_placer(params: list[inspect.Parameter]) -> Placer:
    from inspect import Parameter as _P  # loaded by _make_placer already

    positional = tuple(p.name for p in params if p.kind is _P.POSITIONAL_OR_KEYWORD)
    names = frozenset(p.name for p in params)
    required = tuple(p.name for p in params if p.default is _P.empty)
    # for n positional arguments and no keywords: the first required parameter left unfilled
    missing_after = [
        next((r for r in required if r not in positional[:n]), None) for n in range(len(positional) + 1)
    ]
    too_many = len(positional)

    def place(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Placed:
        # every parameter takes a keyword and there is no *args/**kwargs: CPython places the
        # positional arguments in order and the keywords by name, so calling with the same
        # args and kwargs is calling with exactly what ``named`` holds
        if len(args) > too_many:
            raise BindError(f"takes {too_many} positional argument(s) but {len(args)} were given")
        named = dict(zip(positional, args, strict=False))
        if not kwargs:
            missing = missing_after[len(args)]
            if missing is not None:
                raise BindError(f"missing a required argument: '{missing}'")
            return args, {}, named, None
        for key, value in kwargs.items():
            if key not in names:
                raise BindError(f"got an unexpected keyword argument '{key}'")
            if key in named:
                raise BindError(f"got multiple values for argument '{key}'")
            named[key] = value
        for name in required:
            if name not in named:
                raise BindError(f"missing a required argument: '{name}'")
        return args, dict(kwargs), named, None

    return place


def _general_placer(sig: inspect.Signature) -> Placer:
    from inspect import Parameter as _P  # loaded by _make_placer already

    kinds = {name: p.kind for name, p in sig.parameters.items()}
    star = next((name for name, kind in kinds.items() if kind is _P.VAR_POSITIONAL), None)

    def place(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Placed:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise BindError(str(exc)) from None
        named: dict[str, Any] = {}
        spread: dict[str, Any] = {}
        for name, value in bound.arguments.items():
            if kinds[name] is _P.VAR_KEYWORD:
                spread = value
            else:
                named[name] = value
        for key, value in spread.items():
            if key in named or key in kinds:
                # ``fetch("https://evil", url="https://ok")`` for ``def fetch(url, /, **options)``:
                # a rule naming `url` could be shown either value; refuse the call instead
                raise BindError(
                    f"keyword argument '{key}' has the name of a positional-only parameter; "
                    "pass it under another name"
                )
            named[key] = value
        return bound.args, bound.kwargs, named, star

    return place
