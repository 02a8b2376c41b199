"""The one rule for what may cross from host to guest as it is: ``admitted(value)``.

Both directions of the membrane ask it: the entry (``crossing.enter_value`` for env values,
tool results and the arguments of every host-to-guest call) and the exit check on every
attribute read (``attributes._exit``). It is an allowlist; what it does not admit the entry
converts (a container copied with its items entered, a Tool, an opaque proxy, a refusal) and
the exit refuses. Admitted as they are:

- exact plain scalars (``PLAIN_SCALARS``);
- objects and classes the interpreter made (``interpreter.identity``), curated-module objects,
  and the membrane's own wrappers (``register_membrane_type``);
- the exact callables the guest's builtins and curated modules hand out (by identity:
  ``register_guest_visible``);
- methods bound to admitted data (``"a".upper``, ``(1).__add__``), and unbound methods of a
  listed host type (``str.upper``);
- instances of listed plain-data host types (``datetime``, ``Decimal``), containers excepted.

Everything else is not: a host function, builtin, slot wrapper, module, type outside the
lists, or a host dict of state, whatever module it comes from.
"""

from __future__ import annotations

import collections.abc
import threading
import types
import typing
from collections.abc import Iterable
from typing import Any

from safe_eval.interpreter.identity import is_curated_type, is_guest_made
from safe_eval.membrane.allowlists import DATA_METHOD_DUNDERS, HOST_TYPE_NAMES, PLAIN_SCALARS

__all__ = ["admitted", "is_guest_visible", "register_guest_visible", "register_membrane_type"]

_MEMBRANE: set[type] = set()
# id -> object: module-level callables and tables that live as long as the process
_VISIBLE: dict[int, object] = {}
_lock = threading.Lock()

_BOUND_BUILTIN = types.BuiltinMethodType  # also BuiltinFunctionType: the same type
_UNBOUND_DESCRIPTORS = (
    types.WrapperDescriptorType, types.MethodDescriptorType, types.ClassMethodDescriptorType
)
_TYPE_EXPRESSIONS = (types.GenericAlias, types.UnionType)
_CONSTRUCTORS = frozenset({"__init__", "__new__"})  # as safe as calling the listed type
_CONTAINERS = (list, tuple, dict, set, frozenset, collections.deque, collections.abc.Mapping)


def register_membrane_type(cls: type) -> type:
    """Declare ``cls`` a membrane wrapper (tools, proxies, stand-ins, views): its instances
    expose only what their ``__safe_eval_getattr__`` hook allows. Usable as a decorator."""
    _MEMBRANE.add(cls)
    return cls


def register_guest_visible(values: Iterable[object]) -> None:
    """Record the exact objects a builtins table or a cached curated module hands to guest
    code, so the same object met on another path (a callback argument, an attribute) is
    recognised by identity. Only process-lifetime values belong here (never per-run ones)."""
    with _lock:
        for value in values:
            if type(value) not in PLAIN_SCALARS:
                _VISIBLE[id(value)] = value


# ``typing.Any``: what an unresolvable annotation resolves to (``dataclasses.fields(C)[i].type``);
# a class on 3.11+, a ``_SpecialForm`` on 3.10 that cannot be subscribed: no state, no cache
register_guest_visible((typing.Any,))


def is_guest_visible(value: object) -> bool:
    """``value`` is one of the objects a builtins table or curated module hands to guest code."""
    return _VISIBLE.get(id(value)) is value


_visible = is_guest_visible


def _method_name(name: object) -> bool:
    """A name a C method may have to be handed out: public, a data dunder (``__add__``) or a
    constructor, never a hook such as ``__subclasses__``, ``__init_subclass__``, ``__setattr__``
    (the guest gets ``object.__setattr__`` as a guarded replacement, attributes.py)."""
    return type(name) is str and (name[:1] != "_" or name in DATA_METHOD_DUNDERS or name in _CONSTRUCTORS)


