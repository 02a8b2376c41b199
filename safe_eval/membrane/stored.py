"""Callables the guest leaves where host code may call them, and its ``__getattr__``.

Invariant 1 (one door in) says the arguments of every host-to-guest call pass the door. A
guest ``Function`` enters them itself (``Function.__call__``); any other callable the guest
holds does not: a C method bound to guest data (``inbox.append``) called by host code with a
host object stores the raw object in guest state, where the interpreter then trusts it by
type. Such a callable reaches host code in three ways, each closed here:

- a class namespace entry (``__call__ = inbox.append``: CPython's slot calls it; a
  ``on_event = seen.append`` the host calls by name): ``class_value`` at class creation and on
  every later class attribute write;
- an instance attribute (``r.__deepcopy__ = sink.append``, ``o.on_event = seen.append``):
  ``stored_value`` on every guest attribute write;
- a method read as a value and handed on (``[inbox.append]`` returned, passed to a tool):
  ``method_value`` on every attribute read that is not called at once (the interpreter's
  ``obj.m(...)`` calls keep the raw bound method: guest code is not host code).

Each wraps the callable in an ``EnteringCall``, whose call enters its arguments through
``crossing.enter_call_args`` before calling it. Guest reads give the guest back what it
stored (``unwrap``, in the exit check), so guest code sees CPython's objects.

A guest ``__getattr__`` sits in the class dict as a ``GuestGetattr`` gate: CPython's slot
(every host ``getattr``/``hasattr`` on a guest object) never runs the guest function for a
name starting with ``_`` (dunders such as ``__annotations__``, ``__signature__``,
``__wrapped__``, protocol names such as ``_fields``, ``_repr_html_``): the host gets
``AttributeError`` as if the class did not define it. The guest's own reads of such names
still reach its function (``getattr_gate``, from ``attributes.get_attr``). A guest
``__getattr__`` that fails for a host caller outside its run is an ``AttributeError`` too, so
``hasattr`` keeps its meaning.
"""

from __future__ import annotations

import types
from typing import Any

from safe_eval.context import current_context
from safe_eval.errors import GuestError
from safe_eval.interpreter.identity import is_guest_class
from safe_eval.membrane import crossing
from safe_eval.membrane.admission import register_membrane_type
from safe_eval.membrane.allowlists import PLAIN_SCALARS
from safe_eval.membrane.proxies import Tool

__all__ = ["DeepcopyHook", "EnteringCall", "GuestGetattr", "class_value", "getattr_gate", "method_value",
           "register_priced_method_type", "stored_value", "unwrap"]

_MethodType = types.MethodType
_BUILTIN_METHOD = types.BuiltinMethodType
_METHOD_WRAPPER = types.MethodWrapperType
# owners whose bound C methods cannot store anything: immutable data, modules, classes
_IMMUTABLE = PLAIN_SCALARS | {tuple, frozenset, range}


def _function_type() -> Any:
    return crossing._FUNCTION[0] if crossing._FUNCTION else None


@register_membrane_type
class EnteringCall:
    """A host callable the guest left where host code may call it: every call enters its
    arguments first, as a guest function's call does."""

    __slots__ = ("raw",)

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs:
            for a in args:
                if type(a) not in PLAIN_SCALARS:
                    break
            else:  # plain scalars cross as they are: the common guest call (``ap(i)``)
                return self.raw(*args)
        ctx = current_context()
        args, kw = crossing.enter_call_args(args, kwargs or None, None if ctx is None else ctx.policy)
        return self.raw(*args, **kw) if kw else self.raw(*args)

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        # in a class dict it binds as what it wraps would (``__call__ = list.append``)
        get = getattr(type(self.raw), "__get__", None)
        if get is None:
            return self
        bound = get(self.raw, obj, cls)
        return self if bound is self.raw else EnteringCall(bound)

    def __eq__(self, other: object) -> bool:
        if type(other) is EnteringCall:
            other = other.raw
        return bool(self.raw == other)

    def __hash__(self) -> int:
        return hash(self.raw)

    def __repr__(self) -> str:
        return repr(self.raw)

    def __safe_eval_getattr__(self, name: str) -> Any:
        from safe_eval.membrane.attributes import get_attr

        return get_attr(self.raw, name)


def _type_of_call(call: EnteringCall) -> Any:
    from safe_eval.membrane.typeview import reveal_type

    return reveal_type(type(call.raw))


@register_membrane_type
class GuestGetattr:
    """The class-dict value standing for a guest class's ``__getattr__`` (``func``)."""

    __slots__ = ("func",)

    def __init__(self, func: Any) -> None:
        self.func = func

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        return self if obj is None else _MethodType(self, obj)

    def __call__(self, obj: Any, name: Any) -> Any:
        if type(name) is not str or name[:1] == "_":
            # CPython's slot asks for it: host code (or a host C routine of the run) looking up
            # a dunder or protocol name; the guest's own reads come through ``getattr_gate``
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute {name!r}")
        try:
            return self.bound(obj)(name)
        except GuestError:
            # raised only outside the guest's run (``session.call_in_run``): a host asked for an
            # attribute, and whatever the guest raised, it is missing
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute {name!r}") from None

    def bound(self, obj: Any) -> Any:
        """The guest's ``__getattr__`` bound to ``obj`` as CPython binds a class attribute."""
        return _bind(self.func, obj)

    def __repr__(self) -> str:
        return repr(self.func)


