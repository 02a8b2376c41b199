"""AST -> closures: the compiler entry point and the scope-creating nodes.

``compile_module(program)`` walks the checked tree once; every node becomes a Python closure
that does exactly its own work (no dispatch on node type at run time, names resolved to a
slot, a cell or a dict lookup at compile time). Expressions live in ``compile_expr``,
statements in ``compile_stmt``, ``match`` patterns in ``compile_match``; this module handles
what creates a scope: modules, functions, lambdas, comprehensions and classes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from safe_eval.interpreter import classes, tracebacks
from safe_eval.interpreter.compile_expr import ExprCompiler
from safe_eval.interpreter.compile_match import MatchCompiler
from safe_eval.interpreter.compile_stmt import StmtCompiler
from safe_eval.interpreter.functions import FuncCode, Function, current_origin
from safe_eval.interpreter.runtime import UNBOUND, Cell, Frame
from safe_eval.interpreter.scopes import FIRST_SLOT, Scope, analyse_scopes
from safe_eval.interpreter.suspension import SuspensionCompiler, next_onto, parks_frame, suspends
from safe_eval.interpreter.tracebacks import CodeInfo

__all__ = ["CompiledModule", "Compiler", "compile_module"]

Ev = Callable[[Frame], Any]


class CompiledModule:
    """A compiled program: ``run(globals, budget)`` returns the last expression's value."""

    __slots__ = ("body", "last", "info", "run")

    def __init__(self, body: Ev | None, last: Ev | None, info: CodeInfo,
                 expression: tuple[Ev, tuple[int, int]] | None = None, is_async: bool = False) -> None:
        self.body = body
        self.last = last
        self.info = info
        # ``expression`` (the last expression's closure and position, without the noting
        # wrapper ``last``) lets a one-expression program run in one host call fewer
        self.run: Callable[[dict[str, Any], Any], Any] = (
            _async_runner(body, last, info) if is_async else _runner(body, last, info, expression))


def _async_runner(body: Ev | None, last: Ev | None, info: CodeInfo) -> Callable[[dict[str, Any], Any], Any]:
    """A module with top-level ``await``/``async for``/``async with`` (as IPython and smolagents
    run them): its body is a coroutine driven by the guest's ``asyncio.run`` loop."""

    def whole(f: Frame) -> None:
        if body is not None:
            body(f)
        if last is not None:
            f[2] = last(f)

    def run(g: dict[str, Any], b: Any) -> Any:
        from safe_eval.interpreter import aio, generators  # greenlet: loaded by the first coroutine

        return aio.run(generators.GuestCoroutine(whole, [g, b, None], info, True))
    return run


def _has_top_level_await(tree: ast.Module, lines: tuple[str, ...]) -> bool:
    """``await``, ``async for``/``with`` or an async comprehension in the module's own scope
    (what makes CPython's ``PyCF_ALLOW_TOP_LEVEL_AWAIT`` compile a coroutine)."""
    if not any("await" in line or "async" in line for line in lines):
        return False
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Await | ast.AsyncFor | ast.AsyncWith):
            return True
        if isinstance(node, ast.comprehension) and node.is_async:
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue  # their bodies are scopes of their own
        stack.extend(ast.iter_child_nodes(node))
    return False


def _runner(body: Ev | None, last: Ev | None, info: CodeInfo,
            expression: tuple[Ev, tuple[int, int]] | None) -> Callable[[dict[str, Any], Any], Any]:
    push, note = tracebacks.push, tracebacks.note
    if body is None and expression is not None:
        e, pos = expression

        def run_expression(g: dict[str, Any], b: Any) -> Any:
            f: Frame = [g, b, None]
            try:
                return e(f)
            except BaseException as exc:
                note(exc, pos)  # what ``last`` notes, then what ``run`` pushes
                push(exc, info)
                raise
        return run_expression

    def run(g: dict[str, Any], b: Any) -> Any:
        f: Frame = [g, b, None]
        try:
            if body is not None:
                body(f)
            if last is not None:
                return last(f)
            return None
        except BaseException as exc:
            push(exc, info)
            raise
    return run


