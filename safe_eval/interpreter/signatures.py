"""Decoded callables checked against an expected type (``Callable[[list[int]], int]``).

Once, when decoded: the function must be callable with the expected number of positional
arguments, and its annotations (real types, resolved by ``annotations.py``; none where it did
not annotate) must be *compatible* with the expected ones: parameters contravariantly (the
function accepts at least what the host passes: ``Sequence[int]`` where ``list[int]`` is
expected), the return covariantly (``-> bool`` where ``int`` is expected), with the typing
equivalences (``Optional[int]`` is ``int | None``, bare ``list`` is ``list[Any]``, ``typing.List``
is ``list``) and the numeric tower (an ``int`` is a ``float``). Type arguments are compared
covariantly: the values are checked at every call anyway. An incompatible annotation is
refused with a message naming the parameter.

At every call: arguments and the result are copied to the exact plain types the expected type
names (``plain_values.to_plain``: a guest ``int`` subclass never reaches the host), then checked
on every item of every collection: plain data by a fast structural check (``_conforms``),
anything it cannot vouch for by typeguard (``CollectionCheckStrategy.ALL_ITEMS``), whose
message the error carries.
"""

from __future__ import annotations

import collections.abc as cabc
import functools
import inspect
import types
import typing
from typing import Any

from safe_eval.errors import GuestError
from safe_eval.interpreter.plain_values import to_plain

__all__ = ["CheckedFunction", "check_callable", "is_compatible"]

NoneType = type(None)
_NUMERIC = {float: (int,), complex: (int, float)}  # typeguard's numeric tower
_CALLABLE: Any = cabc.Callable


def is_compatible(actual: Any, wanted: Any) -> bool:
    """True when every value of type ``actual`` is acceptable where ``wanted`` is asked for
    (gradually: ``Any`` on either side is compatible)."""
    try:
        return _sub(_canon(actual), _canon(wanted))
    except TypeError:
        return False


def _canon(t: Any) -> Any:
    if t is None:
        return NoneType
    if t is inspect.Parameter.empty or isinstance(t, typing.TypeVar):
        return typing.Any
    return t


def _args(t: Any) -> tuple[Any, ...]:
    return tuple(_canon(a) if not isinstance(a, list) else [_canon(x) for x in a]
                 for a in typing.get_args(t))


def _is_union(t: Any) -> bool:
    return typing.get_origin(t) in (typing.Union, types.UnionType)


def _sub(a: Any, b: Any) -> bool:
    if a is typing.Any or b is typing.Any or b is object or a is typing.NoReturn:
        return True
    if _is_union(a):
        return all(_sub(x, b) for x in _args(a))
    if _is_union(b):
        return any(_sub(a, y) for y in _args(b))
    oa, ob = typing.get_origin(a) or a, typing.get_origin(b) or b
    if oa is typing.Literal:
        if ob is typing.Literal:
            return set(_args(a)) <= set(_args(b))
        return all(_sub(type(v), b) for v in typing.get_args(a))
    if ob is typing.Literal or not (isinstance(oa, type) and isinstance(ob, type)):
        return bool(a == b)
    if not (issubclass(oa, ob) or oa in _NUMERIC.get(ob, ())):
        return False
    aa, ab = _args(a), _args(b)
    if not aa or not ab:  # a bare generic is generic over Any
        return True
    if ob is tuple:
        return _tuple_sub(aa, ab) if oa is tuple else True
    if ob is _CALLABLE:
        return _callable_sub(aa, ab)
    if len(aa) == len(ab):
        return all(_sub(x, y) for x, y in zip(aa, ab, strict=True))
    if len(ab) == 1 and issubclass(oa, cabc.Mapping):  # dict[str, int] as an Iterable[str]
        return _sub(aa[0], ab[0])
    if len(ab) == 1 and oa is tuple:  # tuple[int, ...] as a Sequence[int]
        items = aa[:-1] if aa[-1] is Ellipsis else aa
        return all(_sub(x, ab[0]) for x in items)
    return True


