"""Statements -> closures ``(frame) -> None | signal``; assignment targets -> ``(frame, value)``."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from typing import Any

from safe_eval import membrane
from safe_eval.context import current_context
from safe_eval.errors import InternalError, LimitExceeded, SafeEvalError
from safe_eval.interpreter import tracebacks
from safe_eval.interpreter.compile_base import CompilerBase
from safe_eval.interpreter.compile_expr import binop_fn, get_attr
from safe_eval.interpreter.handled import raise_as_is as _raise_as_is
from safe_eval.interpreter.runtime import BREAK, CONTINUE, RETURN, UNBOUND, Frame
from safe_eval.interpreter.scopes import CELL, FAST, unbound_free, unbound_local
from safe_eval.interpreter.specialize import BODY, PARAM, VALUE, Branch, if_compare_closure, if_return_closure
from safe_eval.interpreter.specialize import CONST as CONST_OPERAND
from safe_eval.interpreter.suspension import next_onto, parks_frame, suspends
from safe_eval.limits.budget import depth_limit_of
from safe_eval.limits.iteration import drain, metered
from safe_eval.limits.sharing import FLAT, FREE_KEYS, keyed
from safe_eval.membrane.proxies import HostExceptionClass, exception_class

__all__ = ["Discarded", "StmtCompiler", "guest_raised", "enter_guest"]

St = Callable[[Frame], Any]
Store = Callable[[Frame, Any], None]
# What a guest ``except`` never catches: the limits (SafeEvalError) and greenlet's GreenletExit,
# added by ``generators`` when it imports greenlet (and by the session when the host imported
# greenlet itself): until then no GreenletExit can exist. Read as a global at run time.
_NOT_CATCHABLE: tuple[type[BaseException], ...] = (SafeEvalError,)


class Discarded(BaseException):
    """Thrown into the suspended body of a guest generator dropped outside the run that made
    it (see ``generators.Resumable.__del__``): unwinds the body without running any guest code,
    so neither ``except`` nor ``finally`` (nor ``with``'s ``__exit__``) sees it."""


def _unboxed(box: list[Any]) -> Any:
    """``wait`` of a synchronous ``with``: the value itself (``await_value`` takes it boxed)."""
    return box[0]
_RAISED = "__safe_eval_raised__"


def guest_raised(e: BaseException) -> bool:
    return getattr(e, "__dict__", {}).get(_RAISED, False) is True


def enter_guest(e: BaseException) -> BaseException:
    """The exception object a guest ``except`` clause sees for ``e``."""
    if guest_raised(e):
        return e
    # our own bookkeeping (the guest traceback) is not guest data: keep it out of the cleaning
    d = getattr(e, "__dict__", None)
    saved = d.pop(tracebacks.KEY, None) if d is not None else None
    ex = membrane.guest_exception(e)
    try:
        if saved is not None:
            ex.__dict__[tracebacks.KEY] = saved
        ex.__dict__[_RAISED] = True
    except AttributeError:
        pass
    return ex


def _mark_raised(e: BaseException) -> None:
    try:
        e.__dict__[_RAISED] = True
    except AttributeError:
        pass


def _exception_instance(v: Any) -> BaseException:
    if type(v) is HostExceptionClass:
        v = v()  # ``raise HostError``: constructing it is a tool call the policy decides
    elif isinstance(v, type) and issubclass(v, BaseException):
        v = v()
    if not isinstance(v, BaseException):
        raise TypeError("exceptions must derive from BaseException")
    return v


def _unpack(n: int, v: Any) -> list[Any]:
    it = iter(v)
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            raise ValueError(f"not enough values to unpack (expected {n}, got {len(out)})") from None
    try:
        next(it)
    except StopIteration:
        return out
    raise ValueError(f"too many values to unpack (expected {n})")


_SLICE_STORES = (list, bytearray)


def _host_slice_store(tp: type) -> bool:
    """``tp``'s ``__setitem__`` is list's or bytearray's, which copy an iterable value in C
    (a guest ``__setitem__`` gets the value it was given, as in CPython)."""
    if tp is list or tp is bytearray:
        return True
    for klass in tp.__mro__:
        if "__setitem__" in klass.__dict__:
            return klass in _SLICE_STORES
    return False


class StmtCompiler(CompilerBase):
    # -- blocks ----------------------------------------------------------------------------
    def block(self, nodes: list[ast.stmt]) -> St:
        items = [self.noted_stmt(s) for s in nodes]
        if len(items) == 1:
            return items[0]
        if len(items) == 2:
            s0, s1 = items

            def run2(f: Frame) -> Any:
                r = s0(f)
                if r is not None:
                    return r
                return s1(f)
            return run2

        def run(f: Frame) -> Any:
            for s in items:
                r = s(f)
                if r is not None:
                    return r
            return None
        return run

    # -- function bodies that return their value -------------------------------------------
    def function_body(self, nodes: list[ast.stmt]) -> St:
        """A plain function's body as a closure returning the function's value (None when it
        falls off the end). A trailing ``return e`` is evaluated directly and a trailing
        ``if c: return a`` + ``return b`` (or ``if/else`` returning on both sides) is one
        closure, instead of statement closures passing the value through ``frame[RET]`` and
        the RETURN signal; anything else runs as a block and reads ``frame[RET]``."""
        *init, last = nodes
        tail: St | None = None
        if isinstance(last, ast.Return):
            if init and _fusable_if(init[-1]):
                tail = self._if_return(init.pop(), self._return_branch(last))  # type: ignore[arg-type]
            else:
                tail = self._branch_closure(self._return_branch(last))
        elif _fusable_if(last, need_else=True):
            tail = self._if_return(last, None)  # type: ignore[arg-type]
        if tail is None:
            block = self.block(nodes)

            def body_value(f: Frame) -> Any:
                block(f)
                return f[2]
            return body_value
        if not init:
            return tail
        prefix, value = self.block(init), tail

        def prefix_then_value(f: Frame) -> Any:
            if prefix(f) is not None:  # only RETURN can leave a function's top-level block
                return f[2]
            return value(f)
        return prefix_then_value

    def _return_branch(self, node: ast.Return) -> Branch:
        pos = _pos(node)
        if node.value is None:
            return Branch(CONST_OPERAND, None, pos)
        op = self.operand(node.value)
        if op.kind in (PARAM, CONST_OPERAND):
            return Branch(op.kind, op.value, pos)
        return Branch(VALUE, self.expr(node.value), pos)

    def _branch_closure(self, br: Branch) -> St:
        v, pos, note = br.value, br.pos, tracebacks.note
        if br.kind == PARAM:
            return lambda f: f[v]
        if br.kind == CONST_OPERAND:
            return lambda f: v
        if br.kind == BODY:
            return v  # type: ignore[no-any-return]

        def return_value(f: Frame) -> Any:
            try:
                return v(f)
            except BaseException as e:
                note(e, pos)
                raise
        return return_value

    def _if_return(self, node: ast.If, after: Branch | None) -> St:
        """``if t: <returning body>`` then ``after`` (None: the ``else`` returns)."""
        first = node.body[0]
        if len(node.body) == 1 and isinstance(first, ast.Return):
            then = self._return_branch(first)  # ``if c: return x``: x read inline when simple
        else:
            then = Branch(BODY, self.function_body(node.body))
        other = Branch(BODY, self.function_body(node.orelse)) if after is None else after
        pos, note, t = _pos(node), tracebacks.note, node.test
        if isinstance(t, ast.Compare) and len(t.ops) == 1:
            return if_return_closure(type(t.ops[0]), self.operand(t.left), self.operand(t.comparators[0]),
                                     then, other, pos, note)
        test, yes, no = self.expr(t), self._branch_closure(then), self._branch_closure(other)

        def if_return(f: Frame) -> Any:
            try:
                c = test(f)
            except BaseException as e:
                note(e, pos)
                raise
            if c:
                return yes(f)
            return no(f)
        return if_return

    def noted_stmt(self, node: ast.stmt) -> St:
        """The statement's closure, noting its position on exceptions going through it
        (hot statements note inline: a zero-cost ``try`` instead of a wrapper call)."""
        fn = self.stmt(node)
        if type(node) in _SELF_NOTING:
            return fn
        pos = (node.lineno, node.col_offset)
        note = tracebacks.note

        def noted(f: Frame) -> Any:
            try:
                return fn(f)
            except BaseException as e:
                note(e, pos)
                raise
        return noted

    def stmt(self, node: ast.stmt) -> St:
        h = getattr(self, "s_" + type(node).__name__, None)
        if h is None:
            raise InternalError(f"unsupported statement: {type(node).__name__}")
        return h(node)  # type: ignore[no-any-return]

    # -- simple statements -----------------------------------------------------------------
    def s_Expr(self, node: ast.Expr) -> St:
        e = self.expr(node.value)
        pos, note = _pos(node), tracebacks.note

        def expr_stmt(f: Frame) -> None:
            try:
                e(f)
            except BaseException as exc:
                note(exc, pos)
                raise
        return expr_stmt

    def s_Pass(self, node: ast.Pass) -> St:
        return lambda f: None

    def s_Break(self, node: ast.Break) -> St:
        return lambda f: BREAK

    def s_Continue(self, node: ast.Continue) -> St:
        return lambda f: CONTINUE

    def s_Return(self, node: ast.Return) -> St:
        if node.value is None:
            def ret_none(f: Frame) -> Any:
                f[2] = None
                return RETURN
            return ret_none
        value = self.expr(node.value)
        pos, note = _pos(node), tracebacks.note

        def ret(f: Frame) -> Any:
            try:
                f[2] = value(f)
            except BaseException as e:
                note(e, pos)
                raise
            return RETURN
        return ret

    def s_Global(self, node: ast.Global) -> St:
        return lambda f: None

    s_Nonlocal = s_Global

    def s_Assign(self, node: ast.Assign) -> St:
        value = self.expr(node.value)
        pos, note = _pos(node), tracebacks.note
        if len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Name) and self.scope.kind_of(t.id) == FAST:
                i = self.scope.slots[t.id]

                def assign_fast(f: Frame) -> None:
                    try:
                        f[i] = value(f)
                    except BaseException as e:
                        note(e, pos)
                        raise
                return assign_fast
            store = self.store(t)

            def assign(f: Frame) -> None:
                try:
                    store(f, value(f))
                except BaseException as e:
                    note(e, pos)
                    raise
            return assign
        stores = [self.store(t) for t in node.targets]

        def assign_many(f: Frame) -> None:
            try:
                v = value(f)
                for s in stores:
                    s(f, v)
            except BaseException as e:
                note(e, pos)
                raise
        return assign_many

    def s_AnnAssign(self, node: ast.AnnAssign) -> St:
        target = node.target
        if self.scope.kind == "class" and isinstance(target, ast.Name) and node.simple:
            name = target.id
            # the original annotation scrub kept aside (the tree holds an inert marker); the
            # class statement resolves it to a real type once the class exists (classes.py)
            original = self.annotations.get(id(self.scope.node), {}).get(name, node.annotation)
            value = self.expr(node.value) if node.value is not None else None
            store = self.store(target)

            def class_field(f: Frame) -> None:
                ns = f[3]
                if "__annotations__" not in ns:
                    ns["__annotations__"] = {}
                ns["__annotations__"][name] = original
                if value is not None:
                    store(f, value(f))
            return class_field
        if node.value is None:
            return lambda f: None
        return self.s_Assign(ast.copy_location(ast.Assign(targets=[target], value=node.value), node))

    def s_AugAssign(self, node: ast.AugAssign) -> St:
        if parks_frame(self.scope) and suspends(node):
            return self._aug_parked(node)
        fn = binop_fn(node.op, inplace=True)
        value = self.expr(node.value)
        t = node.target
        if isinstance(t, ast.Name):
            load = self.load_name(t.id)
            if self.scope.kind_of(t.id) == FAST:
                i = self.scope.slots[t.id]
                pos, note = _pos(node), tracebacks.note

                def aug_fast(f: Frame) -> None:
                    try:
                        f[i] = fn(load(f), value(f))
                    except BaseException as e:
                        note(e, pos)
                        raise
                return aug_fast
            store = self.store(t)

            def aug_name(f: Frame) -> None:
                store(f, fn(load(f), value(f)))
            return aug_name
        if isinstance(t, ast.Attribute):
            obj, name = self.expr(t.value), t.attr

            def aug_attr(f: Frame) -> None:
                o = obj(f)
                membrane.set_attr(o, name, fn(get_attr(o, name), value(f)))
            return aug_attr
        if isinstance(t, ast.Subscript):
            obj, key = self.expr(t.value), self.expr(t.slice)

            def aug_item(f: Frame) -> None:
                o, k = obj(f), key(f)
                tk = type(k)
                if tk not in FREE_KEYS and not (tk is tuple and FLAT.issuperset(map(type, k))):
                    keyed(k)  # hashed whole in C: a shared nested key is priced first
                o[k] = fn(o[k], value(f))
            return aug_item
        raise InternalError("bad augmented assignment target")

    def _aug_parked(self, node: ast.AugAssign) -> St:
        """``s_AugAssign`` where an operand can suspend, in a body whose frame is parked while
        suspended: the target's object, key and old value wait on the frame's tail."""
        fn = binop_fn(node.op, inplace=True)
        value = self.expr(node.value)
        t = node.target
        if isinstance(t, ast.Name):
            load, store = self.load_name(t.id), self.store(t)

            def aug_name(f: Frame) -> None:
                k = len(f)
                try:
                    f.append(load(f))
                    f.append(value(f))
                    store(f, fn(f[k], f[k + 1]))
                finally:
                    del f[k:]
            return aug_name
        if isinstance(t, ast.Attribute):
            obj, name = self.expr(t.value), t.attr

            def aug_attr(f: Frame) -> None:
                k = len(f)
                try:
                    f.append(obj(f))
                    f.append(get_attr(f[k], name))
                    f.append(value(f))
                    membrane.set_attr(f[k], name, fn(f[k + 1], f[k + 2]))
                finally:
                    del f[k:]
            return aug_attr
        if isinstance(t, ast.Subscript):
            obj, key = self.expr(t.value), self.expr(t.slice)

            def aug_item(f: Frame) -> None:
                k = len(f)
                try:
                    f.append(obj(f))
                    f.append(key(f))
                    f.append(f[k][f[k + 1]])
                    f.append(value(f))
                    f[k][f[k + 1]] = fn(f[k + 2], f[k + 3])
                finally:
                    del f[k:]
            return aug_item
        raise InternalError("bad augmented assignment target")

    def s_Delete(self, node: ast.Delete) -> St:
        dels = [self.delete(t) for t in node.targets]

        def delete(f: Frame) -> None:
            for d in dels:
                d(f)
        return delete

    def s_Assert(self, node: ast.Assert) -> St:
        test = self.expr(node.test)
        msg = self.expr(node.msg) if node.msg is not None else None

        def assert_(f: Frame) -> None:
            if not test(f):
                e = AssertionError(msg(f)) if msg is not None else AssertionError()
                _mark_raised(e)
                try:
                    raise e
                finally:  # a local naming the exception its traceback holds is a cycle for the GC
                    del e
        return assert_

    def s_Raise(self, node: ast.Raise) -> St:
        if node.exc is None:
            def reraise(f: Frame) -> None:
                e = sys.exc_info()[1]
                if e is None:
                    raise RuntimeError("No active exception to reraise")
                try:
                    raise e
                finally:
                    del e
            return reraise
        exc = self.expr(node.exc)
        cause = self.expr(node.cause) if node.cause is not None else None

        def raise_(f: Frame) -> None:
            e = _exception_instance(exc(f))
            if cause is not None:
                c = cause(f)
                e.__cause__ = None if c is None else _exception_instance(c)
            tracebacks.clear(e)
            _mark_raised(e)
            try:
                raise e
            finally:  # a local naming the exception its traceback holds is a cycle for the GC:
                del e  # a guest raising in a loop would leave the collector all the work
        return raise_

    # -- control flow ----------------------------------------------------------------------
    def s_If(self, node: ast.If) -> St:
        body = self.block(node.body)
        pos, note = _pos(node), tracebacks.note
        t = node.test
        parked = parks_frame(self.scope) and suspends(node)
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and not parked:
            return if_compare_closure(type(t.ops[0]), self.operand(t.left), self.operand(t.comparators[0]),
                                      body, self.block(node.orelse) if node.orelse else None, pos, note)
        test = self.expr(node.test)
        if parked:
            return _if_parked(test, body, self.block(node.orelse) if node.orelse else None, pos)
        if not node.orelse:
            def if_(f: Frame) -> Any:
                try:
                    t = test(f)
                except BaseException as e:
                    note(e, pos)
                    raise
                if t:
                    return body(f)
                return None
            return if_
        orelse = self.block(node.orelse)

        def if_else(f: Frame) -> Any:
            try:
                t = test(f)
            except BaseException as e:
                note(e, pos)
                raise
            return body(f) if t else orelse(f)
        return if_else

    def s_While(self, node: ast.While) -> St:
        test, body = self.expr(node.test), self.block(node.body)
        orelse = self.block(node.orelse) if node.orelse else None
        pos, note = _pos(node), tracebacks.note

        def while_(f: Frame) -> Any:
            try:
                b = f[1]
                while test(f):
                    b.fuel -= 1
                    if b.fuel < 0:
                        b.refuel()
                    r = body(f)
                    if r is not None:
                        if r is BREAK:
                            return None
                        if r is CONTINUE:
                            continue
                        return r
                return orelse(f) if orelse is not None else None
            except BaseException as e:
                note(e, pos)
                raise
        return while_

    def s_For(self, node: ast.For) -> St:
        if parks_frame(self.scope) and suspends([node.target, *node.body]):
            return self._for_parked(node, iter, next_onto)
        it, body = self.expr(node.iter), self.block(node.body)
        orelse = self.block(node.orelse) if node.orelse else None
        pos, note = _pos(node), tracebacks.note
        t = node.target
        if isinstance(t, ast.Name) and self.scope.kind_of(t.id) == FAST:
            i = self.scope.slots[t.id]

            def for_fast(f: Frame) -> Any:
                try:
                    b = f[1]
                    for x in it(f):
                        b.fuel -= 1
                        if b.fuel < 0:
                            b.refuel()
                        f[i] = x
                        r = body(f)
                        if r is not None:
                            if r is BREAK:
                                return None
                            if r is CONTINUE:
                                continue
                            return r
                    return orelse(f) if orelse is not None else None
                except BaseException as e:
                    note(e, pos)
                    raise
            return for_fast
        store = self.store(t)

        def for_(f: Frame) -> Any:
            try:
                b = f[1]
                for x in it(f):
                    b.fuel -= 1
                    if b.fuel < 0:
                        b.refuel()
                    store(f, x)
                    r = body(f)
                    if r is not None:
                        if r is BREAK:
                            return None
                        if r is CONTINUE:
                            continue
                        return r
                return orelse(f) if orelse is not None else None
            except BaseException as e:
                note(e, pos)
                raise
        return for_

    def s_AsyncFor(self, node: ast.AsyncFor) -> St:
        from safe_eval.interpreter import generators  # greenlet: loaded by the first generator

        if parks_frame(self.scope):  # every step awaits
            return self._for_parked(node, generators.async_iterator, generators.anext_onto)
        it, body = self.expr(node.iter), self.block(node.body)
        orelse = self.block(node.orelse) if node.orelse else None
        pos, note = _pos(node), tracebacks.note
        store = self.store(node.target)

        def async_for(f: Frame) -> Any:
            try:
                b = f[1]
                for x in generators.async_iterate(it(f)):
                    b.fuel -= 1
                    if b.fuel < 0:
                        b.refuel()
                    store(f, x)
                    r = body(f)
                    if r is not None:
                        if r is BREAK:
                            return None
                        if r is CONTINUE:
                            continue
                        return r
                return orelse(f) if orelse is not None else None
            except BaseException as e:
                note(e, pos)
                raise
        return async_for

    def _for_parked(self, node: ast.For | ast.AsyncFor, start: Callable[[Any], Any],
                    advance: Callable[[Frame, int], bool]) -> St:
        """A loop whose body can suspend, in a body whose frame is parked while suspended:
        the iterator and the item in hand live on the frame's tail (``suspension``), so a
        generator suspended in it over something leading back to it is collected."""
        it, body = self.expr(node.iter), self.block(node.body)
        orelse = self.block(node.orelse) if node.orelse else None
        pos, note = _pos(node), tracebacks.note
        store = self.store(node.target)

        def for_parked(f: Frame) -> Any:
            k = len(f)
            try:
                f.append(start(it(f)))
                while advance(f, k):
                    b = f[1]  # each resume hands the body its resumer's budget
                    b.fuel -= 1
                    if b.fuel < 0:
                        b.refuel()
                    store(f, f.pop())
                    r = body(f)
                    if r is not None:
                        if r is BREAK:
                            return None
                        if r is CONTINUE:
                            continue
                        return r
                del f[k:]  # as CPython: the iterator is gone before ``else`` runs
                return orelse(f) if orelse is not None else None
            except BaseException as e:
                note(e, pos)
                raise
            finally:
                del f[k:]
        return for_parked

    # -- exceptions ------------------------------------------------------------------------
    def s_Try(self, node: ast.Try) -> St:
        body = self.block(node.body)
        handlers = [self._handler(h) for h in node.handlers]
        orelse = self.block(node.orelse) if node.orelse else None
        final = self.block(node.finalbody) if node.finalbody else None

        def try_except(f: Frame) -> Any:
            try:
                r = body(f)
            except _NOT_CATCHABLE:
                raise
            except BaseException as e:
                if e.__class__ is RecursionError and not guest_raised(e) and depth_limit_of(e) is None:
                    # the host's own limit, tripped somewhere in host code (maybe half-way
                    # through the membrane's bookkeeping): never the guest's to catch and go on
                    raise
                ex = enter_guest(e)
                for match, run in handlers:
                    if match is None or _matches(ex, match(f)):
                        if ex is e:
                            try:
                                return run(f, ex)
                            finally:  # e's traceback holds this frame: no cycle through ex
                                del ex
                        try:
                            raise ex from None
                        except BaseException:
                            ex.__context__ = e.__context__
                            ex.__suppress_context__ = ex.__cause__ is not None
                            return run(f, ex)
                raise
            if orelse is not None and r is None:  # break/continue/return in the body skip else
                return orelse(f)
            return r

        parked = parks_frame(self.scope)
        inner = try_except if handlers else body
        if parked and suspends([h.body for h in node.handlers]):
            inner = _try_except_parked(body, handlers, orelse)
        if final is None:
            return inner
        if parked and suspends(node.finalbody):
            return _with_finally_parked(inner, final)
        return _with_finally(inner, final)

    def s_TryStar(self, node: ast.TryStar) -> St:
        """``except*``: the clauses run by ``exception_star.handle_star``; else/finally as in ``try``."""
        from safe_eval.interpreter.exception_star import handle_star

        body = self.block(node.body)
        clauses = [self._handler(h) for h in node.handlers]  # a type is required by the grammar
        orelse = self.block(node.orelse) if node.orelse else None
        final = self.block(node.finalbody) if node.finalbody else None

        def try_star(f: Frame) -> Any:
            try:
                r = body(f)
            except _NOT_CATCHABLE:
                raise
            except BaseException as e:
                handle_star(enter_guest(e), clauses, f, _NOT_CATCHABLE)
                return None
            if orelse is not None and r is None:
                return orelse(f)
            return r

        inner: St = try_star
        if parks_frame(self.scope) and suspends([h.body for h in node.handlers]):
            inner = _try_star_parked(body, clauses, orelse)
        if final is None:
            return inner
        if parks_frame(self.scope) and suspends(node.finalbody):
            return _with_finally_parked(inner, final)
        return _with_finally(inner, final)

    def _handler(self, h: ast.ExceptHandler) -> tuple[Any, Callable[[Frame, BaseException], Any]]:
        match = self.expr(h.type) if h.type is not None else None
        body = self.block(h.body)
        # each drops its ``ex`` before running the body: a handler that raises puts its frame
        # in the traceback of an exception the frame would name (a cycle for the GC)
        if h.name is None:
            def unnamed(f: Frame, ex: BaseException) -> Any:
                del ex
                return body(f)
            return match, unnamed
        store, delete = self.store_name(h.name), self.delete(ast.Name(h.name, ast.Del()), quiet=True)

        def named(f: Frame, ex: BaseException) -> Any:
            store(f, ex)
            del ex
            try:
                return body(f)
            finally:
                delete(f)
        return match, named

    # -- with ------------------------------------------------------------------------------
    def s_With(self, node: ast.With) -> St:
        body = self.block(node.body)
        parked = parks_frame(self.scope) and suspends([*node.items, *node.body])
        for item in reversed(node.items):
            body = (self._with_item_parked if parked else self._with_item)(item, body, False)
        return body

    def s_AsyncWith(self, node: ast.AsyncWith) -> St:
        body = self.block(node.body)
        parked = parks_frame(self.scope)  # entering and leaving await
        for item in reversed(node.items):
            body = (self._with_item_parked if parked else self._with_item)(item, body, True)
        return body

    def _with_item(self, item: ast.withitem, body: St, is_async: bool) -> St:
        mgr_ev = self.expr(item.context_expr)
        store = self.store(item.optional_vars) if item.optional_vars is not None else None
        enter_name, exit_name = ("__aenter__", "__aexit__") if is_async else ("__enter__", "__exit__")
        wait: Callable[[list[Any]], Any]
        if is_async:
            from safe_eval.interpreter import generators

            wait = generators.await_value
        else:
            wait = _unboxed

        def with_(f: Frame) -> Any:
            mgr = mgr_ev(f)
            t = type(mgr)
            try:
                enter, exit_ = getattr(t, enter_name), getattr(t, exit_name)
            except AttributeError:
                proto = "asynchronous context manager" if is_async else "context manager"
                raise TypeError(f"'{t.__name__}' object does not support the {proto} protocol") from None
            v = wait([enter(mgr)])
            if store is not None:
                store(f, v)
            try:
                r = body(f)
            except _NOT_CATCHABLE:
                raise
            except BaseException as e:
                ex = enter_guest(e)
                if not wait([exit_(mgr, type(ex), ex, None)]):
                    raise
                return None
            wait([exit_(mgr, None, None, None)])
            return r
        return with_

    def _with_item_parked(self, item: ast.withitem, body: St, is_async: bool) -> St:
        """``_with_item`` for a block that can suspend, in a body whose frame is parked while
        suspended: the manager and its methods live on the frame's tail (``suspension``), so a
        generator suspended in the block with a manager leading back to it is collected."""
        mgr_ev = self.expr(item.context_expr)
        store = self.store(item.optional_vars) if item.optional_vars is not None else None
        names = ("__aenter__", "__aexit__") if is_async else ("__enter__", "__exit__")
        wait: Callable[[list[Any]], Any]
        if is_async:
            from safe_eval.interpreter import generators

            wait = generators.await_value
        else:
            wait = _unboxed

        def with_parked(f: Frame) -> Any:
            k = len(f)  # f[k]: the manager, f[k + 1]: its __enter__, f[k + 2]: its __exit__
            try:
                f.append(mgr_ev(f))
                f.extend(_manager_methods(f[k], names, is_async))
                if store is not None:
                    store(f, wait([f[k + 1](f[k])]))
                else:
                    wait([f[k + 1](f[k])])
                try:
                    r = body(f)
                except _NOT_CATCHABLE:
                    raise
                except BaseException as e:
                    ex = enter_guest(e)
                    del e  # no local holds the exception while ``__aexit__`` suspends
                    exiting = [f[k + 2](f[k], type(ex), ex, None)]
                    del ex
                    if not wait(exiting):
                        raise
                    return None
                wait([f[k + 2](f[k], None, None, None)])
                return r
            finally:
                del f[k:]
        return with_parked

    # -- imports ---------------------------------------------------------------------------
    def s_Import(self, node: ast.Import) -> St:
        steps: list[tuple[str, str, Store]] = []
        for a in node.names:
            if a.asname:
                steps.append((a.name, a.name, self.store_name(a.asname)))
            else:
                top = a.name.split(".")[0]
                steps.append((a.name, top, self.store_name(top)))

        def import_(f: Frame) -> None:
            policy = _policy()
            for full, bound, store in steps:
                m = membrane.import_module(full, policy)
                if bound != full:
                    m = membrane.import_module(bound, policy)
                store(f, m)
        return import_

    def s_ImportFrom(self, node: ast.ImportFrom) -> St:
        if node.level:
            raise InternalError("relative imports are not supported")
        module = node.module or ""
        if module == "__future__":
            # every feature is on or meaningless here (annotations are never evaluated); the
            # feature object is not bound: a documented divergence (it is a host object)
            return lambda f: None
        names = [(a.name, self.store_name(a.asname or a.name)) for a in node.names if a.name != "*"]
        if len(names) != len(node.names):
            raise InternalError("'from ... import *' is not supported")

        def import_from(f: Frame) -> None:
            m = membrane.import_module(module, _policy())
            for name, store in names:
                try:
                    v = membrane.get_attr(m, name)
                except AttributeError:
                    raise ImportError(f"cannot import name '{name}' from '{module}'") from None
                store(f, v)
        return import_from

    # -- targets ---------------------------------------------------------------------------
    def store(self, t: ast.expr) -> Store:
        if isinstance(t, ast.Name):
            return self.store_name(t.id)
        if isinstance(t, ast.Attribute):
            obj, name = self.expr(t.value), t.attr
            set_attr = membrane.set_attr
            return lambda f, v: set_attr(obj(f), name, v)
        if isinstance(t, ast.Subscript):
            obj, key = self.expr(t.value), self.expr(t.slice)

            def set_item(f: Frame, v: Any) -> None:
                o, k = obj(f), key(f)
                tk = type(k)
                if tk not in FREE_KEYS and not (tk is tuple and FLAT.issuperset(map(type, k))):
                    keyed(k)  # hashed whole in C: a shared nested key is priced first
                if type(k) is slice and (type(o) is list or _host_slice_store(type(o))):
                    v = metered(v)  # list/bytearray slice assignment copies ``v`` in C
                o[k] = v
            return set_item
        if isinstance(t, (ast.Tuple, ast.List)):
            return self._store_seq(t.elts)
        if isinstance(t, ast.Starred):
            raise InternalError("starred assignment target must be in a list or tuple")
        raise InternalError(f"cannot assign to {type(t).__name__}")

    def _store_seq(self, elts: list[ast.expr]) -> Store:
        star = [i for i, e in enumerate(elts) if isinstance(e, ast.Starred)]
        if not star:
            stores = [self.store(e) for e in elts]
            n = len(stores)
            if n == 2:
                s0, s1 = stores

                def store2(f: Frame, v: Any) -> None:
                    a, b = v
                    s0(f, a)
                    s1(f, b)
                return store2

            def store_n(f: Frame, v: Any) -> None:
                vals = v if type(v) in (tuple, list) and len(v) == n else _unpack(n, v)
                for s, x in zip(stores, vals, strict=False):
                    s(f, x)
            return store_n
        k = star[0]
        before = [self.store(e) for e in elts[:k]]
        rest = self.store(elts[k].value)  # type: ignore[attr-defined]
        after = [self.store(e) for e in elts[k + 1:]]
        need = len(before) + len(after)

        def store_star(f: Frame, v: Any) -> None:
            vals = drain(v)
            if len(vals) < need:
                raise ValueError(f"not enough values to unpack (expected at least {need}, got {len(vals)})")
            for s, x in zip(before, vals, strict=False):
                s(f, x)
            rest(f, vals[len(before):len(vals) - len(after)])
            for s, x in zip(after, vals[len(vals) - len(after):], strict=False):
                s(f, x)
        return store_star

    def store_name(self, name: str, walrus: bool = False) -> Store:
        scope = self.scope
        kind = scope.kind_of(name)
        if kind == FAST:
            i = scope.slots[name]

            def fast(f: Frame, v: Any) -> None:
                f[i] = v
            return fast
        if kind == CELL:
            i = scope.slots[name]

            def cell(f: Frame, v: Any) -> None:
                f[i].v = v
            return cell
        if scope.kind == "class" and kind != "global":
            def class_ns(f: Frame, v: Any) -> None:
                f[3][name] = v
            return class_ns

        def glob(f: Frame, v: Any) -> None:
            f[0][name] = v
        return glob

    def delete(self, t: ast.expr, quiet: bool = False) -> St:
        if isinstance(t, ast.Name):
            return self._delete_name(t.id, quiet)
        if isinstance(t, ast.Attribute):
            obj, name = self.expr(t.value), t.attr
            return lambda f: membrane.del_attr(obj(f), name)
        if isinstance(t, ast.Subscript):
            obj, key = self.expr(t.value), self.expr(t.slice)

            def del_item(f: Frame) -> None:
                o, k = obj(f), key(f)
                tk = type(k)
                if tk not in FREE_KEYS and not (tk is tuple and FLAT.issuperset(map(type, k))):
                    keyed(k)  # hashed whole in C: a shared nested key is priced first
                del o[k]
            return del_item
        if isinstance(t, (ast.Tuple, ast.List)):
            dels = [self.delete(e) for e in t.elts]

            def del_seq(f: Frame) -> None:
                for d in dels:
                    d(f)
            return del_seq
        raise InternalError(f"cannot delete {type(t).__name__}")

    def _delete_name(self, name: str, quiet: bool) -> St:
        scope = self.scope
        kind = scope.kind_of(name)
        if kind == FAST:
            i = scope.slots[name]

            def del_fast(f: Frame) -> None:
                if f[i] is UNBOUND and not quiet:
                    raise unbound_local(name)
                f[i] = UNBOUND
            return del_fast
        if kind == CELL:
            i = scope.slots[name]

            def del_cell(f: Frame) -> None:
                try:
                    del f[i].v
                except AttributeError:
                    if not quiet:
                        raise unbound_free(name) from None
            return del_cell
        ns_index = 3 if scope.kind == "class" and kind != "global" else 0

        def del_name(f: Frame) -> None:
            try:
                del f[ns_index][name]
            except KeyError:
                if not quiet:
                    raise NameError(f"name '{name}' is not defined") from None
        return del_name