def compile_module(tree: ast.Module, source: str, filename: str,
                   annotations: dict[int, dict[str, ast.expr]] | None = None) -> CompiledModule:
    c = Compiler(tree, source, filename, annotations or {})
    return c.module(tree)


class Compiler(SuspensionCompiler, ExprCompiler, StmtCompiler, MatchCompiler):
    def __init__(self, tree: ast.Module, source: str, filename: str,
                 annotations: dict[int, dict[str, ast.expr]]) -> None:
        self.scopes = analyse_scopes(tree)
        self.scope: Scope = self.scopes[id(tree)]
        self.filename = filename
        self.lines = tuple(source.splitlines())
        self.annotations = annotations
        self.qualname: list[str] = []
        self.top_level_await = False  # set by module(): the module runs as a coroutine

    def info(self, name: str) -> CodeInfo:
        return CodeInfo(name, ".".join([*self.qualname, name]), self.filename, self.lines)

    @contextmanager
    def enter(self, scope: Scope, qual: str) -> Iterator[None]:
        saved, saved_q = self.scope, self.qualname
        self.scope = scope
        self.qualname = [*saved_q, qual]
        try:
            yield
        finally:
            self.scope, self.qualname = saved, saved_q

    def _child_qual(self, name: str) -> str:
        return name

    def _closure_slots(self, child: Scope) -> list[int]:
        return [self.scope.slots[n] for n in child.frees]

    # -- module ----------------------------------------------------------------------------
    def module(self, tree: ast.Module) -> CompiledModule:
        self.top_level_await = _has_top_level_await(tree, self.lines)
        stmts = list(tree.body)
        last: Ev | None = None
        expression: tuple[Ev, tuple[int, int]] | None = None
        if stmts and isinstance(stmts[-1], ast.Expr):
            node = stmts.pop()
            e = self.expr(node.value)  # type: ignore[attr-defined]
            pos = (node.lineno, node.col_offset)
            expression = (e, pos)

            def last_expr(f: Frame) -> Any:
                try:
                    return e(f)
                except BaseException as exc:
                    tracebacks.note(exc, pos)
                    raise
            last = last_expr
        body = self.block(stmts) if stmts else None
        return CompiledModule(body, last, CodeInfo("<module>", "<module>", self.filename, self.lines),
                              expression, self.top_level_await)

    # -- functions -------------------------------------------------------------------------
    def _scope_qual(self) -> list[str]:
        if self.scope.kind == "function":
            return [*self.qualname, "<locals>"]
        return list(self.qualname)

    def make_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> Ev:
        scope = self.scopes[id(node)]
        a = node.args
        defaults = [self.expr(d) for d in a.defaults]
        kwdefaults = [(k.arg, self.expr(d))
                      for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=False) if d is not None]
        closure_slots = self._closure_slots(scope)
        name = "<lambda>" if isinstance(node, ast.Lambda) else node.name
        qual = self._scope_qual()
        saved, saved_q = self.scope, self.qualname
        self.scope, self.qualname = scope, [*qual, name]
        try:
            returns_value = not (scope.is_generator or isinstance(node, ast.AsyncFunctionDef))
            if isinstance(node, ast.Lambda):
                body = self.expr(node.body)
            elif returns_value:
                body = self.function_body(node.body)
            else:  # generator bodies run as blocks; their return value leaves via frame[RET]
                body = self.block(node.body)
        finally:
            self.scope, self.qualname = saved, saved_q
        start = (node.body.lineno, node.body.col_offset) if isinstance(node, ast.Lambda) else (0, 0)
        info = CodeInfo(name, ".".join([*qual, name]), self.filename, self.lines, start)
        code = FuncCode(
            info, body, scope.nslots,
            posonly=tuple(x.arg for x in a.posonlyargs), args=tuple(x.arg for x in a.args),
            vararg=a.vararg.arg if a.vararg else None, kwonly=tuple(x.arg for x in a.kwonlyargs),
            kwarg=a.kwarg.arg if a.kwarg else None,
            cell_slots=tuple(sorted(scope.slots[n] for n in scope.cells if n not in scope.frees)),
            free_start=scope.slots[scope.frees[0]] if scope.frees else 0, nfree=len(scope.frees),
            is_lambda=isinstance(node, ast.Lambda), is_generator=scope.is_generator,
            is_async=isinstance(node, ast.AsyncFunctionDef), returns_value=returns_value,
            annotations=self._annotations(node),
        )

        def make(f: Frame) -> Function:
            defs = tuple([d(f) for d in defaults]) if defaults else ()
            kwd = {k: d(f) for k, d in kwdefaults} if kwdefaults else None
            closure = tuple([f[i] for i in closure_slots]) if closure_slots else ()
            return Function(code, f[0], defs, kwd, closure, current_origin())
        return make

    def _annotations(self, node: ast.AST) -> dict[str, ast.expr]:
        """The annotation expressions scrub kept aside (resolved on first read, never run)."""
        return self.annotations.get(id(node), {})

    def _decorated(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, make: Ev) -> Any:
        decorators = [self.expr(d) for d in node.decorator_list]
        store = self.store_name(node.name)
        if not decorators:
            def define(f: Frame) -> None:
                store(f, make(f))
            return define
        from safe_eval.interpreter.compile_expr import call_value

        def define_decorated(f: Frame) -> None:
            decs = [d(f) for d in decorators]
            v = make(f)
            for d in reversed(decs):
                v = call_value(f[1], d, (v,))
            store(f, v)
        return define_decorated

    def s_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return self._decorated(node, self.make_function(node))

    def s_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> Any:
        return self._decorated(node, self.make_function(node))

    # -- classes ---------------------------------------------------------------------------
    def s_ClassDef(self, node: ast.ClassDef) -> Any:
        scope = self.scopes[id(node)]
        bases = self._elts(node.bases)
        if any(k.arg is None for k in node.keywords):
            kw_names = ", ".join(str(k.arg) for k in node.keywords)

            def refuse(f: Frame) -> Any:
                raise TypeError(f"class keywords ({kw_names}) are not supported in safe-eval")
            return refuse
        # which keywords a metaclass may take is build_class's to decide (allow_class_keywords)
        keywords = [(str(k.arg), self.expr(k.value)) for k in node.keywords]
        closure_slots = self._closure_slots(scope)
        qual = self._scope_qual()
        saved, saved_q = self.scope, self.qualname
        self.scope, self.qualname = scope, [*qual, node.name]
        try:
            body = self.block(node.body) if node.body else (lambda f: None)
        finally:
            self.scope, self.qualname = saved, saved_q
        info = CodeInfo(node.name, ".".join([*qual, node.name]), self.filename, self.lines)
        spec = classes.ClassSpec(
            name=node.name, qualname=info.qualname, body=body, info=info, nslots=scope.nslots,
            class_cell=scope.slots.get("__class__") if scope.class_cell else None,
            free_slots=tuple(scope.slots[n] for n in scope.frees),
        )

        def make(f: Frame) -> Any:
            closure = tuple([f[i] for i in closure_slots]) if closure_slots else ()
            kwargs = {k: v(f) for k, v in keywords} if keywords else None
            return classes.build_class(spec, tuple(bases(f)), f[0], f[1], closure, kwargs)
        return self._decorated(node, make)

    # -- comprehensions --------------------------------------------------------------------
    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> Ev:
        scope = self.scopes[id(node)]
        first = self.expr(node.generators[0].iter)
        closure_slots = self._closure_slots(scope)
        saved = self.scope
        # a list/set/dict comprehension that can suspend, in a body whose frame is parked while
        # suspended: its frame is parked too, its iterators and what it built so far on its
        # frame's tail (see ``_comprehension_parked``)
        parked = not isinstance(node, ast.GeneratorExp) and parks_frame(saved) and _comp_suspends(node)
        scope.parked_inline = parked
        self.scope = scope
        try:
            loop = self._comp_loops(node)
        finally:
            self.scope = saved
        nslots = scope.nslots
        extra = [UNBOUND] * (nslots - FIRST_SLOT - 1)
        cell_slots = tuple(sorted(scope.slots[n] for n in scope.cells if n not in scope.frees))
        free_slots = tuple(scope.slots[n] for n in scope.frees)
        kind = type(node)
        is_async = scope.is_async
        first_async = node.generators[0].is_async
        agen_body: Any = None
        if kind is ast.GeneratorExp or is_async or any(g.is_async for g in node.generators):
            from safe_eval.interpreter import generators  # greenlet: loaded by the first generator
        if kind is ast.GeneratorExp:
            info = CodeInfo("<genexpr>", "<genexpr>", self.filename, self.lines)
            yield_ = generators.yield_async if is_async else generators.yield_value

            def gen_body(fr: Frame) -> None:
                loop(fr, yield_)
            agen_body = gen_body

        def new_frame(f: Frame) -> Frame:
            it = first(f) if first_async else iter(first(f))
            fr = [f[0], f[1], None, it, *extra]
            for s in cell_slots:
                fr[s] = Cell()
            for s, src in zip(free_slots, closure_slots, strict=False):
                fr[s] = f[src]
            return fr

        if parked:
            return _comprehension_parked(new_frame, loop, kind, scope.nslots)
        if kind is ast.GeneratorExp:
            def genexpr(f: Frame) -> Any:
                return generators.GuestGenerator.start(agen_body, new_frame(f), info, is_async=is_async)
            return genexpr
        if kind is ast.ListComp:
            def listcomp(f: Frame) -> list[Any]:
                out: list[Any] = []
                loop(new_frame(f), out.append)
                return out
            return listcomp if not is_async else self._async_comp(listcomp)
        if kind is ast.SetComp:
            def setcomp(f: Frame) -> set[Any]:
                out: set[Any] = set()
                loop(new_frame(f), out.add)
                return out
            return setcomp

        def dictcomp(f: Frame) -> dict[Any, Any]:
            out: dict[Any, Any] = {}
            loop(new_frame(f), out.__setitem__)
            return out
        return dictcomp

    def _async_comp(self, fn: Ev) -> Ev:
        return fn

    def _comp_loops(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> Any:
        if self.scope.parked_inline:
            emit = _parked_emit(node, self.expr, self.scope.nslots)
        elif isinstance(node, ast.DictComp):
            k, v = self.expr(node.key), self.expr(node.value)

            def emit(fr: Frame, acc: Any) -> None:
                acc(k(fr), v(fr))
        elif isinstance(node, ast.GeneratorExp):
            elt = self.expr(node.elt)

            def emit(fr: Frame, acc: Any) -> None:
                acc([elt(fr)])  # a yield: boxed (see generators.yield_value)
        else:
            elt = self.expr(node.elt)

            def emit(fr: Frame, acc: Any) -> None:
                acc(elt(fr))
        inner = emit
        for i in range(len(node.generators) - 1, -1, -1):
            inner = self._comp_level(node.generators[i], i, inner)
        return inner

    def _comp_level(self, g: ast.comprehension, i: int, inner: Any) -> Any:
        it = (lambda fr: fr[3]) if i == 0 else self.expr(g.iter)
        store = self.store(g.target)
        conds = [self.expr(c) for c in g.ifs]
        if self.scope.is_generator or self.scope.parked_inline:  # its frame is parked
            return _genexp_level(it, bool(g.is_async), store, conds, inner)
        get_iter: Callable[[Frame], Any]
        if g.is_async:
            from safe_eval.interpreter import generators

            aiter = generators.async_iterate

            def get_iter(fr: Frame) -> Any:
                return aiter(it(fr))
        else:
            get_iter = it

        if not conds:
            def level(fr: Frame, acc: Any) -> None:
                b = fr[1]
                for x in get_iter(fr):
                    b.fuel -= 1
                    if b.fuel < 0:
                        b.refuel()
                    store(fr, x)
                    inner(fr, acc)
            return level
        if len(conds) == 1:
            c0 = conds[0]

            def level1(fr: Frame, acc: Any) -> None:
                b = fr[1]
                for x in get_iter(fr):
                    b.fuel -= 1
                    if b.fuel < 0:
                        b.refuel()
                    store(fr, x)
                    if c0(fr):
                        inner(fr, acc)
            return level1

        def level_n(fr: Frame, acc: Any) -> None:
            b = fr[1]
            for x in get_iter(fr):
                b.fuel -= 1
                if b.fuel < 0:
                    b.refuel()
                store(fr, x)
                for c in conds:
                    if not c(fr):
                        break
                else:
                    inner(fr, acc)
        return level_n


def _genexp_level(it: Callable[[Frame], Any], is_async: bool, store: Callable[[Frame, Any], None],
                  conds: list[Callable[[Frame], Any]], inner: Any) -> Any:
    """A loop of a generator expression (or of a comprehension that can suspend in a parked
    body: ``_comprehension_parked``), whose frame is parked while it is suspended: the
    iterator and the item in hand live on the frame's tail (see ``suspension``), so a
    suspended generator expression over something leading back to it is collected."""
    from safe_eval.interpreter import generators

    start, advance = ((generators.async_iterator, generators.anext_onto) if is_async
                      else (iter, next_onto))

    def level(fr: Frame, acc: Any) -> None:
        k = len(fr)
        try:
            fr.append(start(it(fr)))
            while advance(fr, k):
                b = fr[1]
                b.fuel -= 1
                if b.fuel < 0:
                    b.refuel()
                store(fr, fr.pop())
                for c in conds:
                    if not c(fr):
                        break
                else:
                    inner(fr, acc)
        finally:
            del fr[k:]
    return level


def _parked_emit(node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
                 expr: Callable[[ast.expr], Any], acc: int) -> Any:
    """The innermost step of ``_comprehension_parked``'s loops: the item onto the result at
    ``fr[acc]`` (a key already evaluated waits on the tail while its value suspends)."""
    if isinstance(node, ast.DictComp):
        k, v = expr(node.key), expr(node.value)

        def emit_item(fr: Frame, _: Any) -> None:
            n = len(fr)
            try:
                fr.append(k(fr))
                fr.append(v(fr))
                fr[acc][fr[n]] = fr[n + 1]
            finally:
                del fr[n:]
        return emit_item
    elt = expr(node.elt)
    if isinstance(node, ast.SetComp):
        def emit_member(fr: Frame, _: Any) -> None:
            x = elt(fr)
            fr[acc].add(x)
        return emit_member

    def emit_element(fr: Frame, _: Any) -> None:
        x = elt(fr)
        fr[acc].append(x)
    return emit_element


def _comprehension_parked(new_frame: Callable[[Frame], Frame], loop: Any, kind: type,
                          acc: int) -> Callable[[Frame], Any]:
    """A list/set/dict comprehension that can suspend, in a body whose frame is parked while
    suspended: its own frame goes on the body's greenlet's ``inner`` list for the time it runs,
    so ``Resumable._park`` parks it with the body's, and what it holds lives there (the result
    so far at ``fr[acc]``, its iterators and items on the tail: ``_genexp_level``), not in host
    frames (see ``suspension``)."""
    from safe_eval.interpreter.generators import inner_frames

    make = {ast.ListComp: list, ast.SetComp: set, ast.DictComp: dict}[kind]

    def comprehension_parked(f: Frame) -> Any:
        fr = new_frame(f)
        fr.append(make())  # fr[acc]
        frames = inner_frames()
        frames.append(fr)
        try:
            loop(fr, None)
            return fr[acc]
        finally:
            frames.pop()
    return comprehension_parked


def _comp_suspends(node: ast.ListComp | ast.SetComp | ast.DictComp) -> bool:
    """Something the comprehension's own frame runs can suspend (its first iterable is
    evaluated in the enclosing frame)."""
    g0 = node.generators[0]
    parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    return bool(g0.is_async) or suspends([*parts, g0.target, *g0.ifs, *node.generators[1:]])
