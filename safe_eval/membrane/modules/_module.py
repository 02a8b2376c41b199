"""The curated module object handed to the guest in place of a host module.

A ``CuratedModule`` is an immutable namespace over an allowlist (its mutable containers frozen
at construction, so nothing it holds is writable and shared between evaluations): reading a name outside it
raises ``AttributeError`` (every other attribute, dunders included, is refused by
``__getattribute__`` itself, so the wrapper is safe even before the membrane's own rules),
and writes or deletes are refused. It never holds or reveals the host module it curates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CuratedModule"]


def _frozen(module: str, key: str, value: Any) -> Any:
    """A module-level value every evaluation shares must not be writable: a mutable container
    is handed out as its immutable twin (``hashlib.algorithms_available`` is the host module's
    own set: ``.add()`` would change it for the host and every later evaluation)."""
    tp = type(value)
    if tp is set:
        return frozenset(value)
    if tp is list:
        return tuple(value)
    if tp is bytearray:
        return bytes(value)
    if tp is dict:
        raise TypeError(f"curated module '{module}' exports a mutable dict '{key}': export an immutable copy")
    return value


class CuratedModule:
    __slots__ = ("_se_name", "_se_attrs")

    def __init__(self, name: str, attrs: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_se_name", name)
        frozen = {key: _frozen(name, key, value) for key, value in attrs.items()}
        object.__setattr__(self, "_se_attrs", frozen)

    def __getattribute__(self, name: str) -> Any:
        attrs: dict[str, Any] = object.__getattribute__(self, "_se_attrs")
        try:
            return attrs[name]
        except KeyError:
            pass
        modname = object.__getattribute__(self, "_se_name")
        # The message names the module only: no host object is attached to the error.
        raise AttributeError(f"module '{modname}' has no attribute '{name}'")

    def __setattr__(self, name: str, value: object) -> None:
        modname = object.__getattribute__(self, "_se_name")
        raise AttributeError(f"cannot set '{name}': module '{modname}' (curated) is read-only")

    def __delattr__(self, name: str) -> None:
        modname = object.__getattribute__(self, "_se_name")
        raise AttributeError(f"cannot delete '{name}': module '{modname}' (curated) is read-only")

    def __repr__(self) -> str:
        return f"<module '{object.__getattribute__(self, '_se_name')}' (curated)>"

    def __dir__(self) -> list[str]:
        return sorted(object.__getattribute__(self, "_se_attrs"))

    def __safe_eval_getattr__(self, name: str) -> Any:
        """The membrane's hook: a guest ``module.name`` read (the allowlist, nothing else)."""
        return CuratedModule.__getattribute__(self, name)

    # Host-side helpers (not reachable from the guest: ``__getattribute__`` refuses them).
    @staticmethod
    def name_of(module: CuratedModule) -> str:
        name: str = object.__getattribute__(module, "_se_name")
        return name