def _if_parked(test: Any, body: St, orelse: St | None, pos: tuple[int, int]) -> St:
    """An ``if`` whose branch can suspend, in a body whose frame is parked while suspended:
    the test's value is not kept (a host local would hold it while the branch is suspended)."""
    note = tracebacks.note

    def if_parked(f: Frame) -> Any:
        try:
            taken = True if test(f) else False  # a bool, never the value itself
        except BaseException as e:
            note(e, pos)
            raise
        if taken:
            return body(f)
        return orelse(f) if orelse is not None else None
    return if_parked


def _manager_methods(mgr: Any, names: tuple[str, str], is_async: bool) -> tuple[Any, Any]:
    t = type(mgr)
    try:
        return getattr(t, names[0]), getattr(t, names[1])
    except AttributeError:
        proto = "asynchronous context manager" if is_async else "context manager"
        raise TypeError(f"'{t.__name__}' object does not support the {proto} protocol") from None


def _returns(nodes: list[ast.stmt]) -> bool:
    """Does this statement list always end by returning (never fall off its end)?"""
    if not nodes:
        return False
    last = nodes[-1]
    return isinstance(last, ast.Return) or _fusable_if(last, need_else=True)


def _fusable_if(node: ast.stmt, need_else: bool = False) -> bool:
    """An ``if`` whose body always returns (and whose ``else``, when required or present,
    does too): it can be compiled as part of a returning function body."""
    if not isinstance(node, ast.If) or not _returns(node.body):
        return False
    if node.orelse:
        return _returns(node.orelse)
    return not need_else


