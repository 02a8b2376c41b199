"""Specialised closures for the hottest nodes: binary operators and comparisons.

A generic ``BinOp`` closure calls one closure per operand and then an operator function:
four Python calls for ``n % j``. Here the operands' kinds (a parameter slot, a local slot,
a constant, any other expression) are fixed at compile time and the operator is spelled
natively, so ``n % j`` is one call. The closure *factories* are generated once per
(operator, operand kinds) from the fixed templates below: host-written text only (no guest
text ever reaches ``exec``); guest values reach them only as closure arguments.

Small-int fast paths use the bound the limits guards use for their own fast path, so a
result computed inline is always small; everything else goes through ``guarded_binop``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from safe_eval.interpreter import tracebacks
from safe_eval.interpreter.runtime import UNBOUND, Frame
from safe_eval.interpreter.scopes import unbound_local
from safe_eval.limits.operators import guarded_contains

__all__ = [
    "Branch",
    "Operand",
    "binop_closure",
    "call1_global_closure",
    "compare_closure",
    "if_compare_closure",
    "if_return_closure",
]

Ev = Callable[[Frame], Any]
PARAM, LOCAL, CONST, EXPR = "P", "L", "C", "E"

_BIN_SYMBOL = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Mod: "%", ast.FloorDiv: "//", ast.Div: "/",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.MatMult: "@", ast.RShift: ">>",
    ast.Pow: "**", ast.LShift: "<<",
}
# extra condition (beyond "both ints") under which the native int operation is cheap and small
_INT_GUARD = {
    ast.Add: "", ast.Sub: "", ast.Mult: " and -S < a < S and -S < b < S",
    ast.Mod: " and -S < a < S", ast.FloorDiv: " and -S < a < S",
    ast.BitAnd: "", ast.BitOr: "", ast.BitXor: "", ast.RShift: "",
    ast.Div: "",
}
# guarded operators whose float operands are always cheap: computed inline too (``-`` and ``/``
# are guarded only for Fraction/Decimal operands)
_FLOAT_NATIVE = frozenset({ast.Sub, ast.Div})
_CMP_SYMBOL = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is not",
}


class Operand:
    __slots__ = ("kind", "value", "name")

    def __init__(self, kind: str, value: Any, name: str = "") -> None:
        self.kind, self.value, self.name = kind, value, name


def _unbound(name: str) -> None:
    raise unbound_local(name)


def _load(var: str, kind: str, src: str, name_src: str) -> str:
    if kind == PARAM:
        return f"        {var} = f[{src}]\n"
    if kind == LOCAL:
        return f"        {var} = f[{src}]\n        if {var} is UNBOUND:\n            unbound({name_src})\n"
    if kind == CONST:
        return f"        {var} = {src}\n"
    return f"        {var} = {src}(f)\n"


_NS: dict[str, Any] = {"UNBOUND": UNBOUND, "unbound": _unbound, "S": 1 << 62, "contains": guarded_contains,
                       "push": tracebacks.push}
_makers: dict[tuple[Any, ...], Callable[..., Ev]] = {}


def _build(key: tuple[Any, ...], body: str) -> Callable[..., Ev]:
    maker = _makers.get(key)
    if maker is None:
        text = f"def make(fn, l, r, ln, rn, x=None):\n    def op(f):\n{body}    return op\n"
        ns = dict(_NS)
        exec(compile(text, f"<safe_eval.specialize {key[0]}>", "exec"), ns)  # host template text only
        maker = _makers[key] = ns["make"]
    return maker


def binop_closure(op: type[ast.operator], fn: Callable[[Any, Any], Any], guarded: bool,
                  left: Operand, right: Operand) -> Ev:
    sym = _BIN_SYMBOL[op]
    key = ("bin", op.__name__, guarded, left.kind, right.kind)
    body = _load("a", left.kind, "l", "ln") + _load("b", right.kind, "r", "rn")
    if not guarded:
        body += f"        return a {sym} b\n"
    elif op in _INT_GUARD:
        body += (f"        if type(a) is int and type(b) is int{_INT_GUARD[op]}:\n"
                 f"            return a {sym} b\n")
        if op in _FLOAT_NATIVE:
            body += (f"        if type(a) is float and (type(b) is float or type(b) is int):\n"
                     f"            return a {sym} b\n")
        body += "        return fn(a, b)\n"
    else:
        body += "        return fn(a, b)\n"
    return _build(key, body)(fn, left.value, right.value, left.name, right.name)


def compare_closure(op: type[ast.cmpop], left: Operand, right: Operand) -> Ev:
    key = ("cmp", op.__name__, left.kind, right.kind)
    body = _load("a", left.kind, "l", "ln") + _load("b", right.kind, "r", "rn")
    if op is ast.In:
        body += "        return contains(a, b)\n"
    elif op is ast.NotIn:
        body += "        return not contains(a, b)\n"
    else:
        body += f"        return a {_CMP_SYMBOL[op]} b\n"
    return _build(key, body)(None, left.value, right.value, left.name, right.name)


def _cmp_expr(op: type[ast.cmpop]) -> str:
    if op is ast.In:
        return "contains(a, b)"
    if op is ast.NotIn:
        return "not contains(a, b)"
    return f"a {_CMP_SYMBOL[op]} b"


def if_compare_closure(op: type[ast.cmpop], left: Operand, right: Operand, body: Ev, orelse: Ev | None,
                       pos: tuple[int, int], note: Callable[[BaseException, tuple[int, int]], None]) -> Ev:
    """``if a <op> b: body [else: orelse]`` as one closure (the test is not a separate call);
    an exception in the test is noted at the ``if`` line."""
    key = ("if", op.__name__, left.kind, right.kind, orelse is not None)
    loads = _load("a", left.kind, "l", "ln") + _load("b", right.kind, "r", "rn")
    loads = "".join("    " + line + "\n" for line in loads.rstrip("\n").split("\n"))
    text = ("        try:\n" + loads + f"            t = {_cmp_expr(op)}\n"
            "        except BaseException as e:\n            x[2](e, x[3])\n            raise\n"
            "        if t:\n            return fn(f)\n")
    text += "        return x[0](f)\n" if orelse is not None else "        return None\n"
    return _build(key, text)(body, left.value, right.value, left.name, right.name, (orelse, None, note, pos))


# A branch of a returning ``if``: what it returns. PARAM (a parameter slot, always bound) and
# CONST are read inline; VALUE is a closure whose exceptions are noted at the branch's return
# statement; BODY is a returning body closure that notes its own statements.
VALUE, BODY = "V", "B"


class Branch:
    __slots__ = ("kind", "value", "pos")

    def __init__(self, kind: str, value: Any, pos: tuple[int, int] = (0, 0)) -> None:
        self.kind, self.value, self.pos = kind, value, pos


def _branch(var: str, pos: str, kind: str) -> str:
    if kind == PARAM:
        return f"        return f[{var}]\n"
    if kind == CONST:
        return f"        return {var}\n"
    if kind == BODY:
        return f"        return {var}(f)\n"
    return (f"        try:\n            return {var}(f)\n"
            f"        except BaseException as e:\n            note(e, {pos})\n            raise\n")


def _indent(src: str) -> str:
    return "".join("    " + line + "\n" for line in src.rstrip("\n").split("\n"))


_ret_makers: dict[tuple[Any, ...], Callable[..., Ev]] = {}


def if_return_closure(op: type[ast.cmpop], left: Operand, right: Operand, then: Branch, other: Branch,
                      pos: tuple[int, int], note: Callable[[BaseException, tuple[int, int]], None]) -> Ev:
    """``if a <op> b: return X`` followed by ``return Y`` (or ``else: return Y``) in a function
    body, as one closure that *returns* the function's value: no separate closures for the
    test, the block and the two ``return`` statements, and no RETURN signal. Exceptions are
    noted where the statements would note them (the test at the ``if``, a value at its
    ``return``)."""
    key = ("ifret", op.__name__, left.kind, right.kind, then.kind, other.kind)
    maker = _ret_makers.get(key)
    if maker is None:
        loads = _load("a", left.kind, "l", "ln") + _load("b", right.kind, "r", "rn")
        then_src = _indent(_branch("x", "xpos", then.kind))
        text = ("def make(l, r, ln, rn, x, y, xpos, ypos, pos, note):\n    def op(f):\n"
                "        try:\n" + _indent(loads) + f"            t = {_cmp_expr(op)}\n"
                "        except BaseException as e:\n            note(e, pos)\n            raise\n"
                "        if t:\n" + then_src + _branch("y", "ypos", other.kind) + "    return op\n")
        ns = dict(_NS)
        exec(compile(text, f"<safe_eval.specialize {key[0]}>", "exec"), ns)  # host template text only
        maker = _ret_makers[key] = ns["make"]
    return maker(left.value, right.value, left.name, right.name, then.value, other.value, then.pos,
                 other.pos, pos, note)


# A guest function taking one positional argument whose body returns its value (``body1`` set,
# see functions.py) is entered inline: the same fuel tick, depth check, frame and traceback
# push as ``functions._make_invoker1``, one host call fewer per guest call.
_CALL1_GUEST = """\
        if type(func) is Function:
            body = func.body1
            if body is None:
                return func.run1(func, f[1], v)
            b = f[1]
            b.fuel -= 1
            if b.fuel < 0:
                b.refuel()
            b.depth += 1
            if b.depth > b.max_depth:
                b.too_deep()
            try:
                return body([func.globals, b, None, v])
            except BaseException as e:
                push(e, func.code.info)
                raise
            finally:
                b.depth -= 1
