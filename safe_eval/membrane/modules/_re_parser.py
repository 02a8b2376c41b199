"""CPython's regular-expression parser, in a private copy that reports ambiguity to its caller.

CPython's ``re`` warns (``FutureWarning``) about patterns whose meaning will change
(``[[a]``: a nested set; ``[a--b]``: a set difference). The curated ``re`` refuses them. The
only way CPython offers to see such a warning is the process-wide ``warnings.filters`` list
(``catch_warnings`` + ``simplefilter("error")``), which every thread shares: two runs
compiling at once restored each other's saved lists and left ``FutureWarning -> error`` in the
host's filters for good, and while a run compiled, the host's own FutureWarnings raised on
every thread. So no run code touches the warning filters: this module executes the parser's
source a second time, in a namespace whose ``import warnings`` yields a stand-in that raises
``AmbiguousPattern`` for a FutureWarning (and drops the rest: CPython's own compile of the
same pattern issues those as usual). The copy shares the real ``_constants`` module, so its
parse trees are the real parser's (``_regex_cost`` walks them).
"""

from __future__ import annotations

import builtins
import importlib.util
import re
import sys
import types
from typing import Any

__all__ = ["AmbiguousPattern", "parse", "template"]

_NAME = "re._parser" if sys.version_info >= (3, 11) else "sre_parse"


class AmbiguousPattern(Exception):
    """The pattern draws a FutureWarning from CPython's parser; the message is the warning's."""


def _warn(message: Any, category: Any = None, stacklevel: int = 1, source: Any = None) -> None:
    if isinstance(category, type) and issubclass(category, FutureWarning):
        raise AmbiguousPattern(str(message))


_WARNINGS = types.SimpleNamespace(warn=_warn)
_import = builtins.__import__


def _private_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                    level: int = 0) -> Any:
    if name == "warnings" and level == 0:
        return _WARNINGS
    return _import(name, globals, locals, fromlist, level)


def _load() -> types.ModuleType:
    spec = importlib.util.find_spec(_NAME)
    assert spec is not None and spec.loader is not None
    code = spec.loader.get_code(_NAME)  # type: ignore[attr-defined]
    module = types.ModuleType(f"{_NAME}<safe-eval>")
    # no __spec__: relative imports (3.11's ``from ._constants import *``) resolve by __package__
    module.__dict__.update(__package__=spec.parent, __spec__=None,
                           __builtins__={**builtins.__dict__, "__import__": _private_import})
    exec(code, module.__dict__)
    return module


_parser = _load()


def parse(pattern: str | bytes, flags: int) -> Any:
    """CPython's parse of ``pattern`` (a ``SubPattern``); ``AmbiguousPattern`` where CPython
    would warn, CPython's ``re.error`` where it would refuse."""
    return _parser.parse(pattern, flags)


def template(repl: str | bytes, pattern: re.Pattern[Any]) -> Any:
    """CPython's parse of a replacement template for ``pattern`` (its ``re.error`` for a bad
    one), uncached: ``Pattern.sub`` would keep both in CPython's template cache."""
    return _parser.parse_template(repl, pattern)
