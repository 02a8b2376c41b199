"""The guest's module namespace for a caller's ``env`` dict, kept across evaluations.

Guest functions hold their module namespace (like ``__globals__``), so a REPL loop over one
``env`` dict must reuse one guest namespace: a function defined in one call sees names bound
or rebound in later calls, as with ``exec(code, globals)``. The guest namespace holds the
*entered* values (``membrane.enter_value``), never the caller's raw host objects, so it is a
separate dict kept in sync with ``env`` in both directions:

    before a run   names the caller added, rebound or deleted in ``env`` are entered again
    after a run    names the guest bound, rebound or deleted are written back to ``env``

``pairs[name] = (env value, guest value)`` records what each side held after the last sync.

Tools are not state. The host's ``tools=`` are entered beneath ``env`` for each run
(``sync_tools``): a name ``env`` holds (the host's data, or a function the guest defined in an
earlier step) is never shadowed by a tool, and a tool is never written back into ``env``;
``tools[name] = (host callable, entered Tool)``. A name the guest binds is session data, never a
tool, even when it rebinds a tool's name.

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
    __slots__ = ("env", "g", "pairs", "tools", "__weakref__")

    def __init__(self, env: Mapping[str, Any] | None) -> None:
        self.env = env
        self.g: dict[str, Any] = {}
        self.pairs: dict[str, tuple[Any, Any]] = {}
        self.tools: dict[str, tuple[Any, Any]] = {}

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

    def sync_tools(self, tools: Mapping[str, Any] | None, enter_tool: Callable[..., Any],
                   policy: Any) -> None:
        """Give this run the host's ``tools`` (``enter_tool(fn, policy, name)``) under the names
        ``env`` and the guest's earlier bindings leave free; take away the previous run's."""
        held = self.tools
        if not tools and not held:
            return
        g = self.g
        now: dict[str, tuple[Any, Any]] = {}
        for k, fn in (tools or {}).items():
            known = held.get(k)
            if k in g and (known is None or g[k] is not known[1]):
                continue  # the session's own binding of this name wins
            entered = known[1] if known is not None and known[0] is fn else enter_tool(fn, policy, k)
            g[k] = entered
            now[k] = (fn, entered)
        for k, (_, entered) in held.items():
            if k not in now and g.get(k, _MISSING) is entered:
                del g[k]
        self.tools = now

    def bindings(self) -> dict[str, Any]:
        """The guest namespace without this run's tools (what ``safe_exec`` returns)."""
        tools, g = self.tools, self.g
        if not tools:
            return g
        return {k: v for k, v in g.items() if k not in tools or tools[k][1] is not v}

    def sync_out(self) -> None:
        env, g, pairs, tools = self.env, self.g, self.pairs, self.tools
        if not isinstance(env, dict):
            return
        for k, v in g.items():
            known = pairs.get(k)
            if known is not None and known[1] is v:
                continue
            if tools:
                tool = tools.get(k)
                if tool is not None and tool[1] is v:
                    continue  # a tool, not the session's state
            env[k] = v
            pairs[k] = (v, v)
        if len(pairs) > len(g) - len(tools):
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
        spaces[key] = weakref.ref(ns, _forget(spaces, key))
        return ns


def _forget(spaces: dict[int, weakref.ref[GuestNamespace]], key: int) -> Callable[[Any], None]:
    def drop(ref: Any) -> None:
        if spaces.get(key) is ref:  # not a newer namespace under a reused id
            del spaces[key]
    return drop