_SELF_NOTING = frozenset({ast.Expr, ast.Return, ast.Assign, ast.If, ast.While, ast.For, ast.AsyncFor})


def _pos(node: ast.stmt) -> tuple[int, int]:
    return (node.lineno, node.col_offset)


def _matches(ex: BaseException, cls: Any) -> bool:
    cls = tuple(map(exception_class, metered(cls))) if isinstance(cls, tuple) else exception_class(cls)
    if isinstance(cls, tuple):
        ok = all(isinstance(c, type) and issubclass(c, BaseException) for c in cls)
    else:
        ok = isinstance(cls, type) and issubclass(cls, BaseException)
    if not ok:
        raise TypeError("catching classes that do not inherit from BaseException is not allowed")
    return isinstance(ex, cls)


def _policy() -> Any:
    ctx = current_context()
    return ctx.policy if ctx is not None else None


def _with_finally(inner: St, final: St) -> St:
    """``try: inner finally: final`` for ``try`` and ``try/except*`` alike: the one place a
    ``finally`` block decides to run, so a body unwound after its run (``Discarded``) runs no
    guest code whichever construct it was suspended in."""

    def try_finally(f: Frame) -> Any:
        try:
            r = inner(f)
        except BaseException as e:
            if e.__class__ is Discarded or isinstance(e, LimitExceeded):
                # the run is over (unwound after its end, or out of budget: every tick would
                # raise again): no guest code runs, so unwinding costs no guest work
                raise
            r2 = final(f)
            if r2 is not None and not isinstance(e, _NOT_CATCHABLE):
                return r2
            raise
        r2 = final(f)
        return r2 if r2 is not None else r
    return try_finally


