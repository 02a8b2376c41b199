"""Expressions -> closures ``(frame) -> value``. One handler per node kind, chosen at compile time."""

from __future__ import annotations

import ast
import operator as op
import types
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from safe_eval import membrane
from safe_eval.diagnostics import span_of
from safe_eval.errors import InternalError, PolicyViolation
from safe_eval.interpreter.builtins_extra import BUILTINS, super_attr
from safe_eval.interpreter.compile_base import CompilerBase
from safe_eval.interpreter.functions import Function
from safe_eval.interpreter.hostbases import builds_on_host_class, consumed
from safe_eval.interpreter.identity import register_internal_type
from safe_eval.interpreter.runtime import UNBOUND, Cell, Frame
from safe_eval.interpreter.scopes import CELL, CLASSDEREF, FAST, GLOBAL, NAME, unbound_free, unbound_local
from safe_eval.interpreter.specialize import CONST as CONST_OPERAND
from safe_eval.interpreter.specialize import (
    EXPR,
    LOCAL,
    PARAM,
    Operand,
    binop_closure,
    call1_global_closure,
    compare_closure,
)
from safe_eval.limits.budget import current_or_default
from safe_eval.limits.guards import (
    check_construct,
    construct_args,
    g_ascii,
    g_repr,
    g_text,
    is_constructor_slot,
)
from safe_eval.limits.iteration import consume, metered, update_source
from safe_eval.limits.operators import guarded_binop, guarded_contains, price_slice
from safe_eval.limits.routines import ROUTINES
from safe_eval.limits.sharing import FLAT, FREE_KEYS, check_key, keyed
from safe_eval.limits.tables import keyed_source

__all__ = ["ExprCompiler"]

# sequences whose slice is a copy (priced by its size: ``operators.price_slice``)
SEQ_COPIES: frozenset[type] = frozenset({str, bytes, bytearray, list, tuple})

Ev = Callable[[Frame], Any]
_MISSING: Any = object()
_MethodType = types.MethodType
# what ``membrane.method_value`` may put behind a door (everything else passes untested)
_METHOD_TYPES = frozenset({types.BuiltinMethodType, types.MethodWrapperType, types.MethodType,
                           membrane.BoundMethod})

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: op.add, ast.Sub: op.sub, ast.Mult: op.mul, ast.MatMult: op.matmul, ast.Div: op.truediv,
    ast.FloorDiv: op.floordiv, ast.Mod: op.mod, ast.Pow: op.pow, ast.LShift: op.lshift,
    ast.RShift: op.rshift, ast.BitOr: op.or_, ast.BitXor: op.xor, ast.BitAnd: op.and_,
}
_INPLACE: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: op.iadd, ast.Sub: op.isub, ast.Mult: op.imul, ast.MatMult: op.imatmul, ast.Div: op.itruediv,
    ast.FloorDiv: op.ifloordiv, ast.Mod: op.imod, ast.Pow: op.ipow, ast.LShift: op.ilshift,
    ast.RShift: op.irshift, ast.BitOr: op.ior, ast.BitXor: op.ixor, ast.BitAnd: op.iand,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: op.eq, ast.NotEq: op.ne, ast.Lt: op.lt, ast.LtE: op.le, ast.Gt: op.gt, ast.GtE: op.ge,
    ast.Is: op.is_, ast.IsNot: op.is_not,
    # ``x in endless_iterator`` must hit the op budget, not loop in C forever
    ast.In: guarded_contains, ast.NotIn: lambda a, b: not guarded_contains(a, b),
}

_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: op.pos, ast.USub: op.neg, ast.Not: op.not_, ast.Invert: op.invert,
}


def compare_fn(op_node: ast.cmpop) -> Callable[[Any, Any], Any]:
    return _CMPOPS[type(op_node)]


