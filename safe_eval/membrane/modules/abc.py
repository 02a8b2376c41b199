"""Curated ``abc``: ABC, ABCMeta and the abstract decorators.

Guest classes subclass ``ABC`` (registered as subclassable); ``ABCMeta`` collects the
methods flagged by ``abstractmethod`` and ``object.__new__`` refuses to instantiate a class
that still has abstract methods, with CPython's own TypeError.
"""

from __future__ import annotations

import abc
from typing import Any

from safe_eval.interpreter.identity import is_guest_object
from safe_eval.membrane.modules._util import pick


def abstractmethod(funcobj: Any) -> Any:
    """``abc.abstractmethod`` for guest functions (and classmethod/staticmethod/property
    around them) only: it sets an attribute on its argument."""
    if not (is_guest_object(funcobj) or type(funcobj) in (classmethod, staticmethod)):
        raise TypeError("abstractmethod() can only decorate functions defined in guest code")
    funcobj.__isabstractmethod__ = True
    return funcobj


def build() -> dict[str, Any]:
    # ABCMeta is left out: calling a metaclass builds a class from an arbitrary namespace,
    # around the class builder's dunder allowlist
    attrs = pick(abc, ["ABC"])
    attrs["abstractmethod"] = abstractmethod
    return attrs
