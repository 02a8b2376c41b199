"""Which side made an object: the guest, the interpreter on the guest's behalf, or the host.

``marks.mark`` tags both guest-defined classes and the interpreter's guest-facing types
(functions, bound methods, generators, coroutines). They must be told apart: a guest may read
``_private`` attributes of its own objects, never the interpreter's ``_``-prefixed internals.
Interpreter types are recognised by their module (``safe_eval.interpreter.*``) or by
``register_internal_type``; every other marked class is guest-defined.
"""

from __future__ import annotations

from collections.abc import Iterable

from safe_eval.interpreter.marks import MARK, TOKEN

__all__ = [
    "INTERNAL_NAMES",
    "is_guest_defined_type",
    "is_internal_type",
    "register_internal_type",
]

_INTERNAL_PREFIX = "safe_eval.interpreter"

# Registered interpreter types -> the names the guest may read on their instances
# (None: the defaults in allowlists.INTERNAL_PUBLIC / INTERNAL_DUNDERS).
INTERNAL_NAMES: dict[type, frozenset[str] | None] = {}


def register_internal_type(cls: type, names: Iterable[str] | None = None) -> type:
    """Declare ``cls`` an interpreter-made guest-facing type whose instances expose only
    ``names`` (or the defaults). Usable as a class decorator."""
    INTERNAL_NAMES[cls] = None if names is None else frozenset(names)
    _CACHE.clear()
    return cls


def _module_of(cls: type) -> str:
    module = cls.__dict__.get("__module__", "")
    return module if isinstance(module, str) else ""


# Classification cache (types are few; bounded so guest classes made in a loop cannot grow it).
_CACHE: dict[type, bool] = {}
_CACHE_MAX = 4096


def is_internal_type(cls: type) -> bool:
    """A marked class made by the interpreter itself (not by guest code)."""
    known = _CACHE.get(cls)
    if known is not None:
        return known
    result = getattr(cls, MARK, None) is TOKEN and any(
        klass in INTERNAL_NAMES or _module_of(klass).startswith(_INTERNAL_PREFIX) for klass in cls.__mro__
    )
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[cls] = result
    return result


def is_guest_defined_type(cls: type) -> bool:
    """A class the guest's own code defined (marked, not an interpreter type)."""
    return getattr(cls, MARK, None) is TOKEN and not is_internal_type(cls)
