"""Attribute access across the membrane: ``obj.name`` read, write and delete by guest code.

Rules, by what ``obj`` is (deny by default; every branch is an allowlist):

- an instance of a guest-defined class: public and ``_private`` names are the guest's own
  (unless a ``_private`` name resolves to a host base class's internals); dunders only from
  ``GUEST_INSTANCE_DUNDERS``;
- a guest-defined class: the same, dunders from ``GUEST_TYPE_DUNDERS``; ``__mro__`` is filtered
  to types the guest may hold; names that only the metaclass provides (``mro``) are refused;
- an interpreter-made object (guest function, generator ...): its registered names only;
- a host object: a membrane class answers through its ``__safe_eval_getattr__`` hook (tools,
  proxies, type stand-ins, curated module wrappers); a registered host type exposes its listed
  public names; exceptions expose their plain-data fields; functions their ``__name__``;
  nothing starting with ``_`` otherwise.

Every value read goes through an exit check (``_exit``): modules, frames, code objects,
tracebacks, cells, host generators, metaclasses and functions of dangerous modules are refused
whatever path led to them. Writes to host objects are always refused.

Refusals raise ``AttributeError`` (catchable by the guest, so ``hasattr``/``getattr(x, n, d)``
keep their meaning); messages name the type, never the object's repr (it could hold a secret).
"""

from __future__ import annotations

import collections
import types
import unicodedata
from typing import Any

from safe_eval.interpreter.classes import is_guest_function
from safe_eval.interpreter.identity import (
    GUEST_REFS,
    internal_names,
    is_curated_type,
    is_guest_class,
    is_guest_made,
    is_guest_object,
    is_internal_type,
)
from safe_eval.limits.routines import (
    OWNERS,
    inherits_priced,
    method_price,
    register_methods,
    register_stdlib,
    super_price,
)
from safe_eval.membrane.admission import admitted, register_guest_visible, register_membrane_type
from safe_eval.membrane.allowlists import (
    ALL_PUBLIC,
    CONDITIONAL_DUNDERS,
    DATA_METHOD_DUNDERS,
    EXCEPTION_DUNDERS,
    EXCEPTION_FIELDS,
    FORBIDDEN_VALUE_TYPES,
    GUEST_INSTANCE_DUNDERS,
    GUEST_TYPE_DUNDERS,
    HOST_TYPE_NAMES,
    INTERNAL_DUNDERS,
    INTERNAL_PUBLIC,
    PLAIN_SCALARS,
    TYPE_DUNDERS,
    when_stdlib_types_registered,
)
from safe_eval.membrane.crossing import guest_exception
from safe_eval.membrane.dunders import DEFINABLE_DUNDERS, FORBIDDEN_DUNDERS
from safe_eval.membrane.formatter import safe_format, safe_format_map
from safe_eval.membrane.instancedict import InstanceDict
from safe_eval.membrane.modules._module import CuratedModule
from safe_eval.membrane.stored import (
    DeepcopyHook,
    EnteringCall,
    GuestGetattr,
    class_value,
    getattr_gate,
    register_priced_method_type,
    stored_value,
    unwrap,
)
from safe_eval.membrane.typeview import GUARDED_TYPE, OpaqueType, is_own_class, reveal_type

__all__ = ["BoundMethod", "del_attr", "get_attr", "readable", "register_guarded_methods", "set_attr"]

_FUNCTION_TYPES = frozenset(
    {
        types.FunctionType,
        types.BuiltinFunctionType,
        types.MethodType,
        types.MethodWrapperType,
        types.WrapperDescriptorType,
        types.MethodDescriptorType,
        types.ClassMethodDescriptorType,
    }
)
# Writable dunders of interpreter-made objects (what ``functools.wraps`` sets).
_INTERNAL_WRITABLE = frozenset({"__name__", "__qualname__", "__doc__", "__module__", "__wrapped__"})
_UNBIND = object()  # ``_check_guest_write`` of a delete: no value
# not ``__module__``: host pickle, copyreg and inspect import the module it names with host rights
# (a guest class named into ``unittest.__main__`` ran test discovery when the host pickled it);
# ``__qualname__`` is then only ever looked up in ``__main__``
_GUEST_TYPE_WRITABLE = frozenset({"__doc__", "__name__", "__qualname__"})
_GUEST_INSTANCE_WRITABLE = frozenset({"__doc__"}) | EXCEPTION_DUNDERS
# Host types whose public-name decisions are not cached (they depend on more than the type).
_NEVER_CACHED: frozenset[type] = frozenset({super})


