"""What the guest sees when it asks for a type: ``type(x)``, ``x.__class__``, ``K.__mro__``.

Only types an allowlist names are handed out as they are (``type(3)`` is ``int``; guest classes;
the classes curated modules export): the guest can call them and use them in ``isinstance``, and
``get_attr`` refuses walking them. Everything else is not:

- ``type`` itself: its three-argument form would build a host class with arbitrary dunders, so
  the guest gets ``GUARDED_TYPE``, which answers ``type(x)``, ``isinstance(x, type)`` and builds
  ``type(name, bases, ns)`` as a guest class (``interpreter.classes.build_dynamic_class``);
- other metaclasses (``ABCMeta``, ``EnumMeta``) for the same reason;
- every other host type (``function``, a curated module's helpers, safe-eval's own classes):
  calling one could build a host object of the guest's choice.

The last two become an ``OpaqueType``: named, comparable, usable in ``isinstance``, never callable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.identity import WeakTypeMap, is_curated_type, is_guest_class
from safe_eval.membrane.admission import is_guest_visible, register_membrane_type
from safe_eval.membrane.allowlists import HOST_TYPE_NAMES

__all__ = ["GUARDED_TYPE", "GuardedType", "OpaqueType", "allow_construction", "is_own_class",
           "register_type_view", "reveal_type"]


class _TypeLike:
    """Shared parts of the stand-ins: name, repr, isinstance/issubclass support."""

    __slots__ = ("_real", "__weakref__")
    _real: type

    def __instancecheck__(self, obj: object) -> bool:
        return isinstance(obj, self._real)

    def __subclasscheck__(self, cls: type) -> bool:
        real = cls._real if isinstance(cls, _TypeLike) else cls
        return isinstance(real, type) and issubclass(real, self._real)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _TypeLike):
            return self._real is other._real
        return self._real is other

    def __hash__(self) -> int:
        return hash(self._real)

    def __repr__(self) -> str:
        return f"<class '{self._real.__qualname__}'>"

    def __safe_eval_getattr__(self, name: str) -> Any:
        if name in ("__name__", "__qualname__"):
            return getattr(self._real, name)
        raise AttributeError(f"type '{self._real.__name__}' exposes no attribute '{name}' in safe-eval")


@register_membrane_type
class GuardedType(_TypeLike):
    """The guest's ``type``: the one-argument form only."""

    __slots__ = ()

    def __init__(self) -> None:
        self._real = type

    def __call__(self, *args: object, **kwargs: object) -> Any:
        if len(args) == 1 and not kwargs:
            obj = args[0]
            if isinstance(obj, _TypeLike):  # a stand-in is a class to the guest: its type is type
                return GUARDED_TYPE
            view = _TYPE_OF.get(type(obj))
            if view is not None:  # a membrane object standing for a host object
                return view(obj)
            return reveal_type(type(obj))
        if len(args) == 3 and not kwargs:
            # a guest class built by the class statement's own checks, never a host class
            # with guest dunders
            from safe_eval.interpreter.classes import build_dynamic_class

            return build_dynamic_class(*args)
        raise TypeError("type() takes 1 or 3 arguments")


@register_membrane_type
class OpaqueType(_TypeLike):
    """A type the guest may name and test against but not call or walk."""

    __slots__ = ()

    def __init__(self, real: type) -> None:
        self._real = real

    def __call__(self, *args: object, **kwargs: object) -> Any:
        raise TypeError(f"cannot create '{self._real.__name__}' instances in safe-eval")


GUARDED_TYPE = GuardedType()

# ``type(x)`` of a membrane object that stands for a host object (a proxy shows its host class),
# registered by the module that owns the class (``register_type_view``)
_TYPE_OF: dict[type, Callable[[Any], Any]] = {}


def register_type_view(cls: type, view: Callable[[Any], Any]) -> None:
    """Let ``type(x)`` of an instance ``x`` of the membrane class ``cls`` answer ``view(x)``."""
    _TYPE_OF[cls] = view


_opaque: WeakTypeMap[OpaqueType] = WeakTypeMap()

# Interpreter classes guest code may construct itself, registered one by one (asyncio's
# Queue, Lock, CancelledError ...)
_CONSTRUCTIBLE: set[type] = set()


def allow_construction(cls: type) -> type:
    """Let the guest name, call and catch the interpreter class ``cls`` itself (not an opaque
    stand-in). Its instances stay interpreter-internal (``identity.is_internal_type``). Usable as
    a class decorator."""
    _CONSTRUCTIBLE.add(cls)
    return cls


def _opaque_for(cls: type) -> OpaqueType:
    view = _opaque.get(cls)
    if view is None:
        view = OpaqueType(cls)
        _opaque.set(cls, view)
    return view


def is_own_class(cls: type) -> bool:
    """A class safe-eval itself defines (interpreter, membrane, curated modules)."""
    module = type.__dict__["__module__"].__get__(cls)
    return is_curated_type(cls) or (isinstance(module, str) and module.startswith("safe_eval."))


def reveal_type(cls: type) -> Any:
    """The guest-visible stand-in for the type object ``cls``."""
    if cls is type:
        return GUARDED_TYPE
    if issubclass(cls, type):
        return _opaque_for(cls)
    if is_guest_class(cls) or cls in _CONSTRUCTIBLE or cls in HOST_TYPE_NAMES:
        return cls
    if is_curated_type(cls):
        # a curated module's class is the guest's to call only where the module hands it out
        # (``collections.deque``); its helpers (the module wrapper, iterators) stay opaque
        return cls if is_guest_visible(cls) else _opaque_for(cls)
    if issubclass(cls, BaseException):
        # ``type(e)("...")`` / ``e.__class__(...)`` of a caught host exception: its constructor
        # is host code, so the class is a tool like the one in env (policy/enforce.py)
        # (a listed one, ``json.JSONDecodeError``, was returned above as it is)
        from safe_eval.membrane.proxies import host_exception_class

        return host_exception_class(cls.__name__, cls)
    # deny by default: a host type no allowlist names (``function``, ``generator``, safe-eval's
    # own classes) is named and tested against, never called or walked
    return _opaque_for(cls)