def _data(owner: object, depth: int) -> bool:
    """The object a builtin method is bound to is data the guest may hold: admitted, or an
    instance of a listed host type (a list's ``append``), never a module (``len.__self__``)."""
    if owner is None or isinstance(owner, types.ModuleType):
        return False
    if isinstance(owner, type):  # a classmethod of a listed type (``dict.fromkeys``)
        return owner in HOST_TYPE_NAMES or is_guest_made(owner)
    if isinstance(owner, BaseException):  # ``e.add_note``, ``group.split``: exception data
        return True
    return admitted(owner, depth + 1) or any(k in HOST_TYPE_NAMES for k in type(owner).__mro__[:-1])


def _member_of_listed(fn: Any) -> bool:
    """A function found in the class namespace of a listed type under its own name: a C
    static method (``str.maketrans``, no ``__self__``) or a Python method read at class level
    (``Counter.most_common``)."""
    qualname = getattr(fn, "__qualname__", None)
    if type(qualname) is not str:
        return False
    tname, _, name = qualname.rpartition(".")
    for cls in list(HOST_TYPE_NAMES):
        for klass in cls.__mro__:  # inherited from an unlisted base (``Mapping.keys``)
            if klass.__qualname__ == tname:
                found = klass.__dict__.get(name)
                if found is fn or getattr(found, "__func__", None) is fn:
                    return True
    return False


def _price_guard(fn: object) -> bool:
    """One of the limits' priced replacements for a host routine (``str.__mul__`` read on the
    type hands out its guard): the routine table owns them."""
    from safe_eval.limits.routines import ROUTINES

    return any(guard is fn for guard in list(ROUTINES.values()))


def _defined_on(owner: object, func: object) -> bool:
    cls = owner if isinstance(owner, type) else type(owner)
    name = getattr(func, "__name__", None)
    if type(name) is not str:
        return False
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is func or getattr(found, "__func__", None) is func:
            return True
    return False


def admitted(value: Any, depth: int = 0) -> bool:
    """May ``value`` reach guest code as it is? (See the module docstring.)"""
    tp = type(value)
    if tp in PLAIN_SCALARS or tp in _MEMBRANE or is_guest_made(value) or is_curated_type(tp):
        return True
    if _visible(value):
        return True
    if depth > 3:
        return False
    if tp is _BOUND_BUILTIN or tp is types.MethodWrapperType:
        owner = value.__self__
        if owner is None:
            return _member_of_listed(value)
        return _method_name(value.__name__) and _data(owner, depth)
    if tp in _UNBOUND_DESCRIPTORS:
        owner = value.__objclass__
        return _method_name(value.__name__) and (owner in HOST_TYPE_NAMES or is_guest_made(owner))
    if tp is types.MethodType:
        owner = value.__self__
        if type(owner) in _MEMBRANE:  # a wrapper's own method: its hook handed it out
            return True
        # a guest function or a listed type's own method (``Formatter().format``), bound to data
        func = value.__func__
        return _data(owner, depth) and (admitted(func, depth + 1) or _defined_on(owner, func))
    if tp in _TYPE_EXPRESSIONS:
        # a resolved annotation (``list[int]``, ``int | None``, what ``dataclasses.fields``
        # reports): as admissible as the types it is made of
        parts = (*value.__args__, getattr(value, "__origin__", None))
        return all(p is None or admitted(p, depth + 1) for p in parts)
    if isinstance(value, type):
        return value in HOST_TYPE_NAMES
    if tp is slice:  # a container too: as admissible as what it holds
        return all(admitted(p, depth + 1) for p in (value.start, value.stop, value.step))
    if tp is types.FunctionType:
        return _member_of_listed(value) or _price_guard(value)
    if isinstance(value, _CONTAINERS) or callable(value):
        return False
    return any(k in HOST_TYPE_NAMES for k in tp.__mro__[:-1])