def _deny(obj: object, name: str, why: str = "") -> AttributeError:
    kind = "type" if isinstance(obj, type) else "object"
    tname = obj.__name__ if isinstance(obj, type) else type(obj).__name__
    text = f"'{tname}' {kind} attribute '{name}' is not accessible in safe-eval"
    return AttributeError(text + (f" ({why})" if why else ""))


def _missing(obj: object, tp: type, name: str) -> AttributeError:
    """CPython's error for a name that does not exist, with its suggestion drawn only from
    the names the guest may read (``'list' object has no attribute 'apend'. Did you mean:
    'append'?``). Only class namespaces are read: no guest or host code runs."""
    if isinstance(obj, type):
        text = f"type object '{obj.__name__}' has no attribute '{name}'"
    else:
        text = f"'{tp.__name__}' object has no attribute '{name}'"
    readable = {n for klass in tp.__mro__ for n in klass.__dict__
                if not _looks_private(n) and (_curated(tp) or _listed(_owner(tp, n) or klass, n))}
    import difflib  # only on this error path

    close = difflib.get_close_matches(name, sorted(readable), n=1)
    return AttributeError(text + (f". Did you mean: '{close[0]}'?" if close else ""))


def _absent(tp: type, name: str) -> bool:
    """No class of ``tp`` defines ``name`` and no hook of it could make one up."""
    if _owner(tp, name) is not None or _owner(tp, "__getattr__") is not None:
        return False
    hook = _owner(tp, "__getattribute__")  # a C slot (every builtin type has one) or Python code
    return hook is None or type(hook.__dict__["__getattribute__"]) is not types.FunctionType


def _check_name(name: object) -> str:
    if type(name) is not str:
        if not isinstance(name, str):
            raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        name = str.__str__(name)  # a guest str subclass: use the plain text, not its dunders
    return name


def _looks_private(name: str) -> bool:
    """``_`` names, including look-alikes that NFKC-normalise to one (``＿＿class＿＿``)."""
    if name[:1] == "_":
        return True
    return not name.isascii() and unicodedata.normalize("NFKC", name)[:1] == "_"


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name[:2] == "__" and name[-2:] == "__"


