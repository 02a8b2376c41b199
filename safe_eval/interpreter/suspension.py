"""What the interpreter holds across a suspension lives on the guest frame, never in a host frame.

A suspended guest generator body is a suspended greenlet, and the cyclic collector does not see
into a suspended greenlet: whatever its host frames (the closures of this interpreter) refer to
counts as alive. ``generators.Resumable._park`` moves the body's frame list onto the generator
while it is suspended, where the collector does see it; so anything a closure needs across a
``yield``/``await`` is kept on the frame, on its tail past the slots (a stack: each construct
pushes at entry and truncates back on exit), and not in a Python local or on the value stack.
Otherwise a generator suspended in a ``for`` loop over something leading back to it, or in
``f(g, (yield))``, would keep its run's namespace alive after the host dropped everything.

This module holds the expression side (operands evaluated before a suspending operand, the
short-circuit operators); ``compile_stmt`` lowers ``for``/``with``/augmented assignment the same
way, ``compiler`` the loops of generator expressions, ``generators`` ``yield from``/``await``.
Code that never suspends compiles as before: the lowering only applies where a suspension is.
"""

from __future__ import annotations

import ast
from typing import Any

from safe_eval.interpreter.compile_base import CompilerBase, Ev
from safe_eval.interpreter.compile_expr import compare_fn as _compare_fn
from safe_eval.interpreter.runtime import Frame

__all__ = ["SuspensionCompiler", "next_onto", "parks_frame", "suspends"]

_SUSPENSIONS = (ast.Yield, ast.YieldFrom, ast.Await)
_INLINE_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp)


def suspends(node: ast.AST | list[Any] | None) -> bool:
    """``node`` (or any node of a list) can switch the greenlet it runs on: it contains a
    ``yield``, ``yield from`` or ``await`` evaluated in the enclosing body, including an
    ``await`` in a list/set/dict comprehension, which runs inline (a nested function, class or
    lambda body, and a generator expression's loops, are bodies of their own)."""
    if node is None:
        return False
    if isinstance(node, list):
        return any(suspends(n) for n in node)
    known: bool | None = getattr(node, _MEMO, None)  # asked of every operand on the way down
    if known is None:
        known = _suspends(node)
        setattr(node, _MEMO, known)
    return known


_MEMO = "_safe_eval_suspends"


def _suspends(node: ast.AST) -> bool:
    if isinstance(node, _SUSPENSIONS):
        return True
    if isinstance(node, ast.comprehension) and node.is_async:  # each item is awaited
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return suspends(node.decorator_list) or suspends(node.args)
    if isinstance(node, ast.Lambda):
        return suspends(node.args)
    if isinstance(node, ast.ClassDef):
        return suspends(node.decorator_list) or suspends(node.bases) or suspends(node.keywords)
    if isinstance(node, ast.GeneratorExp):
        return suspends(node.generators[0].iter)
    return any(suspends(c) for c in ast.iter_child_nodes(node))


def parks_frame(scope: Any) -> bool:
    """The scope's frame is one ``Resumable._park`` moves aside while its body is suspended:
    a generator (also a generator expression) or an ``async def`` body, and a list/set/dict
    comprehension that suspends in one of those (its frame is parked with the body's)."""
    if scope.kind != "function":
        return False
    return bool(scope.is_generator) or scope.parked_inline or (
        not scope.is_comprehension and isinstance(scope.node, ast.AsyncFunctionDef))


def next_onto(f: Frame, k: int) -> bool:
    """The next item of the iterator at ``f[k]`` onto ``f``'s tail; False once exhausted."""
    try:
        f.append(next(f[k]))
    except StopIteration:
        return False
    return True


class _Temp(ast.expr):
    """An operand already evaluated onto the frame's tail: ``back`` is its negative index
    there at the moment the operation reads it."""

    _fields = ()

    def __init__(self, back: int) -> None:
        super().__init__()
        self.back = back