def _try_except_parked(body: St, handlers: list[tuple[Any, Callable[[Frame, BaseException], Any]]],
                       orelse: St | None) -> St:
    """``try``/``except`` whose handler body can suspend, in a body whose frame is parked while
    suspended: no local of this host frame names the exception while the handler runs (the
    thread's handled exception does, which the suspension parks: see ``handled``). Inside
    another handler the handler body runs outside any host ``except`` clause
    (``_try_except_nested``): a clause keeps the exception handled before it on its frame's
    value stack, where no suspension can take it from."""
    from safe_eval.interpreter.handled import handled, set_handled

    nested = _try_except_nested(body, handlers, orelse)

    def try_except_parked(f: Frame) -> Any:
        if handled() is not None:
            return nested(f)
        try:
            r = body(f)
        except _NOT_CATCHABLE:
            raise
        except BaseException as e:
            if e.__class__ is RecursionError and not guest_raised(e) and depth_limit_of(e) is None:
                raise  # the host's own limit (see ``try_except``)
            box = [enter_guest(e)]
            for match, run in handlers:
                if match is None or _matches(box[0], match(f)):
                    if box[0] is not e:  # the guest's copy is the exception being handled
                        ex = box[0]
                        ex.__cause__, ex.__context__, ex.__suppress_context__ = None, e.__context__, False
                        set_handled(ex)
                        del ex
                    del e
                    return run(f, box.pop())
            raise
        if orelse is not None and r is None:
            return orelse(f)
        return r
    return try_except_parked