def _owner(cls: type, name: str) -> type | None:
    """The class in ``cls.__mro__`` whose namespace defines ``name`` (None: none does)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass
    return None


_is_guest_made = is_guest_made


# -- guarded replacements for hooks that must not be handed out raw ----------------------------
def _object_setattr(obj: object, name: str, value: object) -> None:
    """``object.__setattr__`` for the guest: only on its own objects, under the name rules."""
    if not _is_guest_made(obj):
        raise _deny(obj, name, "object.__setattr__ only works on objects the code created")
    name = _check_name(name)
    _check_guest_write(type(obj), name, obj, value)
    object.__setattr__(obj, name, _stored(obj, name, value))


def _object_delattr(obj: object, name: str) -> None:
    if not _is_guest_made(obj):
        raise _deny(obj, name, "object.__delattr__ only works on objects the code created")
    name = _check_name(name)
    _check_guest_write(type(obj), name, obj)
    object.__delattr__(obj, name)


_RAW_HOOKS: dict[Any, Any] = {
    object.__setattr__: _object_setattr,
    object.__delattr__: _object_delattr,
}


def _unhook(value: Any) -> Any:
    try:
        return _RAW_HOOKS.get(value, value)
    except TypeError:  # unhashable value: never one of the raw hooks
        return value


# -- the exit check ------------------------------------------------------------------------------
_EXIT_CONTAINERS = (list, tuple, frozenset, set, dict)
_BUILTIN_METHOD = types.BuiltinMethodType
_DATA_OWNERS = PLAIN_SCALARS | {list, dict, set, frozenset, tuple, bytearray}
_METHOD = types.MethodType
_GATES = (GuestGetattr, DeepcopyHook)  # class-dict gates binding as methods (stored.py)


def _exit(value: Any, obj: object, name: str, depth: int = 0) -> Any:
    """An allowlist on every value an attribute read hands to the guest: what the entry admits
    (``admission.admitted``), types as ``reveal_type`` shows them, host exceptions cleaned,
    and containers whose items pass; anything else is refused, whatever path led to it."""
    tp = type(value)
    if tp in PLAIN_SCALARS:
        return value
    if tp is EnteringCall or tp is GuestGetattr or tp is DeepcopyHook or (
            tp is _METHOD and type(value.__func__) in _GATES):
        # what the guest stored behind a door (stored.py): the guest reads its own value
        value = unwrap(value)
        tp = type(value)
    if tp is _BUILTIN_METHOD and type(value.__self__) in _DATA_OWNERS and value.__name__[:1] != "_":
        return value  # the common case, ``"a,b".split``: what ``admitted`` says, without its walk
    if admitted(value):
        return value
    if type(obj) is CuratedModule and tp not in FORBIDDEN_VALUE_TYPES and not isinstance(value, type):
        return value  # a name the curated module's own allowlist lists (a per-run ``random.seed``)
    if tp in FORBIDDEN_VALUE_TYPES:
        raise _deny(obj, name, f"it leads to a host {tp.__name__}")
    if isinstance(value, type):
        return _exit_type(value, obj, name)
    if isinstance(value, BaseException):
        return guest_exception(value)
    if tp is slice and depth < 20:  # what it holds passes as a container's items do
        for part in (value.start, value.stop, value.step):
            _exit(part, obj, name, depth + 1)
        return value
    if tp in _EXIT_CONTAINERS and depth < 20:
        if depth == 0 and (is_guest_object(obj) or is_guest_class(obj)):
            return value  # the guest's own object holds only what entered through the door
        items = list(value.keys()) + list(value.values()) if tp is dict else value
        if not all(type(v) in PLAIN_SCALARS for v in items):  # the common case, plain data
            for item in items:
                if item is not value:  # a container holding itself
                    _exit(item, obj, name, depth + 1)
        return value
    raise _deny(obj, name, f"it leads to a host {tp.__name__} the membrane does not admit")


def _exit_type(cls: type, obj: object, name: str) -> Any:
    shown = reveal_type(cls)
    if shown is not cls and (type(shown) is not OpaqueType or is_own_class(cls) or issubclass(cls, type)):
        return shown
    if cls in HOST_TYPE_NAMES or issubclass(cls, BaseException) or is_guest_class(cls) or _curated(cls):
        return cls
    raise _deny(obj, name, f"it leads to host class '{cls.__name__}'")


# -- reading -------------------------------------------------------------------------------------
def get_attr(obj: object, name: str) -> Any:
    """``obj.name`` for guest code."""
    if type(name) is not str:
        name = _check_name(name)
    tp = type(obj)
    ref = GUEST_REFS.get(id(tp))  # ``is_guest_class(tp)`` inlined: this runs on every read
    guest_class = ref is not None and ref() is tp
    if name[:1] != "_" and name.isascii():  # fast paths: public names
        if guest_class:
            if OWNERS.isdisjoint(tp.__mro__):  # ``inherits_priced`` inlined: any base, not just [-2]
                value = getattr(obj, name)
                return value if type(value) in PLAIN_SCALARS else _exit(value, obj, name)
        else:  # only host types enter ``_PUBLIC`` (``_host_get``), never interpreter types
            action = _PUBLIC.get((tp, name))
            if action is not None:
                value = getattr(obj, name) if action is _PLAIN else _BoundMethod(action, obj, name)
                return value if type(value) in PLAIN_SCALARS else _exit(value, obj, name)
    if guest_class:
        return _exit(_guest_get(obj, tp, name), obj, name)
    if is_internal_type(tp):
        return _exit(_internal_get(obj, tp, name), obj, name)
    if isinstance(obj, type):
        if is_guest_class(obj):
            return _exit(_guest_type_get(obj, name), obj, name)
        return _exit(_host_type_get(obj, name), obj, name)
    return _exit(_host_get(obj, tp, name), obj, name)


# Decisions for (host type, public name) that depend on the type only: _PLAIN (plain getattr)
# or the guarded function to bind. Bounded: guest code chooses the names.
_PLAIN: Any = object()
_PUBLIC: dict[tuple[type, str], Any] = {}
_PUBLIC_MAX = 8192


def _remember(tp: type, name: str, action: Any) -> None:
    if len(_PUBLIC) >= _PUBLIC_MAX:
        _PUBLIC.clear()
    _PUBLIC[(tp, name)] = action


def _guest_get(obj: object, tp: type, name: str) -> Any:
    if not _looks_private(name):
        if inherits_priced(tp):  # a guest subclass of str/list/dict ... (any base): guarded methods
            priced = _priced(obj, tp, name)
            if priced is not None:
                return priced
        return getattr(obj, name)
    if _is_dunder(name):
        if name not in GUEST_INSTANCE_DUNDERS:
            raise _deny(obj, name)
        if name == "__class__":
            return reveal_type(tp)
        priced = _priced(obj, tp, name)  # a host type's slot, inherited
        if priced is not None:
            return priced
        if name == "__dict__":
            try:
                fields = object.__getattribute__(obj, "__dict__")
            except AttributeError:
                raise _deny(obj, name, "the object has no __dict__") from None
            return InstanceDict(fields, lambda key: _check_guest_write(tp, key, obj))
        return _unhook(_guest_read(obj, tp, name))
    owner = _owner(tp, name)
    if owner is not None and not is_guest_class(owner):
        raise _deny(obj, name, f"it belongs to host class '{owner.__name__}'")
    return _guest_read(obj, tp, name)


def _guest_read(obj: object, tp: type, name: str) -> Any:
    """``getattr(obj, name)`` for the guest's own read of a ``_`` name: the class's
    ``__getattr__`` gate refuses such names to CPython's slot (host lookups, stored.py), so the
    guest's read reaches its ``__getattr__`` here, as CPython would call it."""
    try:
        return getattr(obj, name)
    except AttributeError:
        gate = getattr_gate(tp)
        if gate is None:
            raise
    return gate.bound(obj)(name)


