"""``typing.NamedTuple`` without ``exec``.

``NamedTuple`` is a host class whose metaclass builds the guest-stdlib namedtuple
(``safe_eval/guestlib/namedtuple.py``): as a base (``class P(NamedTuple): x: int; y: int = 0``)
from the class body's annotations (in order) and defaults, copying the body's methods onto it (the body was
run by the interpreter); called (``NamedTuple('P', [('x', int)])``) from the field list.
"""

from __future__ import annotations

import sys
from typing import Any


def namedtuple(typename: str, fields: list[str], **kwargs: Any) -> Any:
    """The guest-stdlib ``namedtuple`` of the running evaluation (a guest call)."""
    from safe_eval.guestlib import load

    return load("namedtuple")["namedtuple"](typename, fields, **kwargs)


_RESERVED = frozenset({"__module__", "__qualname__", "__annotations__", "__doc__", "__dict__",
                       "__weakref__", "__orig_bases__", "__slots__", "__classcell__"})


class _NamedTupleMeta(type):
    def __new__(mcls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if not bases:  # NamedTuple itself
            return super().__new__(mcls, typename, bases, ns)
        if bases != (NamedTuple,):
            raise TypeError("can only inherit from a NamedTuple type and Generic"
                            if sys.version_info >= (3, 11)
                            else "Multiple inheritance with NamedTuple is not supported")
        annotations = ns.get("__annotations__", {})
        fields = list(annotations)
        defaults = []
        for name in fields:
            if name in ns:
                defaults.append(ns[name])
            elif defaults:
                raise TypeError(f"Non-default namedtuple field {name} cannot follow default field"
                                f"{'s' if len(defaults) > 1 else ''} "
                                + ", ".join(f for f in fields if f in ns))
        cls = namedtuple(typename, fields, defaults=defaults, module=ns.get("__module__"))
        from safe_eval.membrane.dunders import DEFINABLE_DUNDERS

        for key, value in ns.items():
            if key in _RESERVED or key in fields:
                continue
            if key.startswith("__") and key.endswith("__") and key not in DEFINABLE_DUNDERS:
                raise TypeError(f"class {typename} may not define {key} in safe-eval")
            if key in ("_make", "_replace", "_asdict", "_fields", "_field_defaults", "__new__",
                       "__init__", "__getnewargs__"):
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            type.__setattr__(cls, key, value)  # a class the guest stdlib just made
        return cls

    def __call__(cls, typename: str, fields: Any = None, /, **kwargs: Any) -> Any:
        pairs = list(fields) if fields is not None else list(kwargs.items())
        return namedtuple(typename, [name for name, _ in pairs])


class NamedTuple(metaclass=_NamedTupleMeta):
    """Base class (or factory) for exec-free named tuples."""
