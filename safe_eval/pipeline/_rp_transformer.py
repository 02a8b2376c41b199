"""RestrictedPython's ``transformer`` module without the package's ``__init__``.

Why: the restrict stage needs only ``RestrictedPython.transformer`` (the rule base class and
``INSPECT_ATTRIBUTES``), but importing any submodule runs the package ``__init__``, which
imports RP's whole runtime (``compile``, ``Guards``, ``Utilities``, ``Eval``) and with it
``platform`` and ``random``: about 5 ms of a cold start whose goal is 50 ms, for code safe-eval
never calls. The transformer's only package-relative dependency is ``RestrictedPython._types``
(type aliases).

So, when the host has not imported RestrictedPython already, this module executes RP's own
``_types.py`` and ``transformer.py`` files, unchanged, as modules of their real names, with
``_types`` visible in ``sys.modules`` only while ``transformer`` executes (its
``from RestrictedPython._types import ...`` resolves from there without the parent package).
Neither stays in ``sys.modules``: a later ``import RestrictedPython`` by the host loads the
package normally (its own copy of the classes). If anything differs from that expectation (a
future RP importing more of its package), the normal import is used.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from importlib.machinery import PathFinder
from types import ModuleType

__all__ = ["load"]

_PACKAGE = "RestrictedPython"


def load() -> ModuleType:
    """The ``RestrictedPython.transformer`` module."""
    if _PACKAGE not in sys.modules:
        try:
            module = _load_standalone()
        except Exception:  # any surprise: the ordinary import below
            module = None
        if module is not None:
            return module
    return importlib.import_module(f"{_PACKAGE}.transformer")


def _load_standalone() -> ModuleType | None:
    spec = importlib.util.find_spec(_PACKAGE)  # a top-level name: found, not executed
    if spec is None or not spec.submodule_search_locations:
        return None
    path = list(spec.submodule_search_locations)
    names = (f"{_PACKAGE}._types", f"{_PACKAGE}.transformer")
    if any(name in sys.modules for name in names):
        return None
    before = set(sys.modules)
    loaded: list[ModuleType] = []
    try:
        for name in names:
            sub = PathFinder.find_spec(name, path)
            if sub is None or sub.loader is None:
                return None
            module = importlib.util.module_from_spec(sub)
            sys.modules[name] = module
            sub.loader.exec_module(module)
            loaded.append(module)
    finally:
        for name in names:
            sys.modules.pop(name, None)
    if _PACKAGE in sys.modules or any(m.startswith(_PACKAGE + ".") for m in set(sys.modules) - before):
        return None  # the transformer imported more of its package: use the ordinary import
    return loaded[-1]