def _guest_type_get(cls: type, name: str) -> Any:
    owner = _owner(cls, name)
    if not _looks_private(name):
        if owner is None:  # only the metaclass has it (``mro``) or it does not exist
            raise _missing(cls, cls, name) if _absent(type(cls), name) else _deny(cls, name)
        if owner is str and name in _UNBOUND_FORMAT:
            return _UNBOUND_FORMAT[name]
        return _class_level(cls, owner, name)
    if _is_dunder(name):
        if name not in GUEST_TYPE_DUNDERS:
            raise _deny(cls, name)
        if name == "__class__":
            return reveal_type(type(cls))
        if name == "__mro__":
            return tuple(reveal_type(k) for k in cls.__mro__ if _holdable_type(k))
        if owner is not None and not is_guest_class(owner):
            _refuse_unbound_host_function(cls, owner, name)
            guarded = method_price(owner, name)  # a host type's slot, inherited
            if guarded is not None:
                return guarded
        return _unhook(getattr(cls, name))
    if owner is None or not is_guest_class(owner):
        raise _deny(cls, name)
    return getattr(cls, name)


def _holdable_type(cls: type) -> bool:
    return is_guest_class(cls) or cls in HOST_TYPE_NAMES or issubclass(cls, BaseException)


def _internal_get(obj: object, tp: type, name: str) -> Any:
    allowed = internal_names(tp)
    if allowed is not None:
        if name not in allowed:
            raise _deny(obj, name)
    elif _looks_private(name):
        if name not in INTERNAL_DUNDERS:
            raise _deny(obj, name)
    elif name not in INTERNAL_PUBLIC and not _in_instance_dict(obj, tp, name):
        raise _deny(obj, name)
    if name == "__class__":
        return reveal_type(tp)
    value = getattr(obj, name)
    if name in CONDITIONAL_DUNDERS and not (_is_guest_made(value) or type(value) in PLAIN_SCALARS):
        raise _deny(obj, name, "it leads to a host object")
    return value