def _tuple_sub(aa: tuple[Any, ...], ab: tuple[Any, ...]) -> bool:
    a_var, b_var = aa[-1] is Ellipsis, ab[-1] is Ellipsis
    if b_var:
        return all(_sub(x, ab[0]) for x in (aa[:1] if a_var else aa))
    if a_var or len(aa) != len(ab):
        return False
    return all(_sub(x, y) for x, y in zip(aa, ab, strict=True))


def _callable_sub(aa: tuple[Any, ...], ab: tuple[Any, ...]) -> bool:
    (pa, ra), (pb, rb) = aa, ab
    if not _sub(ra, rb):
        return False
    if pa is Ellipsis or pb is Ellipsis:
        return True
    return len(pa) == len(pb) and all(_sub(y, x) for x, y in zip(pa, pb, strict=True))


# the exact types typeguard accepts for a scalar hint (bool is an int; the numeric tower)
_FAST_SCALARS: dict[Any, tuple[type, ...]] = {
    int: (int, bool), float: (float, int, bool), complex: (complex, float, int, bool),
    str: (str,), bytes: (bytes,), bool: (bool,), NoneType: (NoneType,), None: (NoneType,),
}
# the exact containers a collection hint accepts, each item checked along its argument
_FAST_CONTAINERS: dict[Any, tuple[type, ...]] = {
    list: (list,), set: (set,), frozenset: (frozenset,), tuple: (tuple,),
    cabc.Sequence: (list, tuple), cabc.MutableSequence: (list,), cabc.Set: (set, frozenset),
    cabc.MutableSet: (set,), cabc.Collection: (list, tuple, set, frozenset, dict),
    cabc.Iterable: (list, tuple, set, frozenset, dict),
}
_FAST_MAPPINGS = frozenset({dict, cabc.Mapping, cabc.MutableMapping})


def _conforms(value: Any, hint: Any) -> bool:
    """A fast ``True`` when ``value`` (exact plain data, as ``to_plain`` leaves it) conforms to
    ``hint``; ``False`` means "ask typeguard" (which also words the error). Reads exact
    builtin containers only, so no guest method runs."""
    if hint is typing.Any or hint is object:
        return True
    scalars = _FAST_SCALARS.get(hint) if isinstance(hint, type) or hint is None else None
    if scalars is not None:
        return type(value) in scalars
    origin = typing.get_origin(hint) or hint
    args = typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_conforms(value, arm) for arm in args)
    kind = type(value)
    if origin in _FAST_MAPPINGS and kind is dict:
        key, val = args if len(args) == 2 else (typing.Any, typing.Any)
        return all(_conforms(k, key) and _conforms(v, val) for k, v in value.items())
    if kind not in _FAST_CONTAINERS.get(origin, ()):
        return False
    if origin is tuple and hint is not tuple and not (len(args) == 2 and args[1] is Ellipsis):
        return len(args) == len(value) and all(map(_conforms, value, args))  # tuple[()]: empty
    item = args[0] if args else typing.Any
    return item is typing.Any or all(_conforms(v, item) for v in value)


class CheckedFunction:
    """A guest function whose calls are checked against the expected ``Callable`` type. Its
    ``__annotations__`` and ``__signature__`` carry the expected types (what is enforced)."""

    def __init__(self, fn: Any, names: list[str], params: list[Any] | None, result: Any) -> None:
        self.__wrapped__ = fn
        sig = _signature(fn)
        expected = dict(zip(names, params or (), strict=False))
        self.__signature__ = sig.replace(
            parameters=[p.replace(annotation=expected.get(p.name, p.annotation))
                        for p in sig.parameters.values()],
            return_annotation=result)
        self.__annotations__ = {**{n: t for n, t in expected.items() if n in sig.parameters},
                                "return": result}
        self.__name__ = _name_of(fn, "__name__")
        self.__qualname__ = _name_of(fn, "__qualname__")
        self.__doc__ = None
        self._checked = list(zip(names, params or (), strict=False))  # by position
        self._result = result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from typeguard import CollectionCheckStrategy, TypeCheckError, check_type

        every = CollectionCheckStrategy.ALL_ITEMS
        try:
            bound = self.__signature__.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        # as the function receives them: keywords naming positional parameters are in place
        positional = list(bound.args)
        for i, (name, t) in enumerate(self._checked[:len(positional)]):
            value = positional[i] = to_plain(positional[i], t)
            if _conforms(value, t):
                continue
            try:
                check_type(value, t, collection_check_strategy=every)
            except TypeCheckError as e:
                raise TypeError(f"argument '{name}' of {self.__name__}(): {e}") from None
        result = to_plain(self.__wrapped__(*positional, **bound.kwargs), self._result)
        if _conforms(result, self._result):
            return result
        try:
            check_type(result, self._result, collection_check_strategy=every)
        except TypeCheckError as e:
            message = f"{self.__name__}() returned a value of the wrong type: {e}"
            raise GuestError("TypeError", message) from None
        return result

    def __repr__(self) -> str:
        return f"<checked {self.__wrapped__!r}>"


