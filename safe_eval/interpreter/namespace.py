"""The guest's module namespace for a caller's ``env`` dict, kept across evaluations.

Guest functions hold their module namespace (like ``__globals__``), so a REPL loop over one
``env`` dict must reuse one guest namespace: a function defined in one call sees names bound
or rebound in later calls, as with ``exec(code, globals)``. The guest namespace holds the
*entered* values (``membrane.enter_value``), never the caller's raw host objects, so it is a
separate dict kept in sync with ``env`` in both directions:

    before a run   names the caller added, rebound or deleted in ``env`` are entered again
    after a run    names the guest bound, rebound or deleted are written back to ``env``

``pairs[name] = (env value, guest value)`` records what each side held after the last sync.
A bounded registry (most recently used ``env`` dicts) keeps the namespaces; an evicted
``env`` simply starts a fresh namespace on its next use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["GuestNamespace", "NamespaceRegistry"]

_MISSING: Any = object()


class GuestNamespace:
    __slots__ = ("env", "g", "pairs")

    def __init__(self, env: Mapping[str, Any] | None) -> None:
        self.env = env
        self.g: dict[str, Any] = {}
        self.pairs: dict[str, tuple[Any, Any]] = {}

    def sync_in(self, enter: Callable[..., Any], policy: Any) -> None:
        """Enter (``enter(value, policy, name=key)``) what ``env`` holds that the guest side
        lacks. The key is the name a callable is a tool under: policy rules name env keys, not
        the function's own ``__name__``."""
        env, g, pairs = self.env, self.g, self.pairs
        if env is None:
            return
        for k, v in env.items():
            if not isinstance(k, str):
                raise TypeError(f"env keys must be str, not {type(k).__name__}")
            known = pairs.get(k)
            if known is not None and known[0] is v and g.get(k, _MISSING) is known[1]:
                continue
            entered = enter(v, policy, name=k)
            g[k] = entered
            pairs[k] = (v, entered)
        if len(pairs) > len(env):
            for k in [k for k in pairs if k not in env]:
                del pairs[k]
                g.pop(k, None)

    def sync_out(self) -> None:
        env, g, pairs = self.env, self.g, self.pairs
        if not isinstance(env, dict):
            return
        for k, v in g.items():
            known = pairs.get(k)
            if known is not None and known[1] is v:
                continue
            env[k] = v
            pairs[k] = (v, v)
        if len(pairs) > len(g):
            for k in [k for k in pairs if k not in g]:
                del pairs[k]
                env.pop(k, None)

    def names(self) -> frozenset[str]:
        return frozenset(self.g) if self.g else frozenset()


class NamespaceRegistry:
    """The guest namespaces of the most recently used ``env`` dicts (strong references to at
    most ``size`` of them)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        # id(env) -> namespace, least recently used first (a plain dict: a hit moves its entry
        # to the end, the first entry is the one evicted; cheaper than an OrderedDict)
        self._spaces: dict[int, GuestNamespace] = {}

    def for_env(self, env: Mapping[str, Any] | None) -> GuestNamespace:
        if type(env) is not dict and not isinstance(env, dict):
            return GuestNamespace(env)
        spaces = self._spaces
        key = id(env)
        ns = spaces.pop(key, None)
        if ns is None or ns.env is not env:
            ns = GuestNamespace(env)
            if len(spaces) >= self.size:
                del spaces[next(iter(spaces))]
        spaces[key] = ns
        return ns
