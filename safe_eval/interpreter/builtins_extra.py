"""The builtins only the interpreter can provide, merged over ``membrane.BUILTINS`` once.

``super`` needs the ``__class__`` cell and the first argument (the compiler handles the
zero-argument form); ``print`` writes to the running budget's captured output.
"""

from __future__ import annotations

import functools
from types import MethodType
from typing import Any

from safe_eval import membrane
from safe_eval.interpreter.hostbases import consumed
from safe_eval.interpreter.identity import is_guest_made, is_guest_object
from safe_eval.limits.iteration import consume
from safe_eval.limits.routines import super_price
from safe_eval.membrane.admission import register_guest_visible
from safe_eval.membrane.dunders import DEFINABLE_DUNDERS
from safe_eval.membrane.stored import unwrap

__all__ = ["BUILTINS", "HOST_SUPER", "super_attr"]

HOST_SUPER = super


def _guest_self(obj: super) -> bool:
    s = getattr(obj, "__self__", None)
    return is_guest_made(s)


def super_attr(obj: super, name: str) -> Any:
    """``super().name``: dunders a guest class may define resolve along the MRO, but only
    when the instance is a guest object (``super(object, host_obj).__setattr__`` must not
    reach host objects); everything else goes through the membrane."""
    if name.startswith("__") and name in DEFINABLE_DUNDERS and _guest_self(obj):
        priced = super_price(obj, name)  # a host slot: its price (limits.routines)
        if priced is not None:
            if name == "__new__":  # a static method: the class to build is passed explicitly
                return priced
            return consuming(functools.partial(priced, obj.__self__))  # type: ignore[attr-defined]
        # a class-dict gate (``__getattr__``, ``__deepcopy__``: membrane/stored.py) is host
        # code's view; the guest calls its own function, as its other reads do
        attr = unwrap(getattr(obj, name))
        if name in ("__setattr__", "__delattr__"):
            return _dunder_guard(attr)
        return consuming(attr)
    return consuming(membrane.get_attr(obj, name))


def consuming(attr: Any) -> Any:
    """A host method reached through ``super()`` from a guest subclass of a host container
    (``super().__init__(it)``, ``super().update(it)``) may loop in C over its arguments: the
    guest gets it with every argument paid for (``limits.iteration.consume``). Guest methods
    and non-callables come back as they are."""
    if not callable(attr) or isinstance(attr, type):
        return attr
    if type(attr) is MethodType and is_guest_object(attr.__func__):
        return attr

    def call(*args: Any, **kwargs: Any) -> Any:
        return attr(*consumed(args), **{k: consume(v) for k, v in kwargs.items()})

    call.__name__ = call.__qualname__ = getattr(attr, "__name__", "method")
    return call


def _dunder_guard(fn: Any) -> Any:
    def guarded(name: Any, *rest: Any) -> Any:
        if not isinstance(name, str) or (name.startswith("__") and name.endswith("__")):
            raise AttributeError(f"cannot set or delete attribute {name!r}")
        return fn(name, *rest)
    return guarded


def _merged() -> dict[str, Any]:
    table: dict[str, Any] = dict(membrane.BUILTINS)
    # the membrane may supply a guarded ``super``; the zero-argument form calls whichever is
    # installed with (``__class__``, first argument)
    table.setdefault("super", HOST_SUPER)
    # the guest's code is the main program, as ``python file.py`` runs it: a builtin rather than
    # a global so it is never written back into the caller's env (restrict lets it be read only)
    table["__name__"] = "__main__"
    return table


BUILTINS: dict[str, Any] = _merged()
register_guest_visible(BUILTINS.values())
