"""``class P(NamedTuple): x: int; y: int = 0`` without ``exec``.

``NamedTuple`` is a host base class whose metaclass builds the guest-safe namedtuple of
``_namedtuple.py`` from the class body's annotations (in order) and defaults, then copies
the body's methods onto it. The class body itself was run by the interpreter.
"""

from __future__ import annotations

from typing import Any

from safe_eval.membrane.modules._namedtuple import namedtuple

_RESERVED = frozenset({"__module__", "__qualname__", "__annotations__", "__doc__", "__dict__",
                       "__weakref__", "__orig_bases__", "__slots__", "__classcell__"})


class _NamedTupleMeta(type):
    def __new__(mcls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if not any(b is _NamedTupleBase for b in bases) or ns.get("_se_root"):
            return super().__new__(mcls, typename, bases, ns)
        annotations = ns.get("__annotations__", {})
        fields = list(annotations)
        defaults = [ns[name] for name in fields if name in ns]
        for name in fields[len(fields) - len(defaults):]:
            if name not in ns:
                raise TypeError(f"Non-default namedtuple field {name} cannot follow "
                                f"default field {fields[len(fields) - len(defaults)]}")
        cls = namedtuple(typename, fields, defaults=defaults, module=ns.get("__module__"))
        for key, value in ns.items():
            if key in _RESERVED or key in fields:
                continue
            if key.startswith("_") and not (key.startswith("__") and key.endswith("__")):
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            setattr(cls, key, value)
        return cls


class _NamedTupleBase(metaclass=_NamedTupleMeta):
    _se_root = True


def NamedTuple(typename: str, fields: Any = None, /, **kwargs: Any) -> type:
    """Functional form: ``NamedTuple('P', [('x', int), ('y', int)])``."""
    pairs = list(fields) if fields is not None else list(kwargs.items())
    return namedtuple(typename, [name for name, _ in pairs])


# Class syntax: ``class P(NamedTuple)`` uses ``__mro_entries__`` to swap in the real base.
def _mro_entries(bases: tuple[Any, ...]) -> tuple[type, ...]:
    return (_NamedTupleBase,)


NamedTuple.__mro_entries__ = _mro_entries  # type: ignore[attr-defined]