def _try_except_nested(body: St, handlers: list[tuple[Any, Callable[[Frame, BaseException], Any]]],
                       orelse: St | None) -> St:
    """``_try_except_parked`` entered while an exception is handled: the exception caught waits
    on the frame's tail (the one handled before under it) and becomes the handled exception
    for the handler body by ``set_handled``, not by a host ``except`` clause; the one handled
    before is put back after, and what leaves goes on unchained (``_raise_as_is``), as it
    would have left a clause."""
    from safe_eval.interpreter.handled import handled, set_handled

    def try_except_nested(f: Frame) -> Any:
        k = len(f)
        f.append(handled())  # f[k]: the exception handled around this statement
        try:
            r = _caught(body, f, _NOT_CATCHABLE)
            if r is not _CAUGHT:
                if orelse is not None and r is None:
                    return orelse(f)
                return r
            e = f[k + 1]  # not named across a suspension: the handler runs below with it deleted
            if e.__class__ is RecursionError and not guest_raised(e) and depth_limit_of(e) is None:
                _raise_as_is(e)  # the host's own limit (see ``try_except``)
            ex = enter_guest(e)
            if ex is not e:
                ex.__cause__, ex.__context__, ex.__suppress_context__ = None, e.__context__, False
                f[k + 1] = ex
            del e, ex
            set_handled(f[k + 1])
            r = _CAUGHT
            for match, run in handlers:
                if match is None or _matches(f[k + 1], match(f)):
                    r = _caught(lambda fr: run(fr, fr.pop()), f, ())  # noqa: B023
                    break
            set_handled(f[k])
            if r is _CAUGHT:  # no clause matched, or the clause raised: that goes on as it was
                _raise_as_is(f.pop())
            return r
        finally:
            del f[k:]
    return try_except_nested


