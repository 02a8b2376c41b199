"""Curated ``typing``: the names LLM code annotates with.

Annotations are scrubbed before the guest runs, so these mostly matter for aliases
(``Vector = List[float]``), ``cast``, ``TypeVar``/``Generic`` and ``isinstance`` checks.
``get_type_hints`` is refused (it evaluates annotation text); ``overload`` is an identity
decorator (the host one records every overload in a process-wide registry);
``NamedTuple`` is a guest-safe class-syntax namedtuple (no exec). Subscription
(``Optional[X]``, ``List[X]``, ``Annotated[X, m]`` ...) is memoised by CPython in
``typing._tp_cache``, a PROCESS-WIDE cache keyed by the parameters: a guest parameter with its
own ``__hash__``/``__eq__`` would be stored there and returned to every later run and to the
host's own ``typing.Optional[int]``. So the guest gets ``_Form`` stand-ins whose subscription
accepts only parameters hashed and compared by host code (``_check_param``), and the forms it
builds that can be subscribed again come wrapped the same way. ``Generic``/``Protocol`` are
handed out as they are (they are subclassed; their subscription caches type variables only). ``final`` and
``no_type_check`` are identities and ``runtime_checkable`` takes guest classes only (the host
ones set attributes on their argument); ``reveal_type`` is left out (it prints to host stderr).
"""

from __future__ import annotations

import typing
from typing import Any

from safe_eval.interpreter.marks import is_guest_type
from safe_eval.membrane.kinds import is_guest_defined_type
from safe_eval.membrane.modules._typing_namedtuple import NamedTuple

NAMES = ["Any", "Callable", "ClassVar", "Final", "Generic", "Literal", "Optional", "Protocol",
         "Tuple", "Type", "TypeVar", "Union", "AbstractSet", "ByteString", "Container",
         "ContextManager", "Hashable", "ItemsView", "Iterable", "Iterator", "KeysView", "Mapping",
         "MappingView", "MutableMapping", "MutableSequence", "MutableSet", "Sequence", "Sized",
         "ValuesView", "Awaitable", "AsyncIterator", "AsyncIterable", "Coroutine", "Collection",
         "AsyncGenerator", "Reversible", "SupportsAbs", "SupportsFloat", "SupportsIndex",
         "SupportsInt", "SupportsRound", "ChainMap", "Counter", "Deque", "Dict", "DefaultDict",
         "List", "OrderedDict", "Set", "FrozenSet", "Generator", "TypedDict", "NoReturn", "Never",
         "Self", "LiteralString", "TypeAlias", "Annotated", "ParamSpec", "Concatenate",
         "TypeGuard", "Text", "AnyStr", "Pattern", "Match", "Iterable", "cast",
         "assert_never", "assert_type", "NewType", "Required", "NotRequired", "Unpack", "TypeVarTuple"]


_LITERALS: frozenset[type] = frozenset({type(None), str, int, bool, bytes, type(Ellipsis)})
_MAX_PARAM_DEPTH = 32


def _check_param(param: Any, depth: int = 0) -> Any:
    """``param`` (stand-ins unwrapped) when every part of it is hashed and compared by host
    code: exact literals, classes whose metaclass is a host one (identity hash), and host
    ``typing``/``types`` forms made of such parts; else TypeError."""
    if depth > _MAX_PARAM_DEPTH:
        raise TypeError("typing parameters nested too deeply")
    t = type(param)
    if t is _Form:
        return param._real
    if t in _LITERALS:
        return param
    if t is tuple or t is list:
        items = [_check_param(p, depth + 1) for p in param]
        return tuple(items) if t is tuple else items
    if is_guest_defined_type(t):
        raise TypeError("typing parameters must be classes or typing forms in safe-eval, "
                        f"not instances of {t.__name__}")
    if isinstance(param, type):
        return param  # a class whose metaclass is a host one: hashed by identity
    if t.__module__ in ("typing", "types"):
        for arg in _args(param):
            _check_param(arg, depth + 1)
        return param
    raise TypeError(f"typing parameters must be classes or typing forms in safe-eval, not {t.__name__}")


def _args(form: Any) -> tuple[Any, ...]:
    # a host typing/types form: its own C/Python attribute, never a guest hook
    args = getattr(form, "__args__", ())
    return args if type(args) is tuple else ()


class _Form:
    """A typing form as the guest holds it: subscription checks its parameters first."""

    __slots__ = ("_real",)

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getitem__(self, params: Any) -> Any:
        return _wrap(self._real[_check_param(params)])

    def __or__(self, other: Any) -> Any:
        return _wrap(self._real | _check_param(other))

    def __ror__(self, other: Any) -> Any:
        return _wrap(_check_param(other) | self._real)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[Any, ...]:
        entries = getattr(self._real, "__mro_entries__", None)
        return entries(bases) if entries is not None else (self._real,)

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, self._real)

    def __subclasscheck__(self, cls: Any) -> bool:
        return issubclass(cls, self._real)

    def __eq__(self, other: object) -> bool:
        return self._real == (other._real if type(other) is _Form else other)  # host forms only

    def __hash__(self) -> int:
        return hash(self._real)

    def __repr__(self) -> str:
        return repr(self._real)


def _wrap(form: Any) -> Any:
    """A form that can be subscribed again (it has type variables left) as a stand-in."""
    if type(form).__module__ == "typing" and getattr(form, "__parameters__", ()):
        return _Form(form)
    return form


def _subscripted(value: Any) -> bool:
    # every typing object whose subscription is memoised (Generic/Protocol are subclassed)
    return value is typing.Annotated or (
        not isinstance(value, type) and type(value).__module__ == "typing"
        and hasattr(type(value), "__getitem__"))


def get_type_hints(obj: Any, globalns: Any = None, localns: Any = None, include_extras: bool = False) -> Any:
    raise TypeError("typing.get_type_hints is not available in safe-eval: "
                    "annotations are never evaluated")


def overload(func: Any) -> Any:
    return func


def final(arg: Any) -> Any:
    """Identity (the host one sets ``__final__`` on its argument, which may be a host class)."""
    return arg


def no_type_check(arg: Any) -> Any:
    """Identity (the host one sets attributes on the argument's functions)."""
    return arg


def runtime_checkable(cls: Any) -> Any:
    """``typing.runtime_checkable`` for guest protocol classes only (it sets a flag on cls)."""
    if not (isinstance(cls, type) and is_guest_type(cls)):
        raise TypeError("runtime_checkable() can only decorate classes defined in guest code")
    return typing.runtime_checkable(cls)


def build() -> dict[str, Any]:
    attrs: dict[str, Any] = {name: getattr(typing, name) for name in NAMES if hasattr(typing, name)}
    attrs = {name: _Form(value) if _subscripted(value) else value for name, value in attrs.items()}
    attrs.update(get_type_hints=get_type_hints, overload=overload, NamedTuple=NamedTuple, final=final,
                 no_type_check=no_type_check, runtime_checkable=runtime_checkable,
                 TYPE_CHECKING=False)
    return attrs
