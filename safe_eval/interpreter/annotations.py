"""Annotations the host receives: real types resolved from the annotation's AST, never text.

Scrub keeps every annotation's expression aside (``pipeline/scrub.py``); nothing evaluates it.
This module is the one place an annotation becomes a value, by reading its AST:

- a name is looked up, as a leaf, first in the namespaces given (the class body, the guest's
  globals: guest classes, types from ``env``, aliases such as ``Vector = list[float]``), then in
  the allowlist below (builtin types and ``typing``/``collections.abc`` names);
- ``typing.X`` / ``collections.abc.X`` name the allowlisted ``X``;
- ``X[args]`` subscripts only allowlisted generic forms (a guest class's ``__class_getitem__``
  never runs; ``Stack[int]`` of a guest class is the bare class ``Stack``);
- ``A | B``, ``Optional[A]`` and ``Union[A, B]`` are ``A | B | ...`` (``types.UnionType``),
  ``typing.List[X]`` is ``list[X]`` and so on: the runtime classes' own generic aliases, which
  no process-wide ``typing`` cache keeps (a cached ``Optional[Node]`` would keep a guest class,
  and through its methods the guest's globals, alive after the run); ``None`` is
  ``NoneType``; ``Literal[...]`` takes constants;
- a string (``"Node"``, ``from __future__ import annotations`` style, or nested as in
  ``list["Node"]``) is a forward reference: its text is *parsed* and resolved the same way.

Anything else (a call, an attribute of a guest object, an unknown name...) is ``UNRESOLVED``:
functions then carry no annotation for it, class fields carry ``typing.Any`` (the field name
must stay: dataclasses and NamedTuple read the keys).

``is_inert`` is the check on values that did not come from the resolver (a guest alias, a host
function's annotations copied by ``functools.wraps``): a value is inert when it is a class, a
``typing`` special form, or a generic alias built only of inert values, with no string and no
``ForwardRef`` anywhere in it, since those are what ``typing.get_type_hints``,
``inspect.get_annotations(eval_str=True)``, ``singledispatch`` and pydantic evaluate.
"""

from __future__ import annotations

import ast
import builtins
import collections
import collections.abc as cabc
import functools
import operator
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from safe_eval.interpreter.identity import is_guest_class

__all__ = ["UNRESOLVED", "class_annotations", "function_annotations", "inert_fields", "is_inert",
           "register_stand_in", "resolve"]

UNRESOLVED: Any = object()
NoneType = type(None)

_GENERIC = frozenset({"list", "dict", "set", "frozenset", "tuple", "type"})
_BUILTIN_TYPES: dict[str, Any] = {
    n: getattr(builtins, n) for n in (
        "int", "float", "complex", "bool", "str", "bytes", "bytearray", "object", "type", "list",
        "dict", "set", "frozenset", "tuple", "range", "slice", "memoryview")
}
_TYPING_NAMES = (
    "Any", "Optional", "Union", "Literal", "ClassVar", "Final", "NoReturn", "Never", "List",
    "Dict", "Set", "FrozenSet", "Tuple", "Type", "Callable", "Iterable", "Iterator", "Sequence",
    "MutableSequence", "Mapping", "MutableMapping", "Collection", "Container", "Sized",
    "Hashable", "Reversible", "AbstractSet", "MutableSet", "KeysView", "ValuesView", "ItemsView",
    "Generator", "AsyncGenerator", "AsyncIterator", "AsyncIterable", "Awaitable", "Coroutine",
    "Deque", "DefaultDict", "OrderedDict", "Counter", "ChainMap", "Text",
)
_ALLOWED: dict[str, Any] = {
    **_BUILTIN_TYPES,
    **{n: getattr(typing, n) for n in _TYPING_NAMES if hasattr(typing, n)},
    "deque": collections.deque, "defaultdict": collections.defaultdict,
}
# the modules an annotation may qualify a name with (``typing.List``, ``collections.abc.Sequence``)
_QUALIFIED: dict[str, dict[str, Any]] = {
    "typing": {n: getattr(typing, n) for n in _TYPING_NAMES if hasattr(typing, n)},
    "collections.abc": {n: getattr(cabc, n) for n in cabc.__all__},
    "collections": {n: getattr(collections, n) for n in
                    ("deque", "defaultdict", "OrderedDict", "Counter", "ChainMap")},
}
_QUALIFIED["t"] = _QUALIFIED["typing"]
_QUALIFIED["abc"] = _QUALIFIED["collections.abc"]
# data classes of curated modules, qualified by their module (``decimal.Decimal``); looked up
# in the loaded module only: a guest that never imported it cannot have meant it
_MODULE_CLASSES: dict[str, frozenset[str]] = {
    "datetime": frozenset({"date", "datetime", "time", "timedelta", "timezone"}),
    "decimal": frozenset({"Decimal"}),
    "fractions": frozenset({"Fraction"}),
}
# the allowlisted forms that take type arguments (nothing else is ever subscripted; a form
# that takes none raises TypeError when subscripted, which resolves to UNRESOLVED); keyed by
# id() so that testing a guest value never calls its __hash__/__eq__
_SUBSCRIPTABLE: dict[int, Any] = {id(v): v for v in (
    *(_BUILTIN_TYPES[n] for n in _GENERIC), collections.deque, collections.defaultdict,
    *_QUALIFIED["typing"].values(), *_QUALIFIED["collections.abc"].values(),
    *_QUALIFIED["collections"].values(),
)}
# every allowlisted object: a guest global bound to one (``from typing import Literal``) is it
_ALLOWED_BY_ID: dict[int, Any] = {id(v): v for table in (_ALLOWED, *_QUALIFIED.values())
                                  for v in table.values()}
