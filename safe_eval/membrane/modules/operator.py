"""Curated ``operator``.

``attrgetter`` and ``methodcaller`` take attribute names as data (``attrgetter('__class__')``):
ours resolve every name through the membrane's ``get_attr``, never raw ``getattr``. The
arithmetic functions that can allocate a lot in one C call (``mul('a', 10**10)``, ``pow``,
``lshift``) are replaced by the limits package's guarded operators (``GUARDED_MODULE_ATTRS``).
"""

from __future__ import annotations

import operator
from typing import Any

from safe_eval.membrane.snapshot import snapshot_text

SAFE = ["abs", "add", "and_", "concat", "contains", "countOf", "delitem", "eq", "floordiv", "ge",
        "getitem", "gt", "iadd", "iand", "iconcat", "ifloordiv", "ilshift", "imatmul", "imod",
        "imul", "index", "indexOf", "inv", "invert", "ior", "ipow", "irshift", "is_", "is_not",
        "isub", "itemgetter", "itruediv", "ixor", "le", "length_hint", "lshift", "lt", "matmul",
        "mod", "mul", "ne", "neg", "not_", "or_", "pos", "pow", "rshift", "setitem", "sub",
        "truediv", "truth", "xor"]


class attrgetter:
    """``operator.attrgetter`` resolving each (dotted) name through the membrane."""

    __slots__ = ("_paths",)

    def __init__(self, attr: str, /, *attrs: str) -> None:
        paths = []
        for given in (attr, *attrs):
            name = snapshot_text(given)  # a str subclass's stored text: its split() never runs
            if name is None:
                raise TypeError("attribute name must be a string")
            paths.append(tuple(name.split(".")))
        self._paths = tuple(paths)

    def __call__(self, obj: Any, /) -> Any:
        from safe_eval.membrane import get_attr, method_value

        values = []
        for path in self._paths:
            value = obj
            for name in path:
                value = get_attr(value, name)
            values.append(method_value(value))  # handed on as a value (membrane/stored.py)
        return values[0] if len(values) == 1 else tuple(values)

    def __repr__(self) -> str:
        names = ", ".join(repr(".".join(p)) for p in self._paths)
        return f"operator.attrgetter({names})"


class methodcaller:
    """``operator.methodcaller`` looking the method up through the membrane."""

    __slots__ = ("_name", "_args", "_kwargs")

    def __init__(self, name: str, /, *args: Any, **kwargs: Any) -> None:
        text = snapshot_text(name)
        if text is None:
            raise TypeError("method name must be a string")
        self._name = text
        self._args = args
        self._kwargs = kwargs

    def __call__(self, obj: Any, /) -> Any:
        from safe_eval.membrane import get_attr

        return get_attr(obj, self._name)(*self._args, **self._kwargs)

    def __repr__(self) -> str:
        args = [repr(self._name), *map(repr, self._args), *(f"{k}={v!r}" for k, v in self._kwargs.items())]
        return f"operator.methodcaller({', '.join(args)})"


def build() -> dict[str, Any]:
    attrs: dict[str, Any] = {name: getattr(operator, name) for name in SAFE if hasattr(operator, name)}
    attrs.update(attrgetter=attrgetter, methodcaller=methodcaller)
    return attrs