"""

_call_makers: dict[tuple[Any, ...], Callable[..., Ev]] = {}


def call1_global_closure(name: str, builtins: dict[str, Any], missing: Any, function_type: type,
                         call_value: Callable[..., Any], arg: Operand,
                         binop: tuple[type[ast.operator], Callable[[Any, Any], Any], bool, Operand] | None
                         ) -> Ev:
    """``name(arg)`` with a global callee (``fib(n - 1)``, ``len(xs)``): the global/builtin
    lookup and the argument inline. ``binop`` (operator, its function, guarded, right operand)
    makes the argument ``arg <op> right`` computed inline too (same fast path and guard as
    ``binop_closure``); else ``arg`` is the whole argument. The lookup happens before the
    argument is evaluated, as in CPython."""
    if binop is None:
        key: tuple[Any, ...] = ("call1", arg.kind)
        src = _load("v", arg.kind, "l", "ln")
        right = Operand(CONST, None)
        fn: Any = None
    else:
        op, fn, guarded, right = binop
        key = ("call1", arg.kind, op.__name__, guarded, right.kind)
        sym = _BIN_SYMBOL[op]
        src = _load("a", arg.kind, "l", "ln") + _load("b", right.kind, "r", "rn")
        if not guarded:
            src += f"        v = a {sym} b\n"
        elif op in _INT_GUARD:
            src += (f"        if type(a) is int and type(b) is int{_INT_GUARD[op]}:\n"
                    f"            v = a {sym} b\n        else:\n            v = fn(a, b)\n")
        else:
            src += "        v = fn(a, b)\n"
    maker = _call_makers.get(key)
    if maker is None:
        text = ("def make(name, bi, missing, Function, call_value, fn, l, r, ln, rn):\n    def op(f):\n"
                "        func = f[0].get(name, missing)\n"
                "        if func is missing:\n"
                "            func = bi.get(name, missing)\n"
                "            if func is missing:\n"
                "                raise NameError(\"name '%s' is not defined\" % name)\n"
                + src + _CALL1_GUEST +
                "        return call_value(f[1], func, (v,))\n"
                "    return op\n")
        ns = dict(_NS)
        exec(compile(text, f"<safe_eval.specialize {key[0]}>", "exec"), ns)  # host template text only
        maker = _call_makers[key] = ns["make"]
    return maker(name, builtins, missing, function_type, call_value, fn, arg.value, right.value,
                 arg.name, right.name)
