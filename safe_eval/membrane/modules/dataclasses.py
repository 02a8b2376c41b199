"""Curated ``dataclasses``: a guest-safe ``@dataclass`` (no exec).

CPython's ``dataclass`` writes ``__init__``/``__repr__``/... as source text and ``exec``s it.
Ours builds them as host closures generic over the field list, which comes from the class's
own ``__annotations__`` (class-level annotated names, in order; their values are inert
markers that are never evaluated) and ``field(...)`` specifications. The fields are real
``dataclasses.Field`` objects in ``__dataclass_fields__``, so the host's ``fields``,
``asdict``, ``astuple``, ``replace`` and ``is_dataclass`` work unchanged on guest dataclasses
(from guest and host code alike).

Supported: ``@dataclass`` and ``@dataclass(init, repr, eq, order, unsafe_hash, frozen,
match_args, kw_only)``, ``field(default, default_factory, init, repr, compare, hash,
kw_only)``, ``__post_init__``, inheritance of fields from dataclass bases, CPython's error
messages for argument binding and frozen instances. Divergences (documented): ``ClassVar``
and ``InitVar`` annotations are treated as ordinary fields (annotations are not evaluated),
``slots=True`` and ``weakref_slot`` are refused, field names that are dunders are refused.
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.identity import is_guest_class
from safe_eval.membrane.modules._util import pick

_FIELD: Any = getattr(dataclasses, "_FIELD")  # noqa: B009 (private: the marker fields() filters on)
MISSING: Any = dataclasses.MISSING
FrozenInstanceError = dataclasses.FrozenInstanceError


class _FactoryRepr:
    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _FactoryRepr()


def _collect_fields(cls: type, kw_only_default: bool) -> dict[str, dataclasses.Field[Any]]:
    fields: dict[str, dataclasses.Field[Any]] = {}
    for base in cls.__mro__[-1:0:-1]:
        base_fields = base.__dict__.get("__dataclass_fields__")
        if base_fields:
            for f in base_fields.values():
                if getattr(f, "_field_type", None) is _FIELD:
                    fields[f.name] = f
    annotations = cls.__dict__.get("__annotations__", {})
    for name in list(annotations):
        fields[name] = _make_field(cls, name, kw_only_default)
    return fields


def _make_field(cls: type, name: str, kw_only_default: bool) -> dataclasses.Field[Any]:
    if not isinstance(name, str) or (name.startswith("__") and name.endswith("__")):
        raise TypeError(f"dataclass field name {name!r} is not allowed")
    default = cls.__dict__.get(name, MISSING)
    if isinstance(default, dataclasses.Field):
        f = default
        if f.default is not MISSING and f.default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
    else:
        f = dataclasses.field(default=default)
    f.name = name
    f.type = cls.__dict__.get("__annotations__", {}).get(name)
    f._field_type = _FIELD  # type: ignore[attr-defined]
    if f.kw_only is MISSING:
        f.kw_only = kw_only_default
    if f.default is not MISSING and type(f.default).__hash__ is None:
        raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                         "use default_factory")
    # The class attribute keeps the default value (as in CPython), never the Field.
    if isinstance(default, dataclasses.Field):
        if f.default is MISSING:
            delattr(cls, name)
        else:
            setattr(cls, name, f.default)
    return f


# -- generated methods --------------------------------------------------------------------

def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _make_init(cls: type, fields: list[dataclasses.Field[Any]], frozen: bool) -> Callable[..., None]:
    init_fields = [f for f in fields if f.init]
    positional = [f for f in init_fields if not f.kw_only]
    keyword = [f for f in init_fields if f.kw_only]
    derived = [f for f in fields if not f.init]
    names = {f.name for f in init_fields}
    qualname = f"{cls.__qualname__}.__init__"
    seen_default = False
    for f in positional:
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument '{f.name}' follows default argument")
        seen_default = seen_default or has_default
    assign: Callable[[Any, str, Any], None] = object.__setattr__ if frozen else setattr

    def value_for(f: dataclasses.Field[Any]) -> Any:
        factory: Any = f.default_factory
        if factory is not MISSING:
            return factory()
        return f.default

    required = sum(1 for f in positional if f.default is MISSING and f.default_factory is MISSING)
    takes = (f"{len(positional) + 1}" if required == len(positional)
             else f"from {required + 1} to {len(positional) + 1}")
    takes += " positional argument" + ("" if takes == "1" else "s")

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(positional):
            given = len(args) + 1
            raise TypeError(f"{qualname}() takes {takes} but {given} "
                            f"{'was' if given == 1 else 'were'} given")
        for key in kwargs:
            if key not in names:
                raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'")
        values: dict[str, Any] = {}
        for f, arg in zip(positional, args, strict=False):
            if f.name in kwargs:
                raise TypeError(f"{qualname}() got multiple values for argument '{f.name}'")
            values[f.name] = arg
        missing_pos: list[str] = []
        missing_kw: list[str] = []
        for f in init_fields:
            if f.name in values:
                continue
            if f.name in kwargs:
                values[f.name] = kwargs[f.name]
            elif f.default is not MISSING or f.default_factory is not MISSING:
                values[f.name] = value_for(f)
            else:
                (missing_kw if f.kw_only else missing_pos).append(f.name)
        for missing, kind in ((missing_pos, "positional"), (missing_kw, "keyword-only")):
            if missing:
                listed = ", ".join(repr(n) for n in missing)
                if len(missing) > 1:
                    listed = ", ".join(repr(n) for n in missing[:-1]) + f" and {missing[-1]!r}"
                what = _plural(len(missing), f"required {kind} argument")
                raise TypeError(f"{qualname}() missing {what}: {listed}")
        for f in init_fields:
            assign(self, f.name, values[f.name])
        for f in derived:
            if f.default is not MISSING or f.default_factory is not MISSING:
                assign(self, f.name, value_for(f))
        post_init = getattr(self, "__post_init__", None)
        if post_init is not None:
            post_init()

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for f in positional + keyword:
        kind = inspect.Parameter.KEYWORD_ONLY if f.kw_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
        default = (f.default if f.default is not MISSING else
                   _HAS_FACTORY if f.default_factory is not MISSING else inspect.Parameter.empty)
        params.append(inspect.Parameter(f.name, kind, default=default))
    __init__.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    __init__.__qualname__ = qualname
    return __init__


def _make_repr(cls: type, fields: list[dataclasses.Field[Any]]) -> Callable[[Any], str]:
    shown = [f.name for f in fields if f.repr]

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        body = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({body})"

    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


def _make_compare(cls: type, fields: list[dataclasses.Field[Any]]) -> dict[str, Callable[[Any, Any], Any]]:
    names = [f.name for f in fields if f.compare]

    def key(obj: Any) -> tuple[Any, ...]:
        return tuple(getattr(obj, name) for name in names)

    def comparer(op: Callable[[Any, Any], Any], dunder: str) -> Callable[[Any, Any], Any]:
        def method(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return op(key(self), key(other))
            return NotImplemented

        method.__name__ = dunder
        method.__qualname__ = f"{cls.__qualname__}.{dunder}"
        return method

    return {
        "__eq__": comparer(lambda a, b: a == b, "__eq__"),
        "__lt__": comparer(lambda a, b: a < b, "__lt__"),
        "__le__": comparer(lambda a, b: a <= b, "__le__"),
        "__gt__": comparer(lambda a, b: a > b, "__gt__"),
        "__ge__": comparer(lambda a, b: a >= b, "__ge__"),
    }


def _make_hash(fields: list[dataclasses.Field[Any]]) -> Callable[[Any], int]:
    names = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]

    def __hash__(self: Any) -> int:
        return hash(tuple(getattr(self, name) for name in names))

    return __hash__


def _make_frozen(cls: type, fields: list[dataclasses.Field[Any]]) -> dict[str, Callable[..., None]]:
    names = frozenset(f.name for f in fields)
    base: Any = cls

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(base, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(base, self).__delattr__(name)

    return {"__setattr__": __setattr__, "__delattr__": __delattr__}


# -- the decorator --------------------------------------------------------------------------

def _set_new(cls: type, name: str, value: Any) -> bool:
    if name in cls.__dict__:
        return True
    setattr(cls, name, value)
    return False


def _process(cls: type, init: bool, repr: bool, eq: bool, order: bool, unsafe_hash: bool,
             frozen: bool, match_args: bool, kw_only: bool) -> type:
    if not isinstance(cls, type):
        raise TypeError("dataclass() should be applied to a class")
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    if not is_guest_class(cls):
        raise TypeError("dataclass() can only decorate classes defined in guest code")
    class_hash = cls.__dict__.get("__hash__", MISSING)
    has_own_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    field_map = _collect_fields(cls, kw_only)
    fields = list(field_map.values())
    cls.__dataclass_fields__ = field_map  # type: ignore[attr-defined]
    cls.__dataclass_params__ = dataclasses._DataclassParams(  # type: ignore[attr-defined]
        init, repr, eq, order, unsafe_hash, frozen)
    if init:
        _set_new(cls, "__init__", _make_init(cls, fields, frozen))
    if repr:
        _set_new(cls, "__repr__", _make_repr(cls, fields))
    if eq:
        _set_new(cls, "__eq__", _make_compare(cls, fields)["__eq__"])
    if order:
        for name, method in _make_compare(cls, fields).items():
            if name != "__eq__" and _set_new(cls, name, method):
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                                "Consider using functools.total_ordering")
    if frozen:
        for name, method in _make_frozen(cls, fields).items():
            if _set_new(cls, name, method):
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    if unsafe_hash or (eq and frozen and not has_own_hash):
        if unsafe_hash and has_own_hash:
            raise TypeError(f"Cannot overwrite attribute __hash__ in class {cls.__name__}")
        setattr(cls, "__hash__", _make_hash(fields))  # noqa: B010 (mypy: not a method-assign)
    elif eq and not frozen and not has_own_hash:
        cls.__hash__ = None  # type: ignore[assignment]
    if match_args:
        _set_new(cls, "__match_args__", tuple(f.name for f in fields if f.init and not f.kw_only))
    return cls


def dataclass(cls: Any = None, /, *, init: bool = True, repr: bool = True, eq: bool = True,
              order: bool = False, unsafe_hash: bool = False, frozen: bool = False,
              match_args: bool = True, kw_only: bool = False, slots: bool = False,
              weakref_slot: bool = False) -> Any:
    if slots or weakref_slot:
        raise TypeError("dataclass(slots=True) is not supported in safe-eval")

    def wrap(c: type) -> type:
        return _process(c, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only)

    return wrap if cls is None else wrap(cls)


def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True,
          repr: bool = True, hash: bool | None = None, compare: bool = True,
          metadata: Any = None, kw_only: Any = MISSING) -> Any:
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return dataclasses.field(default=default, default_factory=default_factory, init=init, repr=repr,
                             hash=hash, compare=compare, metadata=metadata, kw_only=kw_only)


# -- helpers: guest dataclasses only ------------------------------------------------------------
# The host helpers read every field of any dataclass, private ones included: given a host
# dataclass from ``env`` they would reveal what the membrane hides. Ours take guest-made
# dataclasses (instances or classes); values inside that are not guest dataclasses are
# copied as CPython does (``copy.deepcopy``), never taken apart.



def fields(class_or_instance: Any) -> tuple[dataclasses.Field[Any], ...]:
    if not (isinstance(class_or_instance, type) and is_guest_class(class_or_instance)
            or is_guest_class(type(class_or_instance))):
        raise TypeError("must be called with a dataclass type or instance")
    return dataclasses.fields(class_or_instance)


def _is_guest_instance(obj: Any) -> bool:
    return not isinstance(obj, type) and is_guest_class(type(obj)) and dataclasses.is_dataclass(obj)


def _inner(obj: Any, factory: Callable[[Any], Any]) -> Any:
    # the curated deepcopy: its memo is opaque to a guest __deepcopy__ (see modules/copy.py)
    from safe_eval.membrane.modules.copy import deepcopy as safe_deepcopy

    if _is_guest_instance(obj):
        return factory([(f.name, _inner(getattr(obj, f.name), factory)) for f in dataclasses.fields(obj)])
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*[_inner(v, factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_inner(v, factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_inner(k, factory), _inner(v, factory)) for k, v in obj.items())
    return safe_deepcopy(obj)


def asdict(obj: Any, *, dict_factory: Callable[[Any], Any] = dict) -> Any:
    if not _is_guest_instance(obj):
        raise TypeError("asdict() should be called on dataclass instances")
    return _inner(obj, dict_factory)


def astuple(obj: Any, *, tuple_factory: Callable[[Any], Any] = tuple) -> Any:
    if not _is_guest_instance(obj):
        raise TypeError("astuple() should be called on dataclass instances")

    def as_tuple(pairs: list[tuple[str, Any]]) -> Any:
        return tuple_factory([value for _, value in pairs])

    return _inner(obj, as_tuple)


def replace(obj: Any, /, **changes: Any) -> Any:
    if not _is_guest_instance(obj):
        raise TypeError("replace() should be called on dataclass instances")
    return dataclasses.replace(obj, **changes)


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow

    allow(dataclasses.Field, ["name", "type", "default", "default_factory", "init", "repr", "hash",
                              "compare", "metadata", "kw_only"])
    attrs = pick(dataclasses, ["is_dataclass", "FrozenInstanceError", "MISSING"])
    attrs.update(dataclass=dataclass, field=field, fields=fields, asdict=asdict, astuple=astuple,
                 replace=replace)
    return attrs