_CAUGHT = object()


def _caught(run: St, f: Frame, passing: tuple[type[BaseException], ...]) -> Any:
    """``run(f)``; an exception it raises (except ``passing``) goes onto ``f``'s tail and
    ``_CAUGHT`` is returned, the exception handled before put back by leaving this clause."""
    try:
        return run(f)
    except passing:
        raise
    except BaseException as e:
        f.append(e)
        return _CAUGHT


def _with_finally_parked(inner: St, final: St) -> St:
    """``_with_finally`` whose ``finally`` block can suspend: no local names the exception it
    runs for (the thread's handled exception does, parked by the suspension). Inside another
    handler the block runs outside any host clause, as ``_try_except_nested`` says why."""
    from safe_eval.interpreter.handled import handled, set_handled

    def try_finally_parked(f: Frame) -> Any:
        if handled() is not None:
            return try_finally_nested(f)
        try:
            r = inner(f)
        except BaseException as e:
            if e.__class__ is Discarded or isinstance(e, LimitExceeded):
                raise
            catchable = not isinstance(e, _NOT_CATCHABLE)
            del e
            r2 = final(f)
            if r2 is not None and catchable:
                return r2
            raise  # the exception this clause handles (restored by any suspension in between)
        r2 = final(f)
        return r2 if r2 is not None else r

    def try_finally_nested(f: Frame) -> Any:
        k = len(f)
        f.append(handled())  # f[k]: the exception handled around this statement
        try:
            r = _caught(inner, f, ())
            if r is not _CAUGHT:
                r2 = final(f)
                return r2 if r2 is not None else r
            e = f[k + 1]
            if e.__class__ is Discarded or isinstance(e, LimitExceeded):
                _raise_as_is(e)
            catchable = not isinstance(e, _NOT_CATCHABLE)
            del e
            set_handled(f[k + 1])
            r2 = _caught(final, f, ())
            set_handled(f[k])
            if r2 is _CAUGHT:  # the finally block raised: that goes on
                _raise_as_is(f.pop())
            if r2 is not None and catchable:
                return r2
            _raise_as_is(f[k + 1])
            return None  # unreachable
        finally:
            del f[k:]
    return try_finally_parked