def _in_instance_dict(obj: object, tp: type, name: str) -> bool:
    """A public attribute the guest stored on an interpreter-made object (``f.calls = 0``)."""
    if _owner(tp, name) is not None:
        return False
    try:
        return name in object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return False


def _host_type_get(cls: type, name: str) -> Any:
    if _looks_private(name):
        if name in TYPE_DUNDERS:
            return getattr(cls, name)
        if name == "__class__":
            return reveal_type(type(cls))
        if name in DATA_METHOD_DUNDERS or name in ("__init__", "__new__", "__setattr__", "__delattr__"):
            if cls in HOST_TYPE_NAMES or issubclass(cls, BaseException):
                owner = _owner(cls, name)
                if owner is not None:
                    _refuse_unbound_host_function(cls, owner, name)
                guarded = None if owner is None else method_price(owner, name)
                return guarded if guarded is not None else _unhook(getattr(cls, name))
        raise _deny(cls, name)
    owner = _owner(cls, name)
    if owner is None and _absent(type(cls), name):
        raise _missing(cls, cls, name)
    if owner is None or not _listed(owner, name):
        raise _deny(cls, name)
    if owner is str and name in _UNBOUND_FORMAT:
        return _UNBOUND_FORMAT[name]
    return _class_level(cls, owner, name)


def _listed(owner: type, name: str) -> bool:
    names = HOST_TYPE_NAMES.get(owner)
    if names is None:
        fields = EXCEPTION_FIELDS.get(owner)
        return fields is not None and name in fields
    return names is ALL_PUBLIC or name in names


def _host_get(obj: object, tp: type, name: str) -> Any:
    hook = getattr(tp, "__safe_eval_getattr__", None)
    if hook is not None:
        return hook(obj, name)
    if tp in _FUNCTION_TYPES or tp is super:
        return _function_get(obj, tp, name)
    if _looks_private(name):
        return _host_dunder(obj, tp, name)
    owner = _owner(tp, name)
    if owner is None:
        return _host_instance_field(obj, tp, name)
    if not _listed(owner, name):
        if not _curated(tp):
            raise _deny(obj, name)
        return getattr(obj, name)
    guarded = method_price(owner, name)
    if hook is None and tp not in _NEVER_CACHED:
        _remember(tp, name, _PLAIN if guarded is None else guarded)
    if guarded is not None:
        return _BoundMethod(guarded, obj, name)
    return getattr(obj, name)


_curated = is_curated_type


def _host_instance_field(obj: object, tp: type, name: str) -> Any:
    """A public name no class defines: an instance field (``JSONDecodeError.msg``)."""
    try:
        fields = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        raise (_missing(obj, tp, name) if _absent(tp, name) else _deny(obj, name)) from None
    if name not in fields and _absent(tp, name):
        raise _missing(obj, tp, name)
    allowed = (
        isinstance(obj, BaseException)
        or _curated(tp)
        or any(HOST_TYPE_NAMES.get(k) is ALL_PUBLIC for k in tp.__mro__)
    )
    if not allowed or name not in fields:
        raise _deny(obj, name)
    value = fields[name]
    if isinstance(obj, BaseException) and not (type(value) in PLAIN_SCALARS or _is_guest_made(value)):
        raise _deny(obj, name, "it holds a host object")
    return value