def _bind(func: Any, obj: Any) -> Any:
    get = getattr(type(func), "__get__", None)
    return func if get is None else get(func, obj, type(obj))


@register_membrane_type
class DeepcopyHook:
    """A guest ``__deepcopy__`` as host code calls it (``copy.deepcopy`` of a guest object):
    with a fresh memo, never the host's. The host fills its memo after the call with what it
    copies (and keeps the originals alive in it): a hook keeping the memo would read host
    objects raw later, past the door, which admitted the dict as it was at the call. ``binds``:
    it sits in a class dict (called with the instance first), not on an instance."""

    __slots__ = ("func", "binds")

    def __init__(self, func: Any, binds: bool) -> None:
        self.func = func
        self.binds = binds

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        return self if obj is None or not self.binds else _MethodType(self, obj)

    def __call__(self, *args: Any) -> Any:
        func = self.func
        if self.binds and args:
            func, args = _bind(func, args[0]), args[1:]
        return func(*[{} if type(a) is dict else a for a in args])

    def __repr__(self) -> str:
        return repr(self.func)


def _register_views() -> None:
    from safe_eval.membrane.typeview import register_type_view

    register_type_view(EnteringCall, _type_of_call)


_register_views()


def _needs_door(value: Any) -> bool:
    """``value`` is callable by host code and does not enter its arguments itself: anything
    callable but a guest function (or a method bound to one), a class (a host class builds a
    new object; a guest class's methods are guest functions) or a wrapper already."""
    if not callable(value):
        return False
    tp = type(value)
    function = _function_type()
    if tp is function or tp is EnteringCall or tp is GuestGetattr or isinstance(value, type):
        return False
    if tp is _MethodType and type(value.__func__) is function:
        return False
    if is_guest_class(tp) or tp is Tool:
        # a guest object's call is its class's ``__call__`` (a guest function or a door);
        # a tool's call goes through the policy with plain copies
        return False
    return True


def stored_value(value: Any, name: object = None) -> Any:
    """``value`` as guest code may store it on one of its objects (an instance attribute
    ``name``)."""
    if type(value) in PLAIN_SCALARS:
        return value
    if name == "__deepcopy__" and callable(value) and type(value) is not DeepcopyHook:
        return DeepcopyHook(stored_value(value), binds=False)
    return EnteringCall(value) if _needs_door(value) else value


def class_value(key: object, value: Any) -> Any:
    """``value`` as a guest class may hold it under ``key`` (its namespace or a later write):
    host-callable values behind a door, a ``__getattr__`` behind its gate, and the functions
    of ``staticmethod``/``classmethod``/``property`` wrappers alike."""
    tp = type(value)
    if tp in PLAIN_SCALARS:
        return value
    if key == "__getattr__" and value is not None and tp is not GuestGetattr:
        return GuestGetattr(stored_value(value))
    if key == "__deepcopy__" and callable(value) and tp is not DeepcopyHook:
        return DeepcopyHook(stored_value(value), binds=True)
    if tp is staticmethod or tp is classmethod:
        inner = value.__func__
        return value if not _needs_door(inner) else tp(EnteringCall(inner))
    if tp is property:
        parts = (value.fget, value.fset, value.fdel)
        if not any(p is not None and _needs_door(p) for p in parts):
            return value
        fget, fset, fdel = (None if p is None else stored_value(p) for p in parts)
        return property(fget, fset, fdel, value.__doc__)
    return stored_value(value)


def method_value(value: Any) -> Any:
    """A method read as a value (not called at once): a C or host method bound to data that
    can change (a list's ``append``, a dict's ``__setitem__``) behind a door; anything else as
    it is."""
    return EnteringCall(value) if _storing_method(value) else value


def _storing_method(value: Any) -> bool:
    tp = type(value)
    if tp is _BUILTIN_METHOD or tp is _METHOD_WRAPPER:
        owner = value.__self__
    elif tp is _MethodType:
        if type(value.__func__) is _function_type():
            return False
        owner = value.__self__
    elif tp in _PRICED_METHODS:
        owner = value._self
    else:
        return False
    return not (type(owner) in _IMMUTABLE or owner is None or isinstance(owner, types.ModuleType | type))


# the membrane's priced bound methods (``attributes._BoundMethod``: ``deque.extend``), by type
_PRICED_METHODS: set[type] = set()


def register_priced_method_type(cls: type) -> type:
    """``cls`` binds a priced host routine to its object in ``_self``: a method like a C one."""
    _PRICED_METHODS.add(cls)
    return cls


def unwrap(value: Any) -> Any:
    """What the guest stored, for the guest's own reads; a method bound to data that can
    change stays behind its door (``method_value``: the guest may hand the value on)."""
    tp = type(value)
    if tp is EnteringCall:
        return value if _storing_method(value.raw) else value.raw
    if tp is GuestGetattr or tp is DeepcopyHook:
        return unwrap(value.func)
    if tp is _MethodType and type(value.__func__) in _GATES:
        return _bind(unwrap(value.__func__), value.__self__)
    return value


_GATES = (GuestGetattr, DeepcopyHook)


def getattr_gate(tp: type) -> GuestGetattr | None:
    """The gate of the ``__getattr__`` class ``tp`` inherits, when it is a guest one: the
    guest's own reads of a ``_`` name the gate refused call ``gate.bound(obj)(name)``."""
    for klass in tp.__mro__:
        gate = klass.__dict__.get("__getattr__")
        if gate is not None:
            return gate if type(gate) is GuestGetattr else None
    return None
