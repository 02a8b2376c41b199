"""Curated ``functools``.

``total_ordering``, ``wraps`` and ``update_wrapper`` read and write attributes of the objects
they are given: they are guest-stdlib code (``safe_eval/guestlib/functools.py``), so they act
with the guest's rights. ``reduce``, ``lru_cache``, ``cache`` and ``cmp_to_key`` are the host's
C implementations: leaves that only call the callable they were handed (a guest call, under the
budget) and hash/compare arguments as any dict would; ``partial`` is the C one with a call that
enters its arguments first (a partial is handed to host code, which calls it with its own).
``cached_property`` is a host descriptor that only works on instances of guest classes. Left
out: ``singledispatch`` (it evaluates annotations with ``get_type_hints``) and ``partialmethod``.

One namespace per evaluation (``PER_RUN``): the guest-stdlib functions are not shared.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.identity import is_guest_class
from safe_eval.membrane.modules._util import pick

PER_RUN = True
_MISSING = object()


class cached_property:
    """A non-data descriptor caching the first result in the instance ``__dict__``; the
    instance must be one of a guest class (its ``__dict__`` is then the guest's own data)."""

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
        if not is_guest_class(type(instance)):  # pragma: no cover
            # every class guest code can put a descriptor on is a guest class (dynamic, enum,
            # namedtuple and dataclass ones included); this keeps the cache out of host objects
            raise TypeError("cached_property only works on instances of classes defined in guest code")
        cache = object.__getattribute__(instance, "__dict__")  # the instance's own dict, no hook
        value = cache.get(self.attrname, _MISSING)
        if value is _MISSING:
            value = self.func(instance)
            cache[self.attrname] = value
        return value


class partial(functools.partial):  # type: ignore[type-arg]
    """``functools.partial`` whose call enters its arguments (invariant 1, as
    ``membrane/stored.py`` does for C methods): the guest binds any callable it holds
    (``partial(list.append, inbox)``, ``partial(operator.setitem, box, 'k')``) and hands the
    partial to host code, which calls it with host objects that would land raw in guest state."""

    __slots__ = ()
    __module__ = "functools"

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        from safe_eval.context import current_context
        from safe_eval.membrane.crossing import enter_call_args

        ctx = current_context()
        args, kw = enter_call_args(args, kwargs or None, None if ctx is None else ctx.policy)
        return super().__call__(*args, **(kw or {}))

    def __repr__(self) -> str:
        # 3.13's repr names ``type(self).__module__`` (set below); earlier ones the bare name
        shown = super().__repr__()
        return shown if shown.startswith("functools.") else "functools." + shown


def build() -> dict[str, Any]:
    """The host part, built once."""
    from safe_eval.membrane.modules._hosttypes import allow

    allow(type(functools.lru_cache()(len)), ["cache_info", "cache_clear", "cache_parameters"])
    # what ``cache_info()`` returns: a namedtuple of four ints
    allow(functools._CacheInfo, ["hits", "misses", "maxsize", "currsize"])
    attrs = pick(functools, ["reduce", "lru_cache", "cache", "cmp_to_key"])
    attrs["cached_property"] = cached_property
    attrs["partial"] = partial
    return attrs


def guest_attrs() -> dict[str, Any]:
    """The guest-stdlib functions (and their default tuples) of this run."""
    from safe_eval.guestlib import load

    namespace = load("functools")
    return {name: namespace[name] for name in
            ("wraps", "total_ordering", "update_wrapper", "WRAPPER_ASSIGNMENTS", "WRAPPER_UPDATES")}