def _operands(node: ast.expr) -> list[ast.expr] | None:
    """``node``'s operands in evaluation order, when all are evaluated before it operates
    (None: a node that evaluates some operands conditionally, or has a single one)."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.Compare):
        # a chain's later operands are conditional: only the first pair is always evaluated
        return [node.left, node.comparators[0]]
    if isinstance(node, ast.Call):
        return [node.func, *[a.value if isinstance(a, ast.Starred) else a for a in node.args],
                *[k.value for k in node.keywords]]
    if isinstance(node, ast.Subscript):
        return [node.value, node.slice]
    if isinstance(node, ast.Slice):
        return [e for e in (node.lower, node.upper, node.step) if e is not None]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value if isinstance(e, ast.Starred) else e for e in node.elts]
    if isinstance(node, ast.Dict):
        out: list[ast.expr] = []
        for k, v in zip(node.keys, node.values, strict=False):
            if k is not None:
                out.append(k)
            out.append(v)
        return out
    if isinstance(node, ast.JoinedStr):
        return list(node.values)
    if isinstance(node, ast.FormattedValue):
        return [node.value] if node.format_spec is None else [node.value, node.format_spec]
    return None


def _replaced(node: ast.expr, new: dict[int, ast.expr]) -> ast.expr:
    """A copy of ``node`` with the operands whose ids are in ``new`` replaced."""
    def sub(e: ast.expr) -> ast.expr:
        return new.get(id(e), e)

    def sub_star(e: ast.expr) -> ast.expr:
        if isinstance(e, ast.Starred):
            return ast.copy_location(ast.Starred(value=sub(e.value), ctx=e.ctx), e)
        return sub(e)

    if isinstance(node, ast.BinOp):
        out: ast.expr = ast.BinOp(left=sub(node.left), op=node.op, right=sub(node.right))
    elif isinstance(node, ast.Compare):
        out = ast.Compare(left=sub(node.left), ops=node.ops,
                          comparators=[sub(node.comparators[0]), *node.comparators[1:]])
    elif isinstance(node, ast.Call):
        out = ast.Call(func=sub(node.func), args=[sub_star(a) for a in node.args],
                       keywords=[ast.copy_location(ast.keyword(arg=k.arg, value=sub(k.value)), k)
                                 for k in node.keywords])
    elif isinstance(node, ast.Subscript):
        out = ast.Subscript(value=sub(node.value), slice=sub(node.slice), ctx=node.ctx)
    elif isinstance(node, ast.Slice):
        out = ast.Slice(lower=node.lower and sub(node.lower), upper=node.upper and sub(node.upper),
                        step=node.step and sub(node.step))
    elif isinstance(node, ast.Tuple):
        out = ast.Tuple(elts=[sub_star(e) for e in node.elts], ctx=node.ctx)
    elif isinstance(node, ast.List):
        out = ast.List(elts=[sub_star(e) for e in node.elts], ctx=node.ctx)
    elif isinstance(node, ast.Set):
        out = ast.Set(elts=[sub_star(e) for e in node.elts])
    elif isinstance(node, ast.Dict):
        out = ast.Dict(keys=[None if k is None else sub(k) for k in node.keys],
                       values=[sub(v) for v in node.values])
    elif isinstance(node, ast.JoinedStr):
        out = ast.JoinedStr(values=[sub(v) for v in node.values])
    else:
        assert isinstance(node, ast.FormattedValue)
        out = ast.FormattedValue(value=sub(node.value), conversion=node.conversion,
                                 format_spec=node.format_spec and sub(node.format_spec))
    return ast.copy_location(out, node)


class SuspensionCompiler(CompilerBase):
    """Compiles the expressions of a parked frame's body that hold something across a
    suspension so that they hold it on the frame's tail instead."""

    def expr(self, node: ast.expr) -> Ev:
        if parks_frame(self.scope):
            if isinstance(node, ast.BoolOp) and suspends(node.values[1:]):
                return self._bool_op(node)
            if isinstance(node, ast.Compare) and suspends(node.comparators[1:]):
                return self._chain(node)
            operands = _operands(node)
            if operands is not None:
                last = max((i for i, e in enumerate(operands) if suspends(e)), default=0)
                if last > 0:
                    return self._spilled(node, operands[:last + 1])
        return super().expr(node)

    def e__Temp(self, node: _Temp) -> Ev:
        i = node.back

        def temp(f: Frame) -> Any:
            return f[i]
        return temp

    def _spilled(self, node: ast.expr, first: list[ast.expr]) -> Ev:
        """Operands up to the last suspending one go onto the frame's tail as they are
        evaluated; the operation then reads them from there (the rest inline: they cannot
        suspend)."""
        evs = [self.expr(e) for e in first]
        n = len(first)
        op = self.expr(_replaced(node, {id(e): ast.copy_location(_Temp(i - n), e)
                                        for i, e in enumerate(first)}))

        def spilled(f: Frame) -> Any:
            k = len(f)
            try:
                for e in evs:
                    f.append(e(f))
                return op(f)
            finally:
                del f[k:]
        return spilled

    def _chain(self, node: ast.Compare) -> Ev:
        """A comparison chain whose later operand suspends (``a < b < (yield)``): the operand
        compared next is on the tail, not in a local, while that operand runs."""
        left = self.expr(node.left)
        pairs = [(_compare_fn(op), self.expr(c)) for op, c in zip(node.ops, node.comparators, strict=True)]

        def chain(f: Frame) -> Any:
            k = len(f)
            try:
                f.append(left(f))
                r: Any = True
                for fn, right in pairs:
                    f.append(right(f))  # f[k]: the left operand, f[k + 1]: the right one
                    r = fn(f[k], f[k + 1])
                    if not r:
                        return r
                    del f[k]  # the right operand is the next pair's left
                return r
            finally:
                del f[k:]
        return chain

    def _bool_op(self, node: ast.BoolOp) -> Ev:
        """``and``/``or`` whose later operand suspends: the operand deciding is on the tail,
        not in a local, while the next one runs."""
        values = [self.expr(v) for v in node.values]
        last = len(values) - 1
        stop_on_true = isinstance(node.op, ast.Or)

        def bool_op(f: Frame) -> Any:
            k = len(f)
            try:
                for i, e in enumerate(values):
                    f.append(e(f))
                    if i == last or bool(f[k]) is stop_on_true:
                        return f.pop()
                    f.pop()
                return None  # unreachable: a BoolOp has two operands at least
            finally:
                del f[k:]
        return bool_op
