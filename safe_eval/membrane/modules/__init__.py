"""Curated module wrappers: what ``import x`` gives guest code.

    import_module(name, policy) -> CuratedModule

A module is importable only when it is curated here (``CURATED``) AND the policy names it in
``policy.imports`` (a dotted name such as ``collections.abc`` is allowed when it or its parent
is named). Anything else raises a guest-visible ``ImportError`` whose message lists what is
allowed, so a model can fix its code.

Each curated module is one file in this package exporting ``build() -> dict[str, Any]``: the
allowlist of names the guest sees. Files load lazily on first import and the wrapper is cached
(files setting ``PER_RUN = True``, e.g. ``random`` whose state must not be shared between
evaluations, build one wrapper per evaluation; those that also export ``guest_attrs()``, the
guest standard library's modules, build their host attributes once and only their guest-stdlib
functions per evaluation, see ``safe_eval/guestlib``). The limits package's
``GUARDED_MODULE_ATTRS`` replace ours, then every host callable is metered
(``_metering.py``): a host C loop over guest data always ticks.
"""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Any

from safe_eval.interpreter.identity import register_curated_types
from safe_eval.membrane.admission import register_guest_visible
from safe_eval.membrane.modules._module import CuratedModule

__all__ = ["CURATED", "CuratedModule", "import_module", "register_subclassable"]

# module name -> file in this package implementing it
_FILES: dict[str, str] = {
    "math": "math",
    "cmath": "cmath",
    "re": "re",
    "json": "json",
    "string": "string",
    "itertools": "itertools",
    "functools": "functools",
    "operator": "operator",
    "collections": "collections",
    "collections.abc": "collections_abc",
    "heapq": "heapq",
    "bisect": "bisect",
    "statistics": "statistics",
    "fractions": "fractions",
    "decimal": "decimal",
    "datetime": "datetime",
    "random": "random",
    "copy": "copy",
    "typing": "typing",
    "dataclasses": "dataclasses",
    "enum": "enum",
    "abc": "abc",
    "contextlib": "contextlib",
    "textwrap": "textwrap",
    "time": "time",
    "hashlib": "hashlib",
    "base64": "base64",
    "uuid": "uuid",
    "asyncio": "asyncio",
}

CURATED: frozenset[str] = frozenset(_FILES)

_cache: dict[str, CuratedModule] = {}
_lock = threading.Lock()


def _not_allowed(name: str, allowed: frozenset[str]) -> ImportError:
    names = ", ".join(sorted(allowed)) or "none"
    return ImportError(f"import of '{name}' is not allowed (allowed modules: {names})")


def _permitted(name: str, imports: frozenset[str]) -> bool:
    if name in imports:
        return True
    parent = name.rpartition(".")[0]
    return bool(parent) and parent in imports


def _policy_imports(policy: Any) -> frozenset[str]:
    if policy is None:
        from safe_eval.context import current_context

        ctx = current_context()
        policy = ctx.policy if ctx is not None else None
    if policy is None:
        from safe_eval.policy.model import default_policy

        policy = default_policy()
    return frozenset(getattr(policy, "imports", ()))


def import_module(name: str, policy: Any = None) -> CuratedModule:
    """The curated wrapper of ``name`` if ``policy`` allows it, else a guest-visible ImportError."""
    imports = _policy_imports(policy)
    if not isinstance(name, str) or name not in CURATED or not _permitted(name, imports):
        raise _not_allowed(str(name), frozenset(n for n in CURATED if _permitted(n, imports)))
    cached = _cache.get(name)
    if cached is not None:
        return cached
    impl = importlib.import_module(f"{__name__}.{_FILES[name]}")
    _register_once()
    if getattr(impl, "PER_RUN", False):
        return _per_run(name, impl)
    with _lock:
        cached = _cache.get(name)
        if cached is None:
            attrs = _merge_guards(name, impl.build())
            register_guest_visible(attrs.values())  # cached for the process: known by identity
            cached = _cache[name] = CuratedModule(name, attrs)
    _register_curated_classes()
    return cached


def _per_run(name: str, impl: Any) -> CuratedModule:
    """One wrapper per evaluation (kept in the run context), or a fresh one outside a run."""
    from safe_eval.context import current_context

    ctx = current_context()
    key = f"safe_eval.module:{name}"
    if ctx is not None and key in ctx.extra:
        module: CuratedModule = ctx.extra[key]
        return module
    module = CuratedModule(name, _run_attrs(name, impl))
    _register_curated_classes()
    if ctx is not None:
        ctx.extra[key] = module
    return module


_scanned: set[str] = set()


def _register_curated_classes() -> None:
    """Record (by identity, in ``interpreter.identity``) the classes each loaded file of this
    package defines: their instances are safe-eval's own wrappers. Files load only here, from
    host code, so a scan sees them before guest code holds any of their objects."""
    prefix = __name__ + "."
    for modname, module in list(sys.modules.items()):
        if modname.startswith(prefix) and modname not in _scanned and module is not None:
            _scanned.add(modname)
            register_curated_types(vars(module), modname)


# module name -> its host attributes, merged and metered once (modules with ``guest_attrs``)
_host_parts: dict[str, dict[str, Any]] = {}


def _run_attrs(name: str, impl: Any) -> dict[str, Any]:
    """A per-run module's attributes. A module of the guest standard library builds its host
    attributes once (``build()``, immutable host objects) and its guest-stdlib functions for
    each run (``guest_attrs()``, from ``safe_eval.guestlib.load``)."""
    guest_attrs = getattr(impl, "guest_attrs", None)
    if guest_attrs is None:
        attrs = _merge_guards(name, impl.build())
        # the classes it hands out live as long as the process: ``type(x)`` of their instances
        # is the class itself (typeview.reveal_type)
        register_guest_visible(v for v in attrs.values() if isinstance(v, type))
        return attrs
    host = _host_parts.get(name)
    if host is None:
        with _lock:
            host = _host_parts.get(name)
            if host is None:
                host = _host_parts[name] = _merge_guards(name, impl.build())
                register_guest_visible(host.values())  # built once: known by identity
    return {**host, **guest_attrs()}


def _merge_guards(name: str, attrs: dict[str, Any]) -> dict[str, Any]:
    """Use the limits package's guarded callables in place of ours where it has one."""
    from safe_eval.limits.guards import GUARDED_MODULE_ATTRS
    from safe_eval.membrane.modules._metering import meter_attrs

    for attr, guarded in GUARDED_MODULE_ATTRS.get(name, {}).items():
        if attr in attrs:
            attrs[attr] = guarded
    # every host C loop over guest data is metered (SCALAR_ONLY: numeric functions left fast)
    impl = importlib.import_module(f"{__name__}.{_FILES[name]}")
    return meter_attrs(attrs, getattr(impl, "SCALAR_ONLY", ()))


_registered = False


def _register_once() -> None:
    global _registered
    if not _registered:
        _registered = True
        register_subclassable()


def register_subclassable() -> None:
    """Register the host classes guest classes may derive from (abc.ABC, enums, ...) with the
    interpreter's class builder."""
    from safe_eval.interpreter.classes import allow_subclassing
    from safe_eval.membrane.modules._subclassable import subclassable_classes

    allow_subclassing(subclassable_classes())


_register_curated_classes()
