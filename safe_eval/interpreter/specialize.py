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

from safe_eval.interpreter.runtime import UNBOUND, Frame
from safe_eval.limits.operators import guarded_contains

__all__ = ["Operand", "binop_closure", "compare_closure", "if_compare_closure"]

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
}
_CMP_SYMBOL = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is not",
}


class Operand:
    __slots__ = ("kind", "value", "name")

    def __init__(self, kind: str, value: Any, name: str = "") -> None:
        self.kind, self.value, self.name = kind, value, name


def _unbound(name: str) -> None:
    raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")


def _load(var: str, kind: str, src: str, name_src: str) -> str:
    if kind == PARAM:
        return f"        {var} = f[{src}]\n"
    if kind == LOCAL:
        return f"        {var} = f[{src}]\n        if {var} is UNBOUND:\n            unbound({name_src})\n"
    if kind == CONST:
        return f"        {var} = {src}\n"
    return f"        {var} = {src}(f)\n"


_NS: dict[str, Any] = {"UNBOUND": UNBOUND, "unbound": _unbound, "S": 1 << 62, "contains": guarded_contains}
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
                 f"            return a {sym} b\n        return fn(a, b)\n")
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