def binop_fn(op_node: ast.operator, inplace: bool = False) -> Callable[[Any, Any], Any]:
    t = type(op_node)
    guarded = guarded_binop(t, inplace)
    if guarded is not None:
        return guarded
    return (_INPLACE if inplace else _BINOPS)[t]


def get_attr(obj: Any, name: str) -> Any:
    if type(obj) is super:
        return super_attr(obj, name)
    return membrane.get_attr(obj, name)


def call_value(b: Any, fn: Any, args: Any, kwargs: dict[str, Any] | None = None) -> Any:
    """Call ``fn`` from guest code: guest functions and methods take the fast path."""
    t = type(fn)
    if t is Function:
        return fn.run(fn, b, args, kwargs)
    if t is _MethodType and type(fn.__func__) is Function:
        func = fn.__func__
        return func.run(func, b, (fn.__self__, *args), kwargs)
    b.fuel -= 1
    if b.fuel < 0:
        b.refuel()
    callee = fn
    if t is type:
        # builtin types stay real types for the guest; calling one allocates: guarded
        guarded = ROUTINES.get(fn)
        if guarded is not None:
            fn = guarded
        elif builds_on_host_class(fn):
            # a guest subclass of a host container inherits a constructor that loops in C
            # over its arguments (``class L(list)``, ``class C(Counter)``): pay for them
            priced_args = construct_args(fn, args, kwargs or {})
            if priced_args is not None:  # a builtin's own constructor reads them: its price
                args = priced_args
            else:
                check_construct(fn, args)
                args = consumed(args)
                if kwargs:
                    kwargs = {k: consume(v) for k, v in kwargs.items()}
    for a in args:
        if type(a) is type:  # a type handed to host code, which may call it: priced callbacks
            args = _callbacks(callee, args)
            break
    if kwargs:
        return fn(*args, **_callbacks(callee, kwargs))
    return fn(*args)


@register_internal_type  # interpreter-made: the membrane admits it by identity
class _PricedType:
    """``cls`` as host code may call it back: through the guest's priced call path
    (``max(xs, key=bytearray)`` pays what ``bytearray(x)`` does). Shown as ``cls`` (a stored
    ``defaultdict(list)`` factory still prints as ``<class 'list'>``)."""

    __slots__ = ("_cls",)

    def __init__(self, cls: type) -> None:
        self._cls = cls

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call_value(current_or_default(), self._cls, args, kwargs or None)

    def __repr__(self) -> str:
        return repr(self._cls)


def priced_class(value: Any) -> type | None:
    """The class a priced callback stands for, else None: host code that takes a class as data
    (``typing.NewType('Id', int)``, ``TypeVar('T', bound=int)``) reads the class itself."""
    return value._cls if type(value) is _PricedType else None


def _callbacks(fn: Any, values: Any) -> Any:
    """``values`` (arguments of host callable ``fn``) with priced types as priced callbacks.
    Functions that only inspect types (``isinstance``) get them as they are."""
    if id(fn) in _TYPE_INSPECTORS:
        return values
    tf = type(fn)
    if (tf in _BUILTIN_METHODS and fn.__name__ in _STORING) or is_constructor_slot(fn):
        return values  # the type is data here (``tuple.__new__(cls, ...)``, ``xs.append(int)``)
    if tf is types.FunctionType and fn.__module__.startswith(_OWN_LEAVES):
        return values  # the guest stdlib's host leaves read classes, never call them
    if fn is defaultdict:
        return values  # the factory is called with no arguments: nothing to price
    if type(values) is dict:
        return {k: _PricedType(v) if _priced_class(v) else v for k, v in values.items()}
    return tuple([_PricedType(a) if _priced_class(a) else a for a in values])


def _priced_class(value: Any) -> bool:
    return type(value) is type and (value in ROUTINES or builds_on_host_class(value))


# The guest standard library's host leaf functions (plain-data operations, no callbacks).
_OWN_LEAVES = "safe_eval.guestlib"
# Host methods that store or construct with a type argument rather than call it back.
_BUILTIN_METHODS = (types.BuiltinFunctionType, types.BuiltinMethodType, types.MethodWrapperType,
                    types.WrapperDescriptorType, types.MethodDescriptorType)