def _host_dunder(obj: object, tp: type, name: str) -> Any:
    if name == "__class__":
        return reveal_type(tp)
    if isinstance(obj, BaseException):
        if name in EXCEPTION_DUNDERS:
            return getattr(obj, name, None)
        if name in DATA_METHOD_DUNDERS:
            return getattr(obj, name)
        raise _deny(obj, name)
    if name in DATA_METHOD_DUNDERS and _registered(tp):
        priced = _priced(obj, tp, name)
        return getattr(obj, name) if priced is None else priced
    if name in CONDITIONAL_DUNDERS and _registered(tp):
        value = getattr(obj, name)
        if _is_guest_made(value):
            return value
        raise _deny(obj, name, "it leads to a host object")
    if name in TYPE_DUNDERS and _curated(tp):
        return getattr(obj, name)
    raise _deny(obj, name)


def _registered(tp: type) -> bool:
    return any(k in HOST_TYPE_NAMES for k in tp.__mro__[:-1]) or tp is object


def _function_get(obj: Any, tp: type, name: str) -> Any:
    """Host functions, methods and ``super`` objects."""
    if tp is super:
        return _super_get(obj, name)
    if name in TYPE_DUNDERS:
        return getattr(obj, name)
    if name == "__class__":
        return reveal_type(tp)
    if name in CONDITIONAL_DUNDERS:
        value = getattr(obj, name, None)
        if value is not None and _is_guest_made(value):
            return value
    if name in DATA_METHOD_DUNDERS and name in ("__call__", "__get__"):
        return getattr(obj, name)
    raise _deny(obj, name)


def _super_get(obj: Any, name: str) -> Any:
    """``super().name``: the guest's own classes only; hooks from ``object`` stay guarded."""
    target = obj.__self__
    # a second wall: ``guest_super`` takes guest classes only, so its object is the guest's,
    # and a host ``super`` object entering is an opaque proxy
    if not (_is_guest_made(target) and not is_internal_type(type(target))):  # pragma: no cover
        raise _deny(obj, name, "super() of a host object")
    if _is_dunder(name):
        if name not in DEFINABLE_DUNDERS and name not in GUEST_INSTANCE_DUNDERS:
            raise _deny(obj, name)
        if name == "__class__":
            return reveal_type(super)
        priced = _super_priced(obj, target, name)
        return getattr(obj, name) if priced is None else priced
    if _looks_private(name):
        owner = _owner(obj.__thisclass__, name)
        if owner is not None and not is_guest_class(owner):
            raise _deny(obj, name)
    return getattr(obj, name)


# -- methods swapped for priced versions ----------------------------------------------------------
# The price of a host routine lives in ``limits.routines`` (one table keyed by the routine); every
# read of a host method or slot here asks it, so ``'ab'.__mul__`` costs what ``'ab' * n`` does.
# str.format/format_map: the safe formatter.
def register_guarded_methods(owner: type, table: dict[str, Any]) -> None:
    """Price methods of host class ``owner`` (the curated modules' bulk consumers such as
    ``deque.extend``), calling convention ``fn(self, *args)``."""
    register_methods(owner, table)
    register_guest_visible(table.values())  # ``Type.name`` may hand a priced function out
    _PUBLIC.clear()  # decisions cached before the registration would bypass it


register_guarded_methods(str, {"format": safe_format, "format_map": safe_format_map})
# UserString's format/format_map are host Python calling the raw ``str.format`` on ``self.data``
# (``UserString('{0.__init__.__globals__}').format(x)`` printed host module globals)
register_guarded_methods(collections.UserString, {
    "format": lambda self, /, *args, **kwargs: safe_format(self.data, *args, **kwargs),
    "format_map": lambda self, mapping, /: safe_format_map(self.data, mapping),
})


