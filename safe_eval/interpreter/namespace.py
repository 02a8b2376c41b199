"""The guest's module namespace for a caller's ``env`` dict, kept across evaluations.

Guest functions hold their module namespace (like ``__globals__``), so a REPL loop over one
``env`` dict must reuse one guest namespace: a function defined in one call sees names bound
or rebound in later calls, as with ``exec(code, globals)``. The guest namespace holds the
*entered* values (``membrane.enter_value``), never the caller's raw host objects, so it is a
separate dict kept in sync with ``env`` in both directions:

    before a run   names the caller added, rebound or deleted in ``env`` are entered again
    after a run    names the guest bound, rebound or deleted are written back to ``env``

``pairs[name] = (env value, guest value)`` records what each side held after the last sync.

The registry holds the namespaces weakly: nothing outlives a run unless the host keeps it. A
namespace lives while a guest object made in a run on it lives (a function, class or generator
in ``env`` or returned, whose globals it is: each holds its run's ``Origin``, which keeps the
namespace); with none left, the next run on the same ``env`` simply enters its values into a
fresh namespace, which holds the same names. ``g`` stays a plain ``dict``: every global load
and store of guest code indexes it, and CPython's fast path for that is for exact dicts.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["GuestNamespace", "NamespaceRegistry"]

_MISSING: Any = object()


class GuestNamespace:
    __slots__ = ("env", "g", "pairs", "__weakref__")

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
    """The guest namespaces of the ``env`` dicts in use, held weakly (``id(env)`` -> a weak
    reference to the namespace; ``env`` itself, a dict, cannot be referred to weakly)."""

    def __init__(self) -> None:
        self._spaces: dict[int, weakref.ref[GuestNamespace]] = {}
        # dead references are swept when the registry has doubled since the last sweep: no
        # weakref callback, so no Python code runs when a namespace dies (the collector may
        # free one in the middle of a run, where a watchdog interrupt must never land)
        self._sweep_at = _FIRST_SWEEP

    def for_env(self, env: Mapping[str, Any] | None) -> GuestNamespace:
        if type(env) is not dict and not isinstance(env, dict):
            return GuestNamespace(env)
        spaces = self._spaces
        key = id(env)
        ref = spaces.get(key)
        ns = ref() if ref is not None else None
        if ns is not None and ns.env is env:
            return ns
        ns = GuestNamespace(env)
        spaces[key] = weakref.ref(ns)
        if len(spaces) >= self._sweep_at:
            for k in [k for k, r in spaces.items() if r() is None]:
                del spaces[k]
            self._sweep_at = max(_FIRST_SWEEP, 2 * len(spaces))
        return ns


_FIRST_SWEEP = 64