_SPECIAL_TYPES: tuple[type, ...] = tuple(
    type(v) for v in (typing.Any, typing.Union, typing.List, typing.Callable, typing.ClassVar)
)
_ALIAS_TYPES: tuple[type, ...] = (types.GenericAlias, types.UnionType, type(typing.List[int]),
                                  type(typing.Union[int, str]), type(typing.Literal[1]),
                                  type(typing.Callable[[int], int]))
_LITERAL_VALUES = (int, str, bytes, bool, NoneType)
_ORABLE = (types.GenericAlias, types.UnionType)
_ANNOTATED: Any = typing.Annotated
_MAX_TEXT = 1000  # a forward reference longer than this is not parsed
_MAX_DEPTH = 24  # nesting of subscripts and forward references
_MAX_NODES = 2000
# the membrane's guest-side stand-ins for host classes (a tool wrapping a class from ``env``,
# a guarded ``Decimal``): type of the stand-in -> the host class it stands for, or None
_STAND_INS: dict[type, Callable[[Any], Any]] = {}


def register_stand_in(kind: type, host_class: Callable[[Any], Any]) -> None:
    """Let an annotation naming a ``kind`` object (a guest-side stand-in for a host class)
    resolve to the host class ``host_class(obj)`` returns (None: not a class)."""
    _STAND_INS[kind] = host_class


class _Budget:
    """Bounds one resolution or inertness check: nesting depth and nodes visited."""

    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes = 0

    def step(self, depth: int) -> None:
        self.nodes += 1
        if depth > _MAX_DEPTH or self.nodes > _MAX_NODES:
            raise _Unresolvable


class _Unresolvable(Exception):
    pass


def resolve(node: ast.expr, namespaces: Sequence[Mapping[str, Any]] = (),
            charge: Callable[[int], None] | None = None) -> Any:
    """The real type an annotation expression names, or ``UNRESOLVED``. Never evaluates code:
    names are looked up (``namespaces`` first, then the allowlist), only allowlisted generic
    forms are subscripted, string forward references are parsed and resolved the same way.
    ``charge(n)`` is told the nodes visited (a running budget's ops)."""
    budget = _Budget()
    try:
        return _resolve(node, namespaces, budget, 0)
    except (_Unresolvable, TypeError, ValueError, RecursionError, MemoryError):
        return UNRESOLVED
    finally:
        if charge is not None:
            charge(budget.nodes)