def check_callable(fn: Any, expected: Any) -> CheckedFunction:
    """``fn`` checked against ``expected`` (a ``Callable[...]``): refused now (``GuestError``
    TypeError naming the parameter) if its arity or annotations are incompatible."""
    if typing.get_origin(expected) is not _CALLABLE:
        raise TypeError(f"expected must be a Callable[...] type, not {expected!r}")
    params, result = typing.get_args(expected)
    name = _name_of(fn, "__name__")
    try:
        sig = _signature(fn)
    except (TypeError, ValueError) as e:
        raise GuestError("TypeError", f"{name} has no signature to check: {e}") from None
    names: list[str] = []
    if params is not Ellipsis:
        try:
            sig.bind(*[None] * len(params))
        except TypeError as e:
            raise GuestError("TypeError", f"{name}{_show_sig(sig)} cannot be called as "
                             f"{_show(expected)}: {e}") from None
        positional = [p for p in sig.parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for p, t in zip(positional, params, strict=False):
            if not is_compatible(t, p.annotation):
                raise GuestError("TypeError", f"parameter '{p.name}' of {name} is annotated "
                                 f"{_show(p.annotation)}, which does not accept the expected "
                                 f"{_show(t)}")
            names.append(p.name)
        star = next((p.name for p in sig.parameters.values() if p.kind is p.VAR_POSITIONAL), "args")
        names += [f"{star}[{i}]" for i in range(len(params) - len(names))]  # into *args
    if not is_compatible(sig.return_annotation, result):
        raise GuestError("TypeError", f"{name} returns {_show(sig.return_annotation)}, "
                         f"expected {_show(result)}")
    return CheckedFunction(fn, names, None if params is Ellipsis else list(params), result)


def _signature(fn: Any) -> inspect.Signature:
    """``inspect.signature(fn)``, except that a guest callable object's signature is read from
    its class's ``__call__``: inspect would look attributes up on the object itself, running a
    guest ``__getattr__``."""
    from safe_eval.interpreter.functions import Function
    from safe_eval.interpreter.identity import is_guest_object

    kind = type(fn)
    if is_guest_object(fn) and kind is not Function and not issubclass(kind, type):
        call = inspect.signature(kind.__call__)
        return call.replace(parameters=list(call.parameters.values())[1:])
    return inspect.signature(fn)


def _name_of(fn: Any, attr: str) -> str:
    """``fn``'s name for messages, read without running guest code (a guest callable object
    may define ``__getattr__``): a function's own, a class's, else the object's class name."""
    from safe_eval.interpreter.functions import Function
    from safe_eval.membrane.modules.functools import partial as guest_partial

    for _ in range(8):  # through bound methods and partials
        if type(fn) is types.MethodType:
            fn = fn.__func__
        elif type(fn) is functools.partial or type(fn) is guest_partial:
            fn = fn.func
        else:
            break
    if type(fn) is Function:
        name = fn.__dict__.get(attr)
    elif issubclass(type(fn), type):
        name = type.__dict__[attr].__get__(fn)
    else:
        name = type.__dict__[attr].__get__(type(fn))
    return str.__str__(name) if issubclass(type(name), str) else "function"


def _show(t: Any) -> str:
    if t is None or t is NoneType:
        return "None"
    if isinstance(t, type) and not typing.get_args(t):
        return t.__name__
    return repr(t).replace("typing.", "").replace("collections.abc.", "")


def _show_sig(sig: inspect.Signature) -> str:
    return str(sig).replace("typing.", "").replace("collections.abc.", "")