_STORING = frozenset({"__new__", "__init__", "__setattr__", "__setitem__", "__set_name__", "append", "insert",
                      "add", "setdefault", "register", "extend", "update", "appendleft", "extendleft"})
# Builtins that take types as data, never calling them (by id: no guest __hash__ runs).
_INSPECTOR_NAMES = ("isinstance", "issubclass", "type", "super", "print", "repr", "str", "ascii", "format",
                    "hash", "id", "getattr", "hasattr", "setattr", "delattr", "vars", "dir", "callable",
                    "len", "iter", "next", "tuple", "list", "set", "frozenset", "dict")
_TYPE_INSPECTORS = frozenset([id(BUILTINS[n]) for n in _INSPECTOR_NAMES if n in BUILTINS]
                             + [id(t) for t in (tuple, list, set, frozenset, dict, str, type, super)])


def _callee(func: Any) -> str:
    """How CPython names the callee in a call's TypeError (``__main__.k1()``, ``list()``,
    ``C object``), read without running guest code (a guest function's names are data in its
    ``__dict__``; a class's through ``type``'s own descriptors)."""
    if type(func) is Function:
        name = func.__dict__.get("__qualname__")
        return f"__main__.{name}()" if type(name) is str else "function()"
    if isinstance(func, type):
        name = type.__dict__["__qualname__"].__get__(func)
        module = type.__dict__["__module__"].__get__(func)
        return f"{name}()" if module == "builtins" else f"{module}.{name}()"
    if isinstance(func, types.BuiltinFunctionType | types.FunctionType):  # host callables
        return f"{func.__name__}()"
    return f"{type(func).__name__} object"


