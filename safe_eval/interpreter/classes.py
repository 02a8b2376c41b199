"""Guest classes: real host classes built by the interpreter, marked as guest-made.

Real classes let ``sorted``, ``dict``, ``set`` and ``isinstance`` work on guest objects; what
keeps them safe is what a class may be: bases from an allowlist, no metaclass or class
keywords, and only the dunders in ``DEFINABLE_DUNDERS`` (their bodies run in the interpreter).

The host classes a guest may derive from beyond the plain ones are a registry owned here:
curated module wrappers add them through ``allow_subclassing`` (``enum.Enum``, ``abc.ABC``,
``typing.NamedTuple``...). Their metaclasses are allowed because those classes are.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import Any

from safe_eval.interpreter import tracebacks
from safe_eval.interpreter.annotations import class_annotations
from safe_eval.interpreter.functions import Function
from safe_eval.interpreter.identity import is_guest_class, register_guest_class
from safe_eval.interpreter.runtime import UNBOUND, Cell, Frame
from safe_eval.interpreter.tracebacks import CodeInfo
from safe_eval.membrane.dunders import namespace_refusal

__all__ = ["ClassSpec", "allow_subclassing", "build_class", "can_subclass", "is_guest_function"]

_SUBCLASSABLE: set[type] = set()


def allow_subclassing(classes: Iterable[type]) -> None:
    """Let guest classes derive from each of the host ``classes``."""
    _SUBCLASSABLE.update(classes)

_PLAIN_BASES: frozenset[type] = frozenset(
    {object, dict, list, int, str, tuple, set, frozenset, float, bytes, complex, bytearray}
)


class ClassSpec:
    """What the compiler knows about one class statement (read-only after construction)."""

    __slots__ = ("name", "qualname", "body", "info", "nslots", "class_cell", "free_slots")

    def __init__(self, name: str, qualname: str, body: Any, info: CodeInfo, nslots: int,
                 class_cell: int | None, free_slots: tuple[int, ...]) -> None:
        self.name = name
        self.qualname = qualname
        self.body = body
        self.info = info
        self.nslots = nslots
        self.class_cell = class_cell
        self.free_slots = free_slots


def can_subclass(base: Any) -> bool:
    if not isinstance(base, type):
        return False
    if base in _PLAIN_BASES or is_guest_class(base) or base in _SUBCLASSABLE:
        return True
    # builtin exception classes
    return issubclass(base, BaseException) and getattr(builtins, base.__name__, None) is base


def is_guest_function(value: object) -> bool:
    """What a guest class's dunder may be bound to after creation: a function the guest's code
    defined (the interpreter runs it, under the run's budget), nothing host-callable."""
    return type(value) is Function


def _metaclass(bases: tuple[type, ...]) -> type:
    meta: type = type
    for b in bases:
        m = type(b)
        if issubclass(m, meta):
            meta = m
        elif not issubclass(meta, m):
            raise TypeError("metaclass conflict: the metaclass of a derived class must be a (non-strict) "
                            "subclass of the metaclasses of all its bases")
    return meta


def _check_namespace(ns: Any, name: str) -> None:
    """Refuse early, before the metaclass sees the namespace (it would iterate ``__slots__``
    and build enum members); ``register_guest_class`` checks the finished class again."""
    for key, value in list(ns.items()):
        if key == "__classcell__":
            continue  # the interpreter's own cell, consumed by type()
        why = namespace_refusal(key, value)
        if why is not None:
            raise TypeError(f"class {name} may not define {key} in safe-eval: {why}")


def build_class(spec: ClassSpec, bases: tuple[Any, ...], g: dict[str, Any], b: Any,
                closure: tuple[Cell, ...]) -> type:
    for base in bases:
        if not can_subclass(base):
            what = base.__name__ if isinstance(base, type) else type(base).__name__
            raise TypeError(f"class {spec.name} cannot derive from {what} in safe-eval")
    real_bases: tuple[type, ...] = bases or (object,)
    meta = _metaclass(real_bases)
    ns: Any = meta.__prepare__(spec.name, real_bases) if meta is not type else {}
    ns["__module__"] = "__main__"
    ns["__qualname__"] = spec.qualname
    frame: Frame = [g, b, None, ns]
    frame += [UNBOUND] * (spec.nslots - 4)
    cell = None
    if spec.class_cell is not None:
        cell = frame[spec.class_cell] = Cell()
    for slot, c in zip(spec.free_slots, closure, strict=False):
        frame[slot] = c
    b.depth += 1
    if b.depth > b.max_depth:
        b.too_deep()
    try:
        spec.body(frame)
    except BaseException as e:
        tracebacks.push(e, spec.info)
        raise
    finally:
        b.depth -= 1
    _check_namespace(ns, spec.name)
    fields = ns.get("__annotations__")
    if fields is not None:  # what the metaclass and __init_subclass__ see: no self-reference yet
        ns["__annotations__"] = class_annotations(fields, (ns, g), b.charge)
    cls = meta(spec.name, bases, ns) if bases else meta(spec.name, (), ns)
    register_guest_class(cls)
    if fields is not None:
        cls.__annotations__ = class_annotations(fields, (ns, {spec.name: cls}, g), b.charge)
    if cell is not None:
        cell.v = cls
    return cls  # type: ignore[no-any-return]
