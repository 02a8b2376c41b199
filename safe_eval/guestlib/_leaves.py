"""The host functions the guest standard library calls: leaves on plain data.

Each leaf does one thing guest code cannot express (or cannot do fast), on arguments it checks
first: a class the guest's own code defined (``_guest_class``), an exact ``dataclasses.Field``,
a guest function, tuples of ``str``, plain data. Class namespaces are read as mappings
(``type.__dict__``), never through a hook, and what a leaf returns is data the guest itself
put there (or a bool, a tuple of str, a new ``Field``, a copy of plain data). The two leaves
that read and write attributes of arbitrary objects, ``field_values`` and ``set_fields`` (the
hot path of every dataclass), do it through the membrane's guarded ``get_attr``/``set_attr``:
exactly what the guest's own ``obj.x``/``obj.x = v`` would do, and priced per attribute.

The leaves are reachable only from the guest-stdlib modules' globals, but each one is written
to be safe in any guest's hands (a guest that got one could do nothing it cannot already do).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.annotations import is_inert
from safe_eval.interpreter.identity import is_guest_class

__all__ = ["leaves_for"]

_FIELD: Any = getattr(dataclasses, "_FIELD")  # noqa: B009 (private: the marker fields() filters on)
_MISSING: Any = dataclasses.MISSING


def _guest_class(cls: object, what: str) -> type:
    """``cls`` if it is a class the guest's code defined, else the TypeError CPython's
    caller would raise for a wrong argument."""
    if isinstance(cls, type) and is_guest_class(cls):
        return cls
    raise TypeError(f"{what} can only be used on classes defined in guest code")


def _own(cls: type) -> Any:
    return type.__dict__["__dict__"].__get__(cls)  # the namespace itself: no metaclass hook


def own_annotations(cls: object) -> tuple[tuple[str, Any], ...]:
    """``(name, annotation)`` of the fields annotated in the class body itself, in order: the
    real type ``interpreter/annotations.py`` resolved (never text), or None."""
    klass = _guest_class(cls, "dataclass()")
    ann = _own(klass).get("__annotations__")
    if type(ann) is not dict:
        return ()
    return tuple((k, v if is_inert(v) else None) for k, v in ann.items() if type(k) is str)


def own_value(cls: object, name: object, default: Any) -> Any:
    """What the class body itself bound to the (non-dunder) ``name``, else ``default``."""
    klass = _guest_class(cls, "dataclass()")
    if type(name) is not str or name.startswith("__"):
        raise TypeError("own_value() reads field names only")
    return _own(klass).get(name, default)


def own_dunder(cls: object, name: object) -> str:
    """Whether the class body itself defines the dunder ``name``: ``"missing"``, ``"none"``
    (bound to None, as ``__hash__ = None``) or ``"set"``; the value is never handed out."""
    klass = _guest_class(cls, "dataclass()")
    if type(name) is not str:
        raise TypeError("own_dunder() takes a name")
    value = _own(klass).get(name, _MISSING)
    return "missing" if value is _MISSING else "none" if value is None else "set"


def dataclass_fields(obj: object, own: bool = False) -> dict[str, Any] | None:
    """The ``__dataclass_fields__`` of a guest dataclass (a class or an instance), looked up
    along the MRO (``own``: in the class itself only), or None."""
    cls = obj if isinstance(obj, type) else type(obj)
    if not is_guest_class(cls):
        return None
    for klass in (cls,) if own else cls.__mro__:
        if is_guest_class(klass):
            found = _own(klass).get("__dataclass_fields__")
            if type(found) is dict:
                return found
    return None


def field_values(obj: object, names: object) -> tuple[Any, ...]:
    """``(obj.a, obj.b, ...)`` read exactly as guest code reads them: the membrane's guarded
    ``get_attr`` (so a host object or a wrapper shows only what the guest may see), one
    operation charged per name. The comparison and hash of every dataclass go through here."""
    from safe_eval.membrane import get_attr
    from safe_eval.membrane.modules._util import charge

    if type(names) is not tuple:
        raise TypeError("field_values() takes a tuple of names")
    charge(len(names))
    return tuple([get_attr(obj, name) for name in names])


def field_pair(obj: object, other: object, names: object) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """``(field_values(obj), field_values(other))`` when both are of the same class (what a
    dataclass compares), else None (the method then returns NotImplemented)."""
    if type(obj) is not type(other):
        return None
    return field_values(obj, names), field_values(other, names)


_OBJECT_SETATTR: list[Any] = []  # the membrane's guarded object.__setattr__, fetched once


def set_fields(obj: object, names: object, values: object, frozen: bool) -> None:
    """``obj.name = value`` for each pair, exactly as guest code would write it: the membrane's
    ``set_attr`` (``frozen``: the guarded ``object.__setattr__`` guest code gets, which only
    writes to guest-made objects); one operation charged per name."""
    from safe_eval.membrane import get_attr, set_attr
    from safe_eval.membrane.modules._util import charge

    if type(names) is not tuple or not isinstance(values, (tuple, list)) or type(values) not in (tuple, list):
        raise TypeError("set_fields() takes a tuple of names and a tuple or list of values")
    if len(names) != len(values):
        raise TypeError("set_fields() takes as many values as names")
    charge(len(names))
    if frozen:
        if not _OBJECT_SETATTR:
            _OBJECT_SETATTR.append(get_attr(object, "__setattr__"))
        setter = _OBJECT_SETATTR[0]
    else:
        setter = set_attr
    for name, value in zip(names, values, strict=True):
        setter(obj, name, value)


def finish_field(f: object, name: object, annotation: object, kw_only: bool) -> Any:
    """Name a ``Field`` the guest got from ``field()`` (or a fresh one around a plain default),
    as the dataclass decorator does; refuses dunder names (``__class__: int = 0`` would let
    ``__init__`` swap the class)."""
    if type(name) is not str or (name.startswith("__") and name.endswith("__")):
        raise TypeError(f"dataclass field name {name!r} is not allowed")
    if type(f) is not dataclasses.Field:
        raise TypeError("finish_field() takes a dataclasses.Field")
    field: Any = f
    field.name = name
    field.type = annotation if is_inert(annotation) else None  # a real type, never text
    field._field_type = _FIELD
    if field.kw_only is _MISSING:
        field.kw_only = bool(kw_only)
    return field


def set_dataclass_info(cls: object, fields: object, params: tuple[bool, ...],
                       match_args: object) -> None:
    """Store ``__dataclass_fields__``/``__dataclass_params__`` (and ``__match_args__`` when not
    None) on a guest class: the names the host's ``dataclasses`` helpers read."""
    klass = _guest_class(cls, "dataclass()")
    if type(fields) is not dict or not all(type(f) is dataclasses.Field for f in fields.values()):
        raise TypeError("set_dataclass_info() takes a dict of fields")
    if match_args is not None and (type(match_args) is not tuple
                                   or not all(type(n) is str for n in match_args)):
        raise TypeError("__match_args__ must be a tuple of str")
    flags = tuple(bool(p) for p in params)
    type.__setattr__(klass, "__dataclass_fields__", dict(fields))
    type.__setattr__(klass, "__dataclass_params__", _params(flags))
    if match_args is not None:
        type.__setattr__(klass, "__match_args__", match_args)


