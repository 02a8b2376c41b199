"""Curated ``functools``.

Host ``reduce``, ``partial``, ``lru_cache``, ``cache``, ``cmp_to_key`` and ``total_ordering``
are used as they are (they only call what they are given). Ours: ``wraps``/``update_wrapper``
(copy only the naming attributes, never a host object's ``__dict__``) and ``cached_property``
(no host lock the guest could hold). Left out: ``singledispatch`` (it evaluates annotations
with ``get_type_hints``) and ``partialmethod``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.identity import is_guest_class, is_guest_object
from safe_eval.membrane.modules._util import pick

WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__")
_MISSING = object()


def update_wrapper(wrapper: Any, wrapped: Any, assigned: Any = WRAPPER_ASSIGNMENTS,
                   updated: Any = ("__dict__",)) -> Any:
    if not is_guest_object(wrapper):
        raise TypeError("update_wrapper()/wraps() can only update functions defined in guest code")
    for attr in WRAPPER_ASSIGNMENTS:
        if attr not in assigned:
            continue
        value = getattr(wrapped, attr, _MISSING)
        if value is not _MISSING and (value is None or isinstance(value, str)):
            try:
                setattr(wrapper, attr, value)
            except (AttributeError, TypeError):
                pass
    if "__dict__" in updated and is_guest_object(wrapped) and is_guest_object(wrapper):
        src = getattr(wrapped, "__dict__", None)
        dst = getattr(wrapper, "__dict__", None)
        if isinstance(src, dict) and isinstance(dst, dict):
            dst.update(src)
    try:
        wrapper.__wrapped__ = wrapped
    except (AttributeError, TypeError):
        pass
    return wrapper


def wraps(wrapped: Any, assigned: Any = WRAPPER_ASSIGNMENTS,
          updated: Any = ("__dict__",)) -> Callable[[Any], Any]:
    def decorate(wrapper: Any) -> Any:
        return update_wrapper(wrapper, wrapped, assigned, updated)

    return decorate


def total_ordering(cls: Any) -> Any:
    """``functools.total_ordering`` for guest classes only (it sets attributes on ``cls``)."""
    if not (isinstance(cls, type) and is_guest_class(cls)):
        raise TypeError("total_ordering() can only decorate classes defined in guest code")
    return functools.total_ordering(cls)


class cached_property:
    """A non-data descriptor caching the first result in the instance ``__dict__``."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func
        self.attrname: str | None = None

    def __set_name__(self, owner: type, name: str) -> None:
        if self.attrname is None:
            self.attrname = name
        elif name != self.attrname:
            raise TypeError("Cannot assign the same cached_property to two different names "
                            f"({self.attrname!r} and {name!r}).")

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        if self.attrname is None:
            raise TypeError("Cannot use cached_property instance without calling __set_name__ on it.")
        cache = getattr(instance, "__dict__", None)
        if not isinstance(cache, dict):
            raise TypeError(f"No '__dict__' attribute on {type(instance).__name__!r} "
                            f"instance to cache {self.attrname!r} property.")
        value = cache.get(self.attrname, _MISSING)
        if value is _MISSING:
            value = self.func(instance)
            cache[self.attrname] = value
        return value


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow

    allow(type(functools.lru_cache()(len)), ["cache_info", "cache_clear", "cache_parameters"])
    attrs = pick(functools, ["reduce", "partial", "lru_cache", "cache", "cmp_to_key"])
    attrs.update(wraps=wraps, total_ordering=total_ordering, update_wrapper=update_wrapper,
                 cached_property=cached_property,
                 WRAPPER_ASSIGNMENTS=WRAPPER_ASSIGNMENTS, WRAPPER_UPDATES=("__dict__",))
    return attrs