def _guard_stdlib_types() -> None:
    # Decimal's and Fraction's prices: registered (importing them) before the types are readable
    register_stdlib()
    _PUBLIC.clear()


when_stdlib_types_registered(_guard_stdlib_types)


def _guarded_method(owner: type, name: str) -> Any:
    return method_price(owner, name)


def _priced(obj: object, tp: type, name: str) -> Any:
    """``obj.name`` bound to its price when the defining class's routine has one."""
    owner = _owner(tp, name)
    guarded = None if owner is None else method_price(owner, name)
    return None if guarded is None else _BoundMethod(guarded, obj, name)


def _super_priced(sup: Any, target: object, name: str) -> Any:
    """``super().name`` resolving to a priced host routine (``super().__mul__`` in a str subclass)."""
    guarded = super_price(sup, name)
    return None if guarded is None else _BoundMethod(guarded, target, name)


def _class_level(cls: type, owner: type, name: str) -> Any:
    """``Type.name``: the guarded version when there is one (bound to the class when the
    method is a classmethod, as ``dict.fromkeys`` is), else the attribute itself."""
    _refuse_unbound_host_function(cls, owner, name)
    guarded = _guarded_method(owner, name)
    if guarded is None:
        return getattr(cls, name)
    if isinstance(owner.__dict__.get(name), classmethod | types.ClassMethodDescriptorType):
        return _BoundMethod(guarded, cls, name)
    return guarded


def _refuse_unbound_host_function(cls: type, owner: type, name: str) -> None:
    """The one check that no class-level read hands the guest a host Python function: unbound,
    it runs with host rights on whatever ``self`` the guest passes (``UserDict.__init__(abc.ABC)``
    writes ``abc.ABC.data``; ``Mapping.update`` stores into any object). C methods are
    descriptor-checked by CPython, and read on an instance a Python method is bound to it."""
    raw = owner.__dict__.get(name)
    if type(raw) is types.FunctionType and not is_guest_class(owner) and not is_guest_function(raw):
        raise _deny(cls, name, "an unbound host Python method would run on any object")