class _FactoryRepr:
    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _FactoryRepr()
_KINDS_OF_PARAMETER = ("positional", "keyword")


def set_signature(fn: object, params: object) -> None:
    """Give a generic guest function (``init(self, *args, **kwargs)``) the signature it acts
    out: ``params`` is ``[(name, "positional" | "keyword", default, has default, factory)]``,
    plain data. Read by ``inspect.signature`` only (``functions.signature_of``)."""
    import inspect

    from safe_eval.interpreter.functions import Function

    if type(fn) is not Function or type(params) is not list:
        raise TypeError("set_signature() takes a guest function and a list")
    P = inspect.Parameter
    built = [P("self", P.POSITIONAL_OR_KEYWORD)]
    for spec in params:
        if type(spec) is not tuple or len(spec) != 5 or type(spec[0]) is not str \
                or spec[1] not in _KINDS_OF_PARAMETER:
            raise TypeError("set_signature(): bad parameter")
        name, kind, default, has_default, factory = spec
        value = _HAS_FACTORY if factory else default if has_default else P.empty
        built.append(P(name, P.KEYWORD_ONLY if kind == "keyword" else P.POSITIONAL_OR_KEYWORD,
                       default=value))
    fn.__dict__["__signature__"] = inspect.Signature(built, return_annotation=None)