def _try_star_parked(body: St, clauses: list[Any], orelse: St | None) -> St:
    """``try``/``except*`` whose clause bodies can suspend, in a body whose frame is parked
    while suspended: the exception waits on the frame's tail, the clauses run outside any host
    ``except`` clause (``exception_star.handle_star_parked``), and what remains is raised as
    ``handle_star`` raises it (unchained), with the exception handled around the statement put
    back (see ``_try_except_nested``)."""
    from safe_eval.interpreter.exception_star import handle_star_parked
    from safe_eval.interpreter.handled import handled, set_handled

    def try_star_parked(f: Frame) -> Any:
        k = len(f)
        f.append(handled())  # f[k]: the exception handled around this statement
        try:
            r = _caught(body, f, _NOT_CATCHABLE)
            if r is not _CAUGHT:
                if orelse is not None and r is None:
                    return orelse(f)
                return r
            f[k + 1] = enter_guest(f[k + 1])
            set_handled(f[k + 1])  # as inside the clause ``handle_star`` runs in
            f.append(handle_star_parked(clauses, f, k + 1, _NOT_CATCHABLE, set_handled, _caught, _CAUGHT))
            if f[-1] is None:
                set_handled(f[k])
                return None
            set_handled(f[k])
            _raise_as_is(f.pop())  # unchained, as ``handle_star`` raises it
            return None  # unreachable
        finally:
            del f[k:]
    return try_star_parked