class ExprCompiler(CompilerBase):
    def expr(self, node: ast.expr) -> Ev:
        h = getattr(self, "e_" + type(node).__name__, None)
        if h is None:
            raise InternalError(f"unsupported expression: {type(node).__name__}")
        return h(node)  # type: ignore[no-any-return]

    # -- constants and containers ----------------------------------------------------------
    def e_Constant(self, node: ast.Constant) -> Ev:
        v = node.value
        return lambda f: v

    def _elts(self, elts: list[ast.expr]) -> Callable[[Frame], list[Any]]:
        if not any(isinstance(e, ast.Starred) for e in elts):
            evs = [self.expr(e) for e in elts]
            return lambda f: [e(f) for e in evs]
        parts = [(True, self.expr(e.value)) if isinstance(e, ast.Starred) else (False, self.expr(e))
                 for e in elts]

        def build(f: Frame) -> list[Any]:
            out: list[Any] = []
            for star, e in parts:
                if star:
                    out.extend(metered(e(f)))  # C pulls the items: paid per item
                else:
                    out.append(e(f))
            return out
        return build

    def e_Tuple(self, node: ast.Tuple) -> Ev:
        if len(node.elts) == 2 and not any(isinstance(e, ast.Starred) for e in node.elts):
            a, b = self.expr(node.elts[0]), self.expr(node.elts[1])
            return lambda f: (a(f), b(f))
        build = self._elts(node.elts)
        return lambda f: tuple(build(f))

    def e_List(self, node: ast.List) -> Ev:
        return self._elts(node.elts)

    def e_Set(self, node: ast.Set) -> Ev:
        build = self._elts(node.elts)

        def make(f: Frame) -> set[Any]:
            items = build(f)
            for item in items:
                if type(item) not in FLAT:
                    check_key(item)  # hashing a shared nested item walks a tree
            return set(keyed_source(items))  # colliding keys: one insert per step
        return make

    def e_Dict(self, node: ast.Dict) -> Ev:
        items = [(None if k is None else self.expr(k), self.expr(v))
                 for k, v in zip(node.keys, node.values, strict=False)]

        def build(f: Frame) -> dict[Any, Any]:
            d: dict[Any, Any] = {}
            for k, v in items:
                if k is None:
                    m = v(f)
                    if not hasattr(type(m), "keys"):
                        raise TypeError(f"'{type(m).__name__}' object is not a mapping")
                    d.update(update_source(m))
                else:
                    key = k(f)
                    if type(key) not in FLAT:
                        check_key(key)  # hashing a shared nested key walks a tree
                    d[key] = v(f)
            return d
        return build

    # -- names -----------------------------------------------------------------------------
    def e_Name(self, node: ast.Name) -> Ev:
        return self.load_name(node.id)

    def load_name(self, name: str) -> Ev:
        kind = self.scope.kind_of(name)
        bi = BUILTINS
        if kind == FAST:
            i = self.scope.slots[name]
            if name in self.scope.params and name not in self.scope.deleted:
                return lambda f: f[i]

            def fast(f: Frame) -> Any:
                v = f[i]
                if v is UNBOUND:
                    raise unbound_local(name)
                return v
            return fast
        if kind == CELL:
            i = self.scope.slots[name]
            local = name in self.scope.cells and name not in self.scope.frees

            def cell(f: Frame) -> Any:
                try:
                    return f[i].v
                except AttributeError:
                    if local:
                        raise unbound_local(name) from None
                    raise unbound_free(name) from None
            return cell
        if kind == CLASSDEREF:
            i = self.scope.slots[name]

            def classderef(f: Frame) -> Any:
                v = f[3].get(name, _MISSING)
                if v is _MISSING:
                    try:
                        return f[i].v
                    except AttributeError:
                        raise unbound_free(name) from None
                return v
            return classderef
        if kind == NAME and self.scope.kind == "class":
            def classname(f: Frame) -> Any:
                v = f[3].get(name, _MISSING)
                if v is _MISSING:
                    v = f[0].get(name, _MISSING)
                    if v is _MISSING:
                        v = bi.get(name, _MISSING)
                        if v is _MISSING:
                            raise NameError(f"name '{name}' is not defined")
                return v
            return classname
        assert kind in (NAME, GLOBAL)

        def glob(f: Frame) -> Any:
            v = f[0].get(name, _MISSING)
            if v is _MISSING:
                v = bi.get(name, _MISSING)
                if v is _MISSING:
                    raise NameError(f"name '{name}' is not defined")
            return v
        return glob

    # -- operators -------------------------------------------------------------------------
    def operand(self, node: ast.expr) -> Operand:
        if isinstance(node, ast.Constant):
            return Operand(CONST_OPERAND, node.value)
        if isinstance(node, ast.Name) and self.scope.kind_of(node.id) == FAST:
            slot = self.scope.slots[node.id]
            safe = node.id in self.scope.params and node.id not in self.scope.deleted
            return Operand(PARAM if safe else LOCAL, slot, node.id)
        return Operand(EXPR, self.expr(node))

    def e_BinOp(self, node: ast.BinOp) -> Ev:
        t = type(node.op)
        guarded = guarded_binop(t, False)
        fn = guarded if guarded is not None else _BINOPS[t]
        return binop_closure(t, fn, guarded is not None, self.operand(node.left), self.operand(node.right))

    def e_UnaryOp(self, node: ast.UnaryOp) -> Ev:
        fn = _UNARY[type(node.op)]
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return lambda f: not operand(f)
        return lambda f: fn(operand(f))

    def e_BoolOp(self, node: ast.BoolOp) -> Ev:
        values = [self.expr(v) for v in node.values]
        if isinstance(node.op, ast.And):
            def and_(f: Frame) -> Any:
                v = None
                for e in values:
                    v = e(f)
                    if not v:
                        return v
                return v
            return and_

        def or_(f: Frame) -> Any:
            v = None
            for e in values:
                v = e(f)
                if v:
                    return v
            return v
        return or_

    def e_Compare(self, node: ast.Compare) -> Ev:
        left = self.expr(node.left)
        ops = [_CMPOPS[type(o)] for o in node.ops]
        rights = [self.expr(c) for c in node.comparators]
        if len(ops) == 1:
            return compare_closure(type(node.ops[0]), self.operand(node.left),
                                   self.operand(node.comparators[0]))
        pairs = list(zip(ops, rights, strict=False))

        def chain(f: Frame) -> Any:
            a = left(f)
            r: Any = True
            for fn, right in pairs:
                b = right(f)
                r = fn(a, b)
                if not r:
                    return r
                a = b
            return r
        return chain

    def e_IfExp(self, node: ast.IfExp) -> Ev:
        test, body, orelse = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
        return lambda f: body(f) if test(f) else orelse(f)

    def e_NamedExpr(self, node: ast.NamedExpr) -> Ev:
        value = self.expr(node.value)
        store = self.store_name(node.target.id, walrus=True)

        def walrus(f: Frame) -> Any:
            v = value(f)
            store(f, v)
            return v
        return walrus

    # -- attributes and subscripts ---------------------------------------------------------
    def e_Attribute(self, node: ast.Attribute) -> Ev:
        """``obj.name`` as a value: a method bound to data that can change comes behind a door
        (``membrane.method_value``), since whoever receives it may be host code calling it with
        host arguments. ``obj.name(...)`` is compiled by ``_callee_attribute`` instead."""
        obj = self.expr(node.value)
        name = node.attr
        method_types, method_value = _METHOD_TYPES, membrane.method_value

        def attribute(f: Frame) -> Any:
            value = get_attr(obj(f), name)
            return method_value(value) if type(value) in method_types else value
        return attribute

    def _callee_attribute(self, node: ast.Attribute) -> Ev:
        """``obj.name`` about to be called by guest code (``a.append(x)``): the method as it is."""
        obj = self.expr(node.value)
        name = node.attr
        return lambda f: get_attr(obj(f), name)

    def e_Subscript(self, node: ast.Subscript) -> Ev:
        obj = self.expr(node.value)
        if isinstance(node.slice, ast.Constant):
            c = node.slice.value
            return lambda f: obj(f)[c]
        key = self.expr(node.slice)
        def load(f: Frame) -> Any:
            o, k = obj(f), key(f)  # obj before key, as CPython evaluates them
            tk = type(k)
            if tk is slice:
                if type(o) in SEQ_COPIES:
                    price_slice(o, k)  # a copy: checked against the memory limit
            elif tk not in FREE_KEYS and not (tk is tuple and FLAT.issuperset(map(type, k))):
                keyed(k)  # hashed whole in C: a shared nested key is priced first
            return o[k]
        return load

    def e_Slice(self, node: ast.Slice) -> Ev:
        lo = self.expr(node.lower) if node.lower else None
        hi = self.expr(node.upper) if node.upper else None
        st = self.expr(node.step) if node.step else None
        return lambda f: slice(lo(f) if lo else None, hi(f) if hi else None, st(f) if st else None)

    def e_Starred(self, node: ast.Starred) -> Ev:
        raise InternalError("starred expression outside a container or call")

    # -- calls -----------------------------------------------------------------------------
    def e_Call(self, node: ast.Call) -> Ev:
        if (isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args
                and not node.keywords and self.scope.kind == "function"):
            return self._zero_arg_super(node)
        if isinstance(node.func, ast.Name) and node.func.id == "dir" and not node.args and not node.keywords:
            return self._zero_arg_dir()
        func = node.func
        fn = self._callee_attribute(func) if isinstance(func, ast.Attribute) else self.expr(func)
        simple = not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
        if simple:
            if len(node.args) == 1 and self._global_callee(node.func):
                return self._call1_global(node.func.id, node.args[0])  # type: ignore[attr-defined]
            args = [self.expr(a) for a in node.args]
            if len(args) == 0:
                return lambda f: call_value(f[1], fn(f), ())
            if len(args) == 1:
                a0 = args[0]

                def call1(f: Frame) -> Any:
                    func = fn(f)
                    if type(func) is Function:
                        return func.run1(func, f[1], a0(f))
                    return call_value(f[1], func, (a0(f),))
                return call1
            if len(args) == 2:
                a0, a1 = args

                def call2(f: Frame) -> Any:
                    func = fn(f)
                    if type(func) is Function:
                        return func.run(func, f[1], (a0(f), a1(f)))
                    return call_value(f[1], func, (a0(f), a1(f)))
                return call2
            return lambda f: call_value(f[1], fn(f), [a(f) for a in args])
        build = self._elts(node.args)
        kws = [(k.arg, self.expr(k.value)) for k in node.keywords]

        def call(f: Frame) -> Any:
            func = fn(f)
            args = build(f)
            kwargs: dict[str, Any] = {}
            for name, v in kws:
                if name is None:
                    m = v(f)
                    if not hasattr(type(m), "keys"):
                        raise TypeError(f"{_callee(func)} argument after ** must be a mapping, "
                                        f"not {type(m).__name__}")
                    for k in metered(m.keys()):
                        if k in kwargs:
                            raise TypeError(f"{_callee(func)} got multiple values for keyword argument '{k}'")
                        kwargs[k] = m[k]
                elif name in kwargs:  # ``f(**{'a': 1}, a=2)``: CPython refuses, never overwrites
                    raise TypeError(f"{_callee(func)} got multiple values for keyword argument '{name}'")
                else:
                    kwargs[name] = v(f)
            return call_value(f[1], func, args, kwargs)
        return call

    def _global_callee(self, func: ast.expr) -> bool:
        return (isinstance(func, ast.Name) and self.scope.kind != "class"
                and self.scope.kind_of(func.id) in (GLOBAL, NAME))

    def _call1_global(self, name: str, arg: ast.expr) -> Ev:
        """``name(arg)`` with a global callee (``f(n - 1)``, ``len(xs)``): the lookup inline,
        and the argument too when it is a simple operand or a binary operation of two."""
        binop = None
        if isinstance(arg, ast.BinOp):
            t = type(arg.op)
            guarded = guarded_binop(t, False)
            fn = guarded if guarded is not None else _BINOPS[t]
            binop = (t, fn, guarded is not None, self.operand(arg.right))
            left = self.operand(arg.left)
        else:
            left = self.operand(arg)
        return call1_global_closure(name, BUILTINS, _MISSING, Function, call_value, left, binop)

    def _zero_arg_super(self, node: ast.Call) -> Ev:
        load = self.load_name("super")
        scope = self.scope
        cls_slot = scope.slots.get("__class__")
        first = scope.params[0] if scope.params else None
        load_first = self.load_name(first) if first else None

        def zsuper(f: Frame) -> Any:
            fn = load(f)
            if fn is not BUILTINS["super"]:
                return call_value(f[1], fn, ())
            if cls_slot is None or load_first is None:
                raise RuntimeError("super(): no arguments")
            try:
                cls = f[cls_slot].v
            except AttributeError:
                raise RuntimeError("super(): empty __class__ cell") from None
            return fn(cls, load_first(f))
        return zsuper

    def _zero_arg_dir(self) -> Ev:
        """``dir()``: the names bound in the current scope, sorted, as CPython gives. Only what
        the compiler resolved for this scope is read (slots, the class body, the globals' str
        keys); dunder globals are left out, so no interpreter-held name is ever listed."""
        load = self.load_name("dir")
        scope = self.scope
        kind = scope.kind
        slots = sorted((n, i) for n, i in scope.slots.items() if not (n[:2] == "__" and n[-2:] == "__"))

        def zdir(f: Frame) -> Any:
            fn = load(f)
            if fn is not BUILTINS["dir"]:
                return call_value(f[1], fn, ())
            if kind == "module":
                return sorted(k for k in f[0] if type(k) is str and not (k[:2] == "__" and k[-2:] == "__"))
            if kind == "class":
                return sorted(k for k in f[3] if type(k) is str)
            names = []
            for name, i in slots:
                v = f[i]
                if type(v) is Cell:
                    if hasattr(v, "v"):
                        names.append(name)
                elif v is not UNBOUND:
                    names.append(name)
            return names
        return zdir

    # -- functions and comprehensions (defined with the statement compiler) ---------------
    def e_Lambda(self, node: ast.Lambda) -> Ev:
        return self.make_function(node)

    def e_ListComp(self, node: ast.ListComp) -> Ev:
        return self.comprehension(node)

    def e_SetComp(self, node: ast.SetComp) -> Ev:
        return self.comprehension(node)

    def e_DictComp(self, node: ast.DictComp) -> Ev:
        return self.comprehension(node)

    def e_GeneratorExp(self, node: ast.GeneratorExp) -> Ev:
        return self.comprehension(node)

    # -- f-strings -------------------------------------------------------------------------
    def e_JoinedStr(self, node: ast.JoinedStr) -> Ev:
        parts = [self.expr(v) for v in node.values]
        return lambda f: "".join([p(f) for p in parts])

    def e_FormattedValue(self, node: ast.FormattedValue) -> Ev:
        value = self.expr(node.value)
        # the conversions are priced like the builtins: repr/ascii escape up to 10x
        conv = {-1: None, 115: g_text, 114: g_repr, 97: g_ascii}[node.conversion]
        spec = self.expr(node.format_spec) if node.format_spec is not None else None
        fmt = membrane.format_value

        def formatted(f: Frame) -> str:
            v = value(f)
            if conv is not None:
                v = conv(v)
            return fmt(v, spec(f) if spec is not None else "")
        return formatted

    # -- generators and coroutines ---------------------------------------------------------
    def _require_function(self, node: ast.expr, what: str, async_only: bool = False) -> None:
        """``yield``/``await`` where CPython's compiler refuses them (``ast.parse`` accepts them)."""
        s = self.scope
        if not async_only:
            ok, where = s.kind == "function" and not s.is_comprehension, "function"
        else:
            while s.is_comprehension and s.parent is not None:
                s = s.parent
            ok = s.kind == "function" and isinstance(s.node, ast.AsyncFunctionDef)
            # top-level await (as IPython allows): the module then runs as a coroutine
            ok = ok or (s.kind == "module" and getattr(self, "top_level_await", False))
            where = "async function" if s.kind == "function" else "function"
        if not ok:
            from safe_eval.rules import SYNTAX_ERROR  # only on this defensive path

            raise PolicyViolation([SYNTAX_ERROR.diagnostic(span_of(node), hint="",
                                                           detail=f"'{what}' outside {where}")],
                                  "\n".join(self.lines))

    def e_Yield(self, node: ast.Yield) -> Ev:
        self._require_function(node, "yield")
        from safe_eval.interpreter import generators  # greenlet: loaded by the first generator

        value = self.expr(node.value) if node.value else None
        switch = generators.yield_async if self.scope.is_async else generators.yield_value
        return lambda f: switch([value(f) if value else None])  # boxed: see generators.yield_value

    def e_YieldFrom(self, node: ast.YieldFrom) -> Ev:
        self._require_function(node, "yield")
        from safe_eval.interpreter import generators  # greenlet: loaded by the first generator

        value = self.expr(node.value)
        return lambda f: generators.yield_from([value(f)])

    def e_Await(self, node: ast.Await) -> Ev:
        self._require_function(node, "await", async_only=True)
        from safe_eval.interpreter import generators  # greenlet: loaded by the first generator

        value = self.expr(node.value)
        return lambda f: generators.await_value([value(f)])