def _params(flags: tuple[bool, ...]) -> Any:
    """``_DataclassParams`` took six flags up to 3.11; 3.12 added match_args, kw_only, slots
    and weakref_slot (positional, required): fill what this Python asks for."""
    init, repr_, eq, order, unsafe_hash, frozen, match_args, kw_only = flags
    make: Any = getattr(dataclasses, "_DataclassParams")  # noqa: B009
    if sys.version_info >= (3, 12):
        return make(init, repr_, eq, order, unsafe_hash, frozen, match_args, kw_only, False, False)
    return make(init, repr_, eq, order, unsafe_hash, frozen)


def is_field(obj: object) -> bool:
    return type(obj) is dataclasses.Field


def _dataclasses() -> dict[str, Any]:
    return {
        "_own_annotations": own_annotations,
        "_own_value": own_value,
        "_own_dunder": own_dunder,
        "_dataclass_fields": dataclass_fields,
        "_finish_field": finish_field,
        "_set_dataclass_info": set_dataclass_info,
        "_host_field": dataclasses.field,
        "_is_field": is_field,
        "_field_values": field_values,
        "_field_pair": field_pair,
        "_set_fields": set_fields,
        "_set_signature": set_signature,
        "MISSING": _MISSING,
        "FrozenInstanceError": dataclasses.FrozenInstanceError,
        "_PY313": sys.version_info >= (3, 13),
    }


# -- copy ---------------------------------------------------------------------------------------

def _copy_kinds() -> dict[type, str]:
    import collections
    import datetime
    import decimal
    import fractions
    import re
    import types
    import uuid

    from safe_eval.interpreter.functions import Function

    kinds: dict[type, str] = dict.fromkeys(
        (type(None), int, float, bool, complex, str, bytes, range, type(Ellipsis),
         type(NotImplemented), types.BuiltinFunctionType, types.FunctionType, Function, property,
         decimal.Decimal, fractions.Fraction, datetime.date, datetime.datetime, datetime.time,
         datetime.timedelta, datetime.timezone, uuid.UUID, re.Pattern, slice), "atomic")
    kinds.update({list: "list", tuple: "tuple", dict: "dict", set: "set", frozenset: "frozenset",
                  bytearray: "bytearray", collections.deque: "deque",
                  collections.defaultdict: "defaultdict", collections.OrderedDict: "mapping",
                  collections.Counter: "mapping"})
    return kinds


_KINDS: dict[type, str] = {}


def copy_kind(x: object) -> str:
    """How ``copy`` treats ``x``, from its exact type only: a container kind the guest code
    rebuilds, ``"guest"`` (an instance of a guest-defined class) or ``"atomic"``: returned as
    it is. Atomic are immutable values, classes, functions, and every host object and wrapper
    (a proxy, a tool, a curated ``re.Pattern``): the guest holds the same wrapper again and no
    host code ever duplicates what is behind it."""
    if not _KINDS:
        _KINDS.update(_copy_kinds())
    t = type(x)
    kind = _KINDS.get(t)
    if kind is not None:
        return kind
    if isinstance(x, type):
        return "atomic"
    if is_guest_class(t):
        return "guest"
    return "atomic"


def newargs(x: object) -> tuple[Any, ...]:
    """What ``x.__getnewargs__()`` gives for an instance of a guest subclass of a builtin
    scalar or tuple (the builtin's own C method: a plain copy of the value), else ``()``."""
    cls = type(x)
    if not is_guest_class(cls):
        raise TypeError("newargs() takes an instance of a guest class")
    for base in (tuple, int, float, complex, str, bytes):
        if isinstance(x, base):
            getnewargs: Any = base.__dict__["__getnewargs__"]  # the builtin's C method itself
            result: tuple[Any, ...] = getnewargs(x)
            return result
    return ()


