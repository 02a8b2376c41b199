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
builds come wrapped the same way (``TypeVar``s included: ``int | T`` is a typing
subscription too). ``Protocol`` is a stand-in as well (``Protocol[T]`` must see the host
``TypeVar``; as a base it is the class itself). ``TypedDict`` is a stand-in too:
``type(typing.TypedDict)`` would otherwise be the host's ``FunctionType``; as a base
(``class D(TypedDict, total=False)``) and so is ``Generic[T]``, through ``allow_base_stand_in``. ``final`` and
``no_type_check`` are identities and ``runtime_checkable`` takes guest classes only (the host
ones set attributes on their argument); ``reveal_type`` is left out (it prints to host stderr).
"""

from __future__ import annotations

import types
import typing
from typing import Any

from safe_eval.context import on_run_exit
from safe_eval.interpreter.annotations import inert_fields, register_stand_in
from safe_eval.interpreter.classes import allow_base_stand_in, allow_class_keywords
from safe_eval.interpreter.compile_expr import priced_class
from safe_eval.interpreter.identity import is_guest_class
from safe_eval.membrane.modules._typing_namedtuple import NamedTuple
from safe_eval.membrane.snapshot import snapshot, snapshot_text

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
    cls = priced_class(param)  # ``int`` handed to a host call (``NewType('Id', int)``) comes priced
    if cls is not None:
        return cls
    if t in _LITERALS:
        return param
    if t is tuple or t is list:
        items = [_check_param(p, depth + 1) for p in param]
        return tuple(items) if t is tuple else items
    if is_guest_class(t):
        raise TypeError("typing parameters must be classes or typing forms in safe-eval, "
                        f"not instances of {t.__name__}")
    # ``list[x]`` passes ``isinstance(_, type)`` on 3.10: a form, checked by its parts first
    if isinstance(param, type) and t is not types.GenericAlias:
        return param  # a class whose metaclass is a host one: hashed by identity
    if t.__module__ in ("typing", "types") or t is types.GenericAlias:
        for arg in _args(param):
            _check_param(arg, depth + 1)
        return param
    raise TypeError(f"typing parameters must be classes or typing forms in safe-eval, not {t.__name__}")


def _args(form: Any) -> tuple[Any, ...]:
    # a host typing/types form: its own C/Python attribute, never a guest hook
    args = getattr(form, "__args__", ())
    return args if type(args) is tuple else ()


class _Form:
    """A typing object as the guest holds it: subscription and ``|`` check their operands first
    and hand back stand-ins again, so the guest never holds a real typing object it could
    subscribe (or ``|``) with an unchecked parameter."""

    __slots__ = ("_real",)
    _real: Any

    def __new__(cls, *args: Any, **kwargs: Any) -> _Form:  # pragma: no cover
        # ``type(typing.List)(x)`` in guest hands: a stand-in around an unchecked object. The
        # membrane refuses constructing safe-eval's own types first (test_modules_edges); this
        # stays for host code holding the class
        raise TypeError("typing stand-ins cannot be created in safe-eval")

    def __getitem__(self, params: Any) -> Any:
        on_run_exit(forget_cached_forms)
        return _wrap(self._real[_check_param(params)])

    def __or__(self, other: Any) -> Any:
        on_run_exit(forget_cached_forms)
        return _wrap(self._real | _check_param(other))

    def __ror__(self, other: Any) -> Any:
        on_run_exit(forget_cached_forms)
        return _wrap(_check_param(other) | self._real)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # TypeVar("T", bound=...), NewType("Id", int) and a NewType's identity call: builders
        # of identity-hashed forms, never a subscription
        real = self._real
        on_run_exit(forget_cached_forms)
        if real is typing.TypedDict:
            return _typed_dict(*args, **kwargs)
        if any(real is b for b in _BUILDERS):
            args = tuple(_check_param(a) if i else a for i, a in enumerate(args))
            kwargs = {k: _check_param(v) if k == "bound" else v for k, v in kwargs.items()}
            return _wrap(_in_main(real(*args, **kwargs)))
        if type(real) is not _NEW_TYPE:
            raise TypeError(f"{real!r} is not callable")
        return _wrap(real(*args, **kwargs))

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj._real if type(obj) is _Form else obj, self._real)

    def __subclasscheck__(self, cls: Any) -> bool:
        return issubclass(cls, self._real)

    def __eq__(self, other: object) -> bool:
        if type(other) is _Form:
            return bool(self._real == other._real)
        if type(other).__module__ == "typing" and not is_guest_class(type(other)):
            return bool(self._real == other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._real)

    def __repr__(self) -> str:
        return repr(self._real)


def forget_cached_forms() -> None:
    """Empty typing's process-wide caches (``typing._tp_cache``: an ``lru_cache`` per generic
    operation, 128 entries each, never emptied by CPython itself). A form the guest builds is
    cached there with its parameters (``List[C]`` keeps the guest class ``C``, its methods and
    through their globals the run's whole namespace), so a run that built one empties them when
    it ends (``context.on_run_exit``): the caches are keyed by what ``_check_param`` admits, so
    they were never poisoned, only kept alive. Emptying them costs the host a rebuild of its own
    forms on next use, nothing else: typing forms compare by value."""
    for clear in list(getattr(typing, "_cleanups", ())):
        clear()


_BUILDERS: tuple[Any, ...] = tuple(
    getattr(typing, n) for n in ("TypeVar", "ParamSpec", "TypeVarTuple", "NewType") if hasattr(typing, n))
_NEW_TYPE: Any = typing.NewType
# classes and functions that are subscripted or called to build forms (TypedDict is a function
# whose type, FunctionType, the guest must not get hold of)
_STAND_IN_ALWAYS: tuple[Any, ...] = (typing.Generic, typing.Annotated, typing.TypedDict, typing.Protocol)


def _in_main(made: Any) -> Any:
    """``made`` (a form or class typing just built) in the guest's module: typing names the
    module of its caller's frame, which is this host file (``repr(NewType('Id', int))``)."""
    made.__module__ = "__main__"
    return made


def _typed_dict(typename: Any, fields: Any, /, *, total: Any = True) -> Any:
    """``TypedDict("M", {"a": int})`` from a plain copy of the fields (forms unwrapped)."""
    name = snapshot_text(typename)
    if name is None:
        raise TypeError("TypedDict() takes a name and a dict of field types")
    table = snapshot(fields)
    if type(table) is not dict:
        table = dict(table)  # CPython's ``dict(fields)``: (name, type) pairs too, with its errors
    build: Any = typing.TypedDict
    # a field given as text would be a ForwardRef host ``get_type_hints`` evaluates
    fields_ = inert_fields({k: _check_param(v) for k, v in table.items()})
    return _in_main(build(name, fields_, total=bool(total)))


_SET_REAL = _Form.__dict__["_real"].__set__  # the slot's own setter: _Form() is refused


def _form(real: Any) -> _Form:
    form: _Form = object.__new__(_Form)
    _SET_REAL(form, real)
    return form


def _wrap(value: Any) -> Any:
    """A typing object as a stand-in (the builders, ``Generic`` and ``Protocol`` included); a
    plain class (``Text``, ``Any``), a function or a non-typing value as it is."""
    if type(value) is _Form:
        return value
    if any(value is b for b in _BUILDERS) or any(value is f for f in _STAND_IN_ALWAYS):
        return _form(value)
    if isinstance(value, type) or type(value).__module__ != "typing":
        return value
    return _form(value)


# ``class Box(Generic[T])`` / ``class D(TypedDict, total=False)``: the class statement resolves the
# host form behind the stand-in (its ``__mro_entries__``); only TypedDict's metaclass takes a keyword
allow_base_stand_in(_Form, lambda form: form._real)
# ``class IntBox(Box[int])``: a guest generic class subscripted by host typing code is that
# host alias itself (``typing._GenericAlias``, never a guest-made subclass: exact type only)
allow_base_stand_in(typing._GenericAlias, lambda alias: alias)  # type: ignore[attr-defined]
allow_class_keywords(type(typing.TypedDict.__mro_entries__(())[0]), ("total",))  # type: ignore[attr-defined]

# an annotation naming a stand-in (``from typing import Optional`` then ``-> Optional[str]``)
# resolves to the host typing object behind it
register_stand_in(_Form, lambda form: form._real)


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
    if not (isinstance(cls, type) and is_guest_class(cls)):
        raise TypeError("runtime_checkable() can only decorate classes defined in guest code")
    return typing.runtime_checkable(cls)


def build() -> dict[str, Any]:
    attrs: dict[str, Any] = {name: getattr(typing, name) for name in NAMES if hasattr(typing, name)}
    attrs = {name: _wrap(value) for name, value in attrs.items()}
    attrs.update(get_type_hints=get_type_hints, overload=overload, NamedTuple=NamedTuple, final=final,
                 no_type_check=no_type_check, runtime_checkable=runtime_checkable,
                 TYPE_CHECKING=False)
    return attrs