@register_priced_method_type
@register_membrane_type
class _BoundMethod:
    """A guarded method bound to its object, looking like the builtin method it replaces."""

    __slots__ = ("_fn", "_self", "__name__")

    def __init__(self, fn: Any, obj: Any, name: str) -> None:
        self._fn = fn
        self._self = obj
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(self._self, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<built-in method {self.__name__} of {type(self._self).__name__} object>"

    def __safe_eval_getattr__(self, name: str) -> Any:
        if name in ("__name__", "__qualname__"):
            return self.__name__
        raise AttributeError(f"'builtin_function_or_method' attribute '{name}' is not accessible")


def _unbound(fn: Any, name: str) -> Any:
    def method(self: str, *args: Any, **kwargs: Any) -> str:
        if not isinstance(self, str):
            tname = type(self).__name__
            raise TypeError(f"descriptor '{name}' requires a 'str' object but received '{tname}'")
        return fn(self, *args, **kwargs)  # type: ignore[no-any-return]

    method.__name__ = method.__qualname__ = name
    return method


_UNBOUND_FORMAT = {
    "format": _unbound(safe_format, "format"),
    "format_map": _unbound(safe_format_map, "format_map"),
}
register_guest_visible(_UNBOUND_FORMAT.values())
register_guest_visible(_RAW_HOOKS.values())
register_membrane_type(InstanceDict)


# -- writing -------------------------------------------------------------------------------------
def _check_guest_write(tp: type, name: str, obj: object, value: object = _UNBIND) -> None:
    """Raise unless guest code may bind ``name`` to ``value`` (or unbind it) on ``obj``, a
    guest-made object."""
    if isinstance(obj, type):
        if _is_dunder(name):
            if name in FORBIDDEN_DUNDERS:
                raise _deny(obj, name, FORBIDDEN_DUNDERS[name])
            if name not in DEFINABLE_DUNDERS and name not in _GUEST_TYPE_WRITABLE:
                raise _deny(obj, name)
            # a type slot calls what the class dict holds with host rights and no budget of
            # its own: only interpreted guest code (``C.__eq__ = [].append`` is refused)
            if name in DEFINABLE_DUNDERS and value is not _UNBIND and value is not None \
                    and not is_guest_function(value):
                raise _deny(obj, name, "a dunder set on a class must be a function the code defined")
            return
        if _looks_private(name):
            owner = _owner(obj, name)
            if owner is not None and not is_guest_class(owner):
                raise _deny(obj, name)
        return
    if is_internal_type(tp):
        if name in _INTERNAL_WRITABLE:
            return
        if _looks_private(name) or _owner(tp, name) is not None:
            raise _deny(obj, name, "it belongs to the interpreter")
        return
    if _is_dunder(name):
        if name in FORBIDDEN_DUNDERS:  # first, as for a class: the refusal says why
            raise _deny(obj, name, FORBIDDEN_DUNDERS[name])
        if name not in _GUEST_INSTANCE_WRITABLE and name not in DEFINABLE_DUNDERS:
            raise _deny(obj, name)
        return
    if _looks_private(name):
        owner = _owner(tp, name)
        if owner is not None and not is_guest_class(owner):
            raise _deny(obj, name, f"it belongs to host class '{owner.__name__}'")


def _writable_target(obj: object) -> bool:
    tp = type(obj)
    ref = GUEST_REFS.get(id(tp))  # ``is_guest_object`` with its common case inlined
    if ref is not None and ref() is tp:
        return True
    return is_guest_object(obj) or is_guest_class(obj)


def _stored(obj: object, name: str, value: Any) -> Any:
    """``value`` as it may be bound on the guest's ``obj``: a callable host code could call
    there with host arguments behind a door (invariant 1, stored.py)."""
    if type(value) in PLAIN_SCALARS:
        return value
    return class_value(name, value) if isinstance(obj, type) else stored_value(value, name)


def set_attr(obj: object, name: str, value: object) -> None:
    """``obj.name = value`` for guest code: only on objects the guest made."""
    name = _check_name(name)
    if _writable_target(obj):
        _check_guest_write(type(obj), name, obj, value)
        if isinstance(obj, type):
            value = class_value(name, value)  # a slot or by-name call reaches it (stored.py)
        elif type(value) not in PLAIN_SCALARS and callable(value):
            value = stored_value(value, name)  # host code may call it by name (stored.py)
        setattr(obj, name, value)
        return
    hook = getattr(type(obj), "__safe_eval_setattr__", None)
    if hook is not None and not isinstance(obj, type):
        hook(obj, name, value)
        return
    raise _read_only(obj, name)


def del_attr(obj: object, name: str) -> None:
    """``del obj.name`` for guest code: only on objects the guest made."""
    name = _check_name(name)
    if _writable_target(obj):
        _check_guest_write(type(obj), name, obj)
        delattr(obj, name)
        return
    raise _read_only(obj, name)


def _read_only(obj: object, name: str) -> AttributeError:
    if isinstance(obj, type | OpaqueType) or obj is GUARDED_TYPE:
        what = "class"
    elif isinstance(obj, types.ModuleType) or "module" in type(obj).__name__.lower():
        what = "module"
    else:
        what = "object"
    tname = obj.__name__ if isinstance(obj, type) else type(obj).__name__
    return AttributeError(
        f"cannot set or delete attribute '{name}' of host {what} '{tname}': "
        "guest code may only change objects it created"
    )


# -- introspection helpers for builtins (dir, hasattr) -------------------------------------------
def readable(obj: object, name: str) -> bool:
    """Would ``get_attr(obj, name)`` succeed? (Used by ``dir``; runs the same rules.)"""
    try:
        get_attr(obj, name)
    except AttributeError:
        return False
    except Exception:
        return False
    return True


BoundMethod = _BoundMethod  # the priced bound method type, for the interpreter's type tests
