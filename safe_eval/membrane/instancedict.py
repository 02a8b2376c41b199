"""``obj.__dict__`` and ``vars(obj)`` of a guest instance: a view that refuses dunder keys.

The real instance dict would let guest code install any dunder on its object after class
creation (``vars(o)["__reduce_ex__"] = f`` and ``copy.copy(o)`` runs it with host rights;
``__class__`` and ``__dict__`` keys confuse every host routine that reads them). The view
reads like the dict, and every write first asks ``check(key)``, the membrane's own rule for
``setattr`` (so the two paths cannot disagree), after refusing dunder keys outright; the value
is stored as ``setattr`` stores it (``stored.stored_value``: a host callable behind a door).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from safe_eval.membrane.stored import stored_value, unwrap

__all__ = ["InstanceDict", "plain_result"]

_MISSING: Any = object()


def _is_dunder(key: object) -> bool:
    return type(key) is str and len(key) > 4 and key[:2] == "__" and key[-2:] == "__"


class InstanceDict:
    """The guest's view of one instance's ``__dict__``."""

    __slots__ = ("_d", "_check")

    def __init__(self, d: dict[str, Any], check: Callable[[str], None]) -> None:
        self._d = d
        self._check = check

    def _key(self, key: object) -> str:
        if type(key) is not str:
            raise TypeError(f"attribute name must be string, not '{type(key).__name__}'")
        if _is_dunder(key):
            raise TypeError(f"cannot set '{key}' through __dict__ in safe-eval: dunder names are "
                            "defined in the class statement")
        self._check(key)
        return key

    # -- reading: the dict's own answers (what the guest stored: ``unwrap``) -------------------
    def __getitem__(self, key: object) -> Any:
        return unwrap(self._d[key])  # type: ignore[index]

    def __contains__(self, key: object) -> bool:
        return key in self._d

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._d))

    def __len__(self) -> int:
        return len(self._d)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, InstanceDict):
            other = other._d
        return type(other) is dict and self._d == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._d)

    def get(self, key: object, default: Any = None) -> Any:
        return unwrap(self._d.get(key, default))  # type: ignore[call-overload]

    def keys(self) -> list[str]:
        return list(self._d.keys())

    def values(self) -> list[Any]:
        return [unwrap(v) for v in self._d.values()]

    def items(self) -> list[tuple[str, Any]]:
        return [(k, unwrap(v)) for k, v in self._d.items()]

    def copy(self) -> dict[str, Any]:
        return {k: unwrap(v) for k, v in self._d.items()}

    # -- writing: every key checked first ---------------------------------------------------
    def __setitem__(self, key: object, value: Any) -> None:
        self._d[self._key(key)] = stored_value(value)

    def __delitem__(self, key: object) -> None:
        del self._d[self._key(key)]

    def setdefault(self, key: object, default: Any = None) -> Any:
        if key in self._d:
            return unwrap(self._d[key])
        self._d[self._key(key)] = stored_value(default)
        return default

    def pop(self, key: object, default: Any = _MISSING) -> Any:
        if key not in self._d:
            if default is _MISSING:
                raise KeyError(key)
            return default
        return unwrap(self._d.pop(self._key(key)))

    def update(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > 1:
            raise TypeError(f"update expected at most 1 argument, got {len(args)}")
        pairs: list[tuple[Any, Any]] = []
        if args:
            src: Any = args[0]
            if isinstance(src, InstanceDict):
                src = src._d
            pairs.extend(src.items() if type(src) is dict else src)
        pairs.extend(kwargs.items())
        checked = [(self._key(k), stored_value(v)) for k, v in pairs]  # all or nothing
        self._d.update(checked)

    def clear(self) -> None:
        for key in list(self._d):
            self._key(key)
        self._d.clear()

    _METHODS = frozenset({"get", "keys", "values", "items", "copy", "setdefault", "pop", "update", "clear"})

    def __safe_eval_getattr__(self, name: str) -> Any:
        if name in InstanceDict._METHODS:
            return getattr(self, name)
        raise AttributeError(f"'dict' attribute '{name}' is not accessible in safe-eval")


def plain_result(value: Any) -> Any:
    """A run's result as the host receives it: a view is the guest's handle on its object's
    dict, the host gets the dict's plain copy (also as an item of a returned tuple or list)."""
    tp = type(value)
    if tp is InstanceDict:
        return dict(value._d)
    if (tp is tuple or tp is list) and any(type(v) is InstanceDict for v in value):
        return tp(dict(v._d) if type(v) is InstanceDict else v for v in value)
    return value
