"""Who made a type: the guest, the interpreter, a curated module, or the host. Trust by identity.

Every "is this guest-made / internal / curated" question in safe-eval asks this module, and
the answer is a lookup of the type object itself in a registry that only host code writes:

- ``register_guest_class(cls)``: a class built for guest code (``class`` statements,
  ``enum``/``namedtuple`` factories). Subclasses are built by the same code, so are registered
  on their own; nothing is inherited through a mark.
- ``register_internal_type(cls, names)``: an interpreter-made guest-facing type (functions,
  generators, cells ...) and the names guest code may read on its instances. Interpreter
  subclasses of a registered type are internal too (looked up along the host-made ``__mro__``).
- ``register_curated_types(namespace)``: the classes a curated module file defines.

No guest-writable attribute takes part (``__module__``, ``__qualname__``, ``__class__``, a
class-body name, an instance ``__dict__``): a guest class that names itself
``__module__ = "safe_eval.interpreter"`` stays a guest class. Entries are weak (a guest class
made in a loop is collected with its last instance) and keyed by ``id`` with a liveness check,
so a type's own ``__eq__``/``__hash__`` never run.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Mapping
from typing import Any, Generic, TypeVar

from safe_eval.membrane.dunders import finished_class_refusals

__all__ = [
    "GUEST_REFS",
    "WeakTypeMap",
    "internal_names",
    "is_curated_type",
    "is_guest_class",
    "is_guest_made",
    "is_guest_object",
    "is_interpreter_type",
    "is_internal_type",
    "register_curated_types",
    "register_guest_class",
    "register_internal_type",
]


_V = TypeVar("_V")


class WeakTypeMap(Generic[_V]):
    """A map from classes to values, holding the classes weakly and with no weakref callback
    (dead entries are swept when the map has doubled since the last sweep): the collector
    frees guest classes in the middle of runs, and a callback there would be host Python code
    a watchdog interrupt could land in. For every weak cache keyed by guest classes."""

    __slots__ = ("_entries", "_sweep_at")

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[type], _V]] = {}
        self._sweep_at = _FIRST_SWEEP

    def get(self, cls: type) -> _V | None:
        entry = self._entries.get(id(cls))
        return entry[1] if entry is not None and entry[0]() is cls else None

    def clear(self) -> None:
        self._entries.clear()

    def set(self, cls: type, value: _V) -> None:
        entries = self._entries
        entries[id(cls)] = (weakref.ref(cls), value)
        if len(entries) >= self._sweep_at:
            for k in [k for k, (r, _) in list(entries.items()) if r() is None]:
                entries.pop(k, None)
            self._sweep_at = max(_FIRST_SWEEP, 2 * len(entries))


_FIRST_SWEEP = 256


class _TypeRegistry:
    """A weak set of type objects keyed by identity (``id`` plus a weakref liveness check)."""

    __slots__ = ("_refs", "_lock", "_sweep_at")

    def __init__(self) -> None:
        self._refs: dict[int, weakref.ref[type]] = {}
        self._lock = threading.RLock()
        # dead references are swept when the set has doubled since the last sweep: no weakref
        # callback, so no Python code runs when the collector frees a class in the middle of a
        # run (where a watchdog interrupt must never land)
        self._sweep_at = _FIRST_SWEEP

    def add(self, cls: type) -> None:
        ref = weakref.ref(cls)
        with self._lock:
            refs = self._refs
            refs[id(cls)] = ref
            if len(refs) >= self._sweep_at:
                for k in [k for k, r in refs.items() if r() is None]:
                    del refs[k]
                self._sweep_at = max(_FIRST_SWEEP, 2 * len(refs))

    def __contains__(self, cls: object) -> bool:
        ref = self._refs.get(id(cls))
        return ref is not None and ref() is cls


_GUEST = _TypeRegistry()
_CURATED = _TypeRegistry()
# Interpreter types are module-level classes that live as long as the process: a plain dict.
_INTERNAL: dict[type, frozenset[str] | None] = {}
# Interpreter subclasses found along an MRO, for host classes only (guest classes are never
# keys, see ``_internal_owner``), held weakly: a host class a run's env or tool brought in (a
# model class made per request, with what its class attributes hold) dies with its last user.
_INTERNAL_MRO_CACHE: WeakTypeMap[tuple[type | None]] = WeakTypeMap()


# -- registration (host code only: no guest-reachable object exposes these) -------------------
def register_guest_class(cls: type) -> type:
    """Record ``cls`` as made for guest code. Called by the class builder and the curated
    factories that build classes for the guest (enum, namedtuple).

    The one choke point every guest class passes before guest code can hold it: its finished
    class dict is checked against the reviewed dunders here, so a new factory cannot forget
    it. A refused class is disarmed (its unreviewed entries deleted, which resets the type
    slots CPython derived from them) before the error, since instances a metaclass already
    made (enum members) would otherwise run a guest ``__del__`` when collected.

    Its module is the guest's own, ``__main__``, whatever the call that built it named
    (``type(name, bases, {'__module__': ...})``, enum's ``module=``, the caller's module enum
    reads off the stack): host pickle, copyreg and inspect import the module a class names,
    with host rights (the reason ``__module__`` is not writable after creation either)."""
    if cls.__dict__.get("__module__") != "__main__":
        type.__setattr__(cls, "__module__", "__main__")
    refused = finished_class_refusals(cls, _is_registered)
    if refused:
        for key in refused:
            type.__delattr__(cls, key)
        key, why = next(iter(refused.items()))
        raise TypeError(f"class {cls.__name__} may not define {key} in safe-eval: {why}")
    _GUEST.add(cls)
    return cls


def _is_registered(cls: type) -> bool:
    return cls in _GUEST


def register_internal_type(cls: type, names: Iterable[str] | None = None) -> type:
    """Declare ``cls`` an interpreter-made guest-facing type whose instances expose only
    ``names`` (None: the defaults in ``allowlists.INTERNAL_PUBLIC`` / ``INTERNAL_DUNDERS``).
    Usable as a class decorator."""
    _INTERNAL[cls] = None if names is None else frozenset(names)
    _INTERNAL_MRO_CACHE.clear()
    return cls


def register_curated_types(namespace: Mapping[str, Any], module: str) -> None:
    """Record the classes a curated module file ``module`` defines (read from its namespace
    at import time, before any guest code can hold them)."""
    for value in list(namespace.values()):
        if isinstance(value, type) and value not in _GUEST and value.__dict__.get("__module__") == module:
            _CURATED.add(value)


# -- questions ---------------------------------------------------------------------------------
def _internal_owner(cls: type) -> type | None:
    known = _INTERNAL_MRO_CACHE.get(cls)
    if known is not None:
        return known[0]
    if cls in _GUEST:
        # a guest class never derives from an interpreter type; and it is never cached here:
        # a process-wide cache keyed by it would keep it, its methods and through their globals
        # its run's namespace alive after the run
        return None
    owner = next((k for k in cls.__mro__ if k in _INTERNAL), None)
    _INTERNAL_MRO_CACHE.set(cls, (owner,))
    return owner


# Read-only view for the two hot paths that inline ``is_guest_class`` (attribute reads and
# host-to-guest call arguments); only ``register_guest_class`` writes it.
GUEST_REFS = _GUEST_REFS = _GUEST._refs


def is_guest_class(cls: object) -> bool:
    """A class built for guest code (by a ``class`` statement or a curated factory)."""
    ref = _GUEST_REFS.get(id(cls))
    return ref is not None and ref() is cls


def is_internal_type(cls: type) -> bool:
    """An interpreter-made guest-facing type (functions, generators, cells ...)."""
    if cls in _INTERNAL:
        return True
    return type(cls) is type and _internal_owner(cls) is not None


def is_interpreter_type(cls: type) -> bool:
    """What the old mark meant: a guest class or an interpreter-made type."""
    return cls in _GUEST or is_internal_type(cls)


def is_guest_object(obj: object) -> bool:
    """An object whose type the guest's code or the interpreter made (``type(obj)`` is exact:
    ``__class__`` assignment is refused by the membrane)."""
    tp = type(obj)
    ref = _GUEST_REFS.get(id(tp))
    if ref is not None and ref() is tp:
        return True
    return tp in _INTERNAL or is_internal_type(tp)


def is_guest_made(value: object) -> bool:
    """``value`` is a guest/interpreter object, or a class the guest's code built."""
    return is_guest_object(value) or value in _GUEST


def internal_names(cls: type) -> frozenset[str] | None:
    """The names guest code may read on instances of interpreter type ``cls`` (None: defaults)."""
    owner = cls if cls in _INTERNAL else _internal_owner(cls)
    return None if owner is None else _INTERNAL[owner]


def is_curated_type(cls: type) -> bool:
    """A class defined by a curated module file (its instances are safe-eval's own wrappers)."""
    return cls in _CURATED