def _resolve(node: ast.expr, spaces: Sequence[Mapping[str, Any]], budget: _Budget, depth: int) -> Any:
    budget.step(depth)
    if isinstance(node, ast.Constant):
        return _constant(node.value, spaces, budget, depth)
    if isinstance(node, ast.Name):
        return _name(node.id, spaces)
    if isinstance(node, ast.Attribute):
        return _qualified(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left = _resolve(node.left, spaces, budget, depth + 1)
        right = _resolve(node.right, spaces, budget, depth + 1)
        return _union([left, right])
    if isinstance(node, ast.Subscript):
        return _subscript(node, spaces, budget, depth)
    raise _Unresolvable


def _constant(value: Any, spaces: Sequence[Mapping[str, Any]], budget: _Budget, depth: int) -> Any:
    if value is None:
        return NoneType
    # no type is spelled with a backslash; refusing them keeps the parser's escape-sequence
    # warnings (host stderr) out of reach
    if type(value) is str and len(value) <= _MAX_TEXT and "\\" not in value:
        try:
            parsed = ast.parse(value.strip(), mode="eval").body
        except SyntaxError:
            raise _Unresolvable from None
        return _resolve(parsed, spaces, budget, depth + 1)
    raise _Unresolvable


def _name(name: str, spaces: Sequence[Mapping[str, Any]]) -> Any:
    for space in spaces:
        if name in space:
            value = space[name]
            if _ALLOWED_BY_ID.get(id(value)) is value:
                return value
            stand_in = _STAND_INS.get(type(value))
            if stand_in is not None:
                value = stand_in(value)
                if value is not None and _ALLOWED_BY_ID.get(id(value)) is value:
                    return value  # a guest-side stand-in for an allowlisted typing name
                if not isinstance(value, type):
                    raise _Unresolvable
            if is_inert(value):
                return value
            raise _Unresolvable
    if name in _ALLOWED:
        return _ALLOWED[name]
    value = getattr(builtins, name, None)
    if isinstance(value, type) and issubclass(value, BaseException):
        return value
    raise _Unresolvable


def _qualified(node: ast.Attribute) -> Any:
    parts = [node.attr]
    inner: ast.expr = node.value
    while isinstance(inner, ast.Attribute):
        parts.append(inner.attr)
        inner = inner.value
    if not isinstance(inner, ast.Name):
        raise _Unresolvable
    module = ".".join([inner.id, *reversed(parts[1:])])
    table = _QUALIFIED.get(module)
    if table is not None and node.attr in table:
        return table[node.attr]
    if node.attr in _MODULE_CLASSES.get(module, ()) and module in sys.modules:
        return getattr(sys.modules[module], node.attr)
    raise _Unresolvable


def _subscript(node: ast.Subscript, spaces: Sequence[Mapping[str, Any]], budget: _Budget,
               depth: int) -> Any:
    base = _resolve(node.value, spaces, budget, depth + 1)
    if _SUBSCRIPTABLE.get(id(base)) is not base:
        if type(base) is type or issubclass(type(base), type):
            return base  # a guest or env generic class: its arguments are erased
        raise _Unresolvable
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if base is typing.Literal:
        return base[tuple(_literal(item) for item in items)]
    args = [_argument(item, spaces, budget, depth + 1) for item in items]
    if base is typing.Union:
        return _union(args)
    if base is typing.Optional:
        if len(args) != 1:
            raise _Unresolvable
        return _union([args[0], NoneType])
    if base is typing.ClassVar or base is typing.Final:
        # typing caches these forms: with a guest class inside, the bare form (dataclasses
        # still see a ClassVar) rather than a cache entry keeping the guest's class alive
        return base if _has_guest(args) else base[args[0] if len(args) == 1 else tuple(args)]
    # typing.List -> list, typing.Sequence -> collections.abc.Sequence...: the runtime class's
    # own generic alias, which no typing cache keeps
    origin = base if type(base) is type or issubclass(type(base), type) else typing.get_origin(base)
    if origin is None:
        raise _Unresolvable
    return origin[tuple(args) if len(args) > 1 else args[0]]


def _union(arms: list[Any]) -> Any:
    """``A | B | ...`` as ``types.UnionType`` where every arm allows it (nothing caches those);
    ``typing.Union`` otherwise, unless a guest class is inside (its cache would keep it)."""
    arms = [NoneType if a is None else a for a in arms]
    if all(issubclass(type(a), (*_ORABLE, type)) for a in arms):
        return functools.reduce(operator.or_, arms)
    if _has_guest(arms):
        raise _Unresolvable
    return typing.Union[tuple(arms)]


def _has_guest(values: Any) -> bool:
    """True when a guest class appears anywhere in ``values`` (a list of resolved types)."""
    stack = list(values)
    while stack:
        value = stack.pop()
        if type(value) in (list, tuple):
            stack.extend(value)
        elif issubclass(type(value), type):
            if is_guest_class(value):
                return True
        elif issubclass(type(value), _ALIAS_TYPES):
            stack.extend(value.__args__)
            stack.append(typing.get_origin(value))
    return False


def _argument(node: ast.expr, spaces: Sequence[Mapping[str, Any]], budget: _Budget, depth: int) -> Any:
    if isinstance(node, ast.List):  # Callable[[int, str], bool]
        budget.step(depth)
        return [_resolve(e, spaces, budget, depth + 1) for e in node.elts]
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return ...
    if isinstance(node, ast.Tuple) and not node.elts:  # tuple[()]
        return ()
    return _resolve(node, spaces, budget, depth)


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _literal(node.operand)
        if type(value) is int:
            return -value
        raise _Unresolvable
    if isinstance(node, ast.Constant) and type(node.value) in _LITERAL_VALUES:
        return node.value
    raise _Unresolvable


# -- inertness -----------------------------------------------------------------------------

def is_inert(value: Any) -> bool:
    """True when ``value`` may stand in an annotation the host reads: nothing in it is text
    that ``typing.get_type_hints`` and its kind would evaluate. Never calls guest code."""
    try:
        return _inert(value, _Budget(), 0)
    except (_Unresolvable, RecursionError):
        return False


def _inert(value: Any, budget: _Budget, depth: int) -> bool:
    budget.step(depth)
    kind = type(value)
    if value is None or value is Ellipsis:
        return True
    if issubclass(kind, type):  # a class (guest, host or builtin): never text
        return True
    if issubclass(kind, _SPECIAL_TYPES):
        return True
    if issubclass(kind, _ALIAS_TYPES):
        origin = typing.get_origin(value)
        if origin is _ANNOTATED:  # its metadata is arbitrary objects that pydantic acts on
            return False
        args = value.__args__
        if origin is typing.Literal:
            return all(type(a) in _LITERAL_VALUES for a in args)
        if origin is not None and not _inert(origin, budget, depth + 1):
            return False
        return all(_inert_arg(a, budget, depth + 1) for a in args)
    return False


def _inert_arg(value: Any, budget: _Budget, depth: int) -> bool:
    if type(value) in (list, tuple):  # Callable's parameter list, tuple[()]
        return all(_inert(v, budget, depth + 1) for v in value)
    return _inert(value, budget, depth)


# -- what functions and classes carry ------------------------------------------------------

def function_annotations(kept: Mapping[str, ast.expr], globals_: Mapping[str, Any]) -> dict[str, Any]:
    """A guest function's ``__annotations__``: each kept annotation resolved against its
    globals; what does not resolve is left out."""
    out: dict[str, Any] = {}
    spaces = (globals_,) if type(globals_) is dict else ()
    for key, node in kept.items():
        value = resolve(node, spaces)
        if value is not UNRESOLVED:
            out[key] = value
    return out


def inert_fields(fields: Mapping[Any, Any]) -> dict[str, Any]:
    """Field annotations a call hands over as values rather than as class-body text: the
    ``__annotations__`` of ``type(name, bases, ns)`` and the fields of ``TypedDict(name, {...})``.
    Each value is kept when it is inert (``is_inert``: a class, or a typing form with no text in
    it) and is ``typing.Any`` otherwise (a string, a ``ForwardRef``, ``list["..."]``, a guest
    object): host ``get_type_hints`` evaluates text it finds there with host rights. Field names
    must be exact ``str`` (a guest ``str`` subclass would run its ``__hash__``/``__eq__`` when
    host code looks the name up). ``fields`` is an exact dict the caller holds (no guest code
    runs to read it)."""
    out: dict[str, Any] = {}
    for key, value in list(dict.items(fields) if type(fields) is dict else fields.items()):
        if type(key) is not str:
            raise TypeError(f"annotation names must be str, not {type(key).__name__}")
        out[key] = value if is_inert(value) else typing.Any
    return out


def class_annotations(fields: Mapping[str, Any], spaces: Sequence[Mapping[str, Any]],
                      charge: Callable[[int], None] | None = None) -> dict[str, Any]:
    """A guest class's ``__annotations__`` from the field annotations its body recorded (name ->
    expression, in order): every field kept, its annotation resolved against ``spaces`` (the
    class body, the class's own name, the globals), ``typing.Any`` if it does not resolve."""
    usable = [s for s in spaces if type(s) is dict]
    out: dict[str, Any] = {}
    for key, node in fields.items():
        value = resolve(node, usable, charge) if isinstance(node, ast.expr) else UNRESOLVED
        out[key] = typing.Any if value is UNRESOLVED else value
    return out
