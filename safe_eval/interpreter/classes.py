"""Guest classes: real host classes built by the interpreter, marked as guest-made.

Real classes let ``sorted``, ``dict``, ``set`` and ``isinstance`` work on guest objects; what
keeps them safe is what a class may be: bases from an allowlist, no metaclass or class
keywords, and only the dunders in ``DEFINABLE_DUNDERS`` (their bodies run in the interpreter).

The host classes a guest may derive from beyond the plain ones are a registry owned here:
curated module wrappers add them through ``allow_subclassing`` (``enum.Enum``, ``abc.ABC``,
``typing.NamedTuple``...). Their metaclasses are allowed because those classes are. A base
that is not a class (``Generic[T]``, ``TypedDict``) is a curated stand-in registered through
``allow_base_stand_in``: the class derives from what the host typing object behind it answers
to ``__mro_entries__``, each entry checked like any base. Class keywords are refused unless a
metaclass's owner registered them (``allow_class_keywords``: ``total=`` of ``TypedDict``).

``type(name, bases, dict)`` builds a guest class too (``build_dynamic_class``): the same base,
namespace and finished-class checks as a class statement, never a host class with guest dunders.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable, Iterable
from typing import Any

from safe_eval.interpreter import tracebacks
from safe_eval.interpreter.annotations import class_annotations, inert_fields
from safe_eval.interpreter.functions import Function
from safe_eval.interpreter.identity import is_guest_class, register_guest_class
from safe_eval.interpreter.runtime import UNBOUND, Cell, Frame
from safe_eval.interpreter.tracebacks import CodeInfo
from safe_eval.membrane.dunders import namespace_refusal
from safe_eval.membrane.stored import class_value

__all__ = ["ClassSpec", "allow_base_stand_in", "allow_class_keywords", "allow_subclassing", "build_class",
           "build_dynamic_class", "can_subclass", "is_guest_function"]

_SUBCLASSABLE: set[type] = set()
# membrane class of a stand-in -> the host object it stands for (whose __mro_entries__ answers);
# ``class L(list[int])``: a builtin generic alias is host-made (its origin a class, checked as a base)
_BASE_STAND_INS: dict[type, Callable[[Any], Any]] = {types.GenericAlias: lambda alias: alias}
# metaclass -> the class keywords it accepts from guest code
_CLASS_KEYWORDS: dict[type, frozenset[str]] = {}
# what a class keyword's value may be: plain data, never a guest object the metaclass would
# test or call at host time
_KEYWORD_VALUE_TYPES: tuple[type, ...] = (bool, int, str, type(None))


def allow_subclassing(classes: Iterable[type]) -> None:
    """Let guest classes derive from each of the host ``classes``."""
    _SUBCLASSABLE.update(classes)


def allow_base_stand_in(cls: type, unwrap: Callable[[Any], Any]) -> None:
    """Let an instance ``s`` of the membrane class ``cls`` appear among a class statement's bases
    as the host object ``unwrap(s)``, resolved through its ``__mro_entries__``. ``unwrap`` must
    hand back host objects only (never a guest one: its ``__mro_entries__`` would run)."""
    _BASE_STAND_INS[cls] = unwrap


def allow_class_keywords(meta: type, names: Iterable[str]) -> None:
    """Let a class statement whose metaclass is ``meta`` pass the keywords ``names`` to it."""
    _CLASS_KEYWORDS[meta] = frozenset(names)

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
        _store(ns, name, key, value)


def _store(ns: Any, name: str, key: str, value: Any) -> None:
    """``ns[key]`` as the class may hold it: a callable host code could call with host
    arguments (a type slot, an attribute read by name) behind the door (membrane/stored.py)."""
    stored = class_value(key, value)
    if stored is value:
        return
    try:
        ns[key] = stored
    except (TypeError, ValueError):
        # enum's namespace: the name is a member already, its value member data (``E.f.value``),
        # not a class attribute a slot or a by-name call reaches
        pass


def _resolve_bases(bases: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
    """The bases after stand-ins are replaced by their ``__mro_entries__`` (as CPython's class
    statement does), and the original bases as host objects (None: nothing was replaced)."""
    if not any(type(base) in _BASE_STAND_INS for base in bases):
        return bases, None
    orig = tuple(_BASE_STAND_INS[type(base)](base) if type(base) in _BASE_STAND_INS else base
                 for base in bases)
    resolved: list[Any] = []
    replaced = False
    for base, real in zip(bases, orig, strict=True):
        # a class behind a stand-in (``Protocol``) is itself; ``list[int]`` passes
        # ``isinstance(_, type)`` on 3.10, so the metaclass decides
        if type(base) not in _BASE_STAND_INS or issubclass(type(real), type):
            resolved.append(real)
            continue
        entries = getattr(real, "__mro_entries__", None)  # a host typing object (see unwrap)
        if entries is None:
            raise TypeError(f"bases must be types, not {type(real).__name__}")
        resolved.extend(entries(orig))
        replaced = True
    return tuple(resolved), orig if replaced else None


def _check_bases(name: str, bases: tuple[Any, ...]) -> None:
    for base in bases:
        if not can_subclass(base):
            what = base.__name__ if isinstance(base, type) else type(base).__name__
            raise TypeError(f"class {name} cannot derive from {what} in safe-eval")


def _check_keywords(name: str, meta: type, keywords: dict[str, Any]) -> None:
    allowed = _CLASS_KEYWORDS.get(meta, frozenset())
    for key, value in keywords.items():
        if key not in allowed:
            raise TypeError(f"class keywords ({key}) are not supported in safe-eval")
        if type(value) not in _KEYWORD_VALUE_TYPES:
            raise TypeError(f"class {name}: keyword {key}= must be a bool, int, str or None in safe-eval")


def build_class(spec: ClassSpec, bases: tuple[Any, ...], g: dict[str, Any], b: Any,
                closure: tuple[Cell, ...], keywords: dict[str, Any] | None = None) -> type:
    bases, orig_bases = _resolve_bases(bases)
    _check_bases(spec.name, bases)
    real_bases: tuple[type, ...] = bases or (object,)
    meta = _metaclass(real_bases)
    kwargs = keywords or {}
    _check_keywords(spec.name, meta, kwargs)
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
    if orig_bases is not None:
        ns["__orig_bases__"] = orig_bases
    cls = meta(spec.name, bases, ns, **kwargs) if bases else meta(spec.name, (), ns, **kwargs)
    register_guest_class(cls)
    if fields is not None:
        cls.__annotations__ = class_annotations(fields, (ns, {spec.name: cls}, g), b.charge)
    if cell is not None:
        cell.v = cls
    return cls  # type: ignore[no-any-return]


def build_dynamic_class(name: Any, bases: Any, namespace: Any) -> type:
    """``type(name, bases, namespace)``: a guest class, checked as a class statement's is."""
    for i, (value, want) in enumerate(((name, str), (bases, tuple), (namespace, dict)), 1):
        if type(value) is not want:
            got = type(value).__name__
            raise TypeError(f"type.__new__() argument {i} must be {want.__name__}, not {got}")
    _check_bases(name, bases)
    ns = dict(namespace)  # an exact dict: copied with its stored hashes, no guest code runs
    for key, value in list(ns.items()):
        why = namespace_refusal(key, value)
        if why is not None:
            raise TypeError(f"class {name} may not define {key} in safe-eval: {why}")
        _store(ns, name, key, value)
    if "__annotations__" in ns:
        # values, not the AST a class statement resolves: text in them is what host
        # ``get_type_hints`` would evaluate (the class statement's annotations never hold any)
        ns["__annotations__"] = inert_fields(ns["__annotations__"])
    ns.setdefault("__module__", "__main__")  # else type() names the calling host module
    meta = _metaclass(bases or (object,))
    cls = meta(name, bases, ns)
    register_guest_class(cls)
    return cls  # type: ignore[no-any-return]