def slot_names(cls: object) -> tuple[str, ...]:
    """The slot names the guest classes in ``cls``'s MRO declare (``__slots__``), in order."""
    klass = _guest_class(cls, "copy")
    names: list[str] = []
    for k in klass.__mro__:
        if not is_guest_class(k):
            continue
        slots = _own(k).get("__slots__", ())
        for name in (slots,) if type(slots) is str else slots if type(slots) in (tuple, list) else ():
            if type(name) is str and name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return tuple(names)


_PLAIN_ATOMS: frozenset[type] = frozenset({type(None), int, float, bool, complex, str, bytes})
_PLAIN_CONTAINERS: frozenset[type] = frozenset({list, tuple, dict, set, frozenset})
_PLAIN_MAX_DEPTH = 64


def _is_plain_tree(x: object) -> bool:
    """Exact builtin containers of exact scalars, nested at most ``_PLAIN_MAX_DEPTH`` deep
    (iterative; one operation charged per node)."""
    from safe_eval.membrane.modules._util import charge

    seen: set[int] = set()
    stack: list[tuple[object, int]] = [(x, 0)]
    nodes = 0
    while stack:
        item, depth = stack.pop()
        t = type(item)
        nodes += 1
        if t in _PLAIN_ATOMS:
            continue
        if t not in _PLAIN_CONTAINERS or depth >= _PLAIN_MAX_DEPTH:
            charge(nodes)
            return False
        if id(item) in seen:
            continue
        seen.add(id(item))
        children: Any = item
        if t is dict:
            children = [*children.keys(), *children.values()]
        stack.extend((child, depth + 1) for child in children)
    charge(nodes)
    return True


def plain_deepcopy(x: object, missing: object) -> Any:
    """``(copy.deepcopy(x), [(id, copy) ...])`` when ``x`` is a tree of plain data, else
    ``missing`` (the guest code copies it). The host copies only builtin containers and
    scalars, with a memo dict of its own that no guest ever holds (CPython's ``_keep_alive``
    calls ``memo[id(memo)].append``: on the guest's memo that is a guest method run by host
    code); the ``(id, copy)`` pairs it recorded go back for the guest code to put into the
    guest's memo."""
    import copy

    if not _is_plain_tree(x):
        return missing
    memo: dict[int, Any] = {}
    y = copy.deepcopy(x, memo)
    keep = id(memo)
    return y, [(key, value) for key, value in memo.items() if key != keep]


def _copy() -> dict[str, Any]:
    import copy

    return {"_copy_kind": copy_kind, "_newargs": newargs,
            "_slot_names": slot_names, "_plain_deepcopy": plain_deepcopy, "Error": copy.Error}


# -- namedtuple ---------------------------------------------------------------------------------

def iskeyword(name: object) -> bool:
    import keyword

    return type(name) is str and keyword.iskeyword(name)


def itemgetter(index: object) -> Any:
    import operator

    if type(index) is not int:
        raise TypeError("itemgetter() takes an int here")
    return operator.itemgetter(index)


def _collections() -> dict[str, Any]:
    """The host ABCs the guest ``UserDict``/``UserList``/``UserString`` name as bases (for
    ``isinstance``), and ``sys.maxsize`` for ``str``-like default bounds."""
    import collections.abc as cabc

    return {"_Mapping": cabc.Mapping, "_MutableMapping": cabc.MutableMapping,
            "_MutableSequence": cabc.MutableSequence, "_Sequence": cabc.Sequence,
            "_MAXSIZE": sys.maxsize,
            # UserDict.get stopped calling __missing__ in 3.12: the guest's follows this Python
            "_PY312": sys.version_info >= (3, 12)}


_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "collections": _collections,
    "dataclasses": _dataclasses,
    "copy": _copy,
    "namedtuple": lambda: {"_iskeyword": iskeyword, "_itemgetter": itemgetter},
}


def leaves_for(module: str) -> dict[str, Any]:
    """The leaves module ``module``'s source may call (its initial globals), fresh dict."""
    build = _BUILDERS.get(module)
    return build() if build is not None else {}
