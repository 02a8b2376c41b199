"""Guest functions: compiled code plus defaults and closure cells, callable by guest and host.

Guest code calls a ``Function`` through ``invoke(budget, args, kwargs)`` (no ``__call__``
overhead); the host calls it like any callable, and ``__call__`` finds the running budget, or
starts a fresh one under the policy and limits the function was defined with.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from safe_eval.context import current_context, guest_again, host_again
from safe_eval.interpreter import tracebacks
from safe_eval.interpreter.identity import GUEST_REFS, register_internal_type
from safe_eval.interpreter.runtime import UNBOUND, Cell, Frame
from safe_eval.interpreter.tracebacks import CodeInfo
from safe_eval.limits.iteration import metered_result
from safe_eval.limits.result_bound import ResultBound
from safe_eval.limits.watchdog import IN_HOST_CODE, guest_from_host, host_code_again
from safe_eval.membrane.allowlists import PLAIN_SCALARS
from safe_eval.membrane.crossing import HOST_FILLABLE, enter_call_args, register_guest_function_type
from safe_eval.membrane.handed import from_the_host, in_tool_call

# inspect (about 5 ms to import) is loaded when a signature is asked for, not at cold start
if TYPE_CHECKING:
    import ast
    import inspect

__all__ = ["FuncCode", "Function", "Origin"]


class FuncCode:
    """What the compiler knows about a function once: body closure, parameters, slots
    (a plain class rather than a dataclass: dataclass creation is cold-start time)."""

    def __init__(
        self,
        info: CodeInfo,
        body: Callable[[Frame], Any],
        nslots: int,
        posonly: tuple[str, ...],
        args: tuple[str, ...],
        vararg: str | None,
        kwonly: tuple[str, ...],
        kwarg: str | None,
        cell_slots: tuple[int, ...] = (),  # params/locals captured by inner functions
        free_start: int = 0,
        nfree: int = 0,
        is_lambda: bool = False,
        is_generator: bool = False,
        is_async: bool = False,
        returns_value: bool = False,  # body(frame) returns the value (lambdas, plain functions)
        annotations: dict[str, ast.expr] | None = None,  # scrub's kept-aside expressions
    ) -> None:
        self.info = info
        self.body = body
        self.nslots = nslots
        self.posonly = posonly
        self.args = args
        self.vararg = vararg
        self.kwonly = kwonly
        self.kwarg = kwarg
        self.cell_slots = cell_slots
        self.free_start = free_start
        self.nfree = nfree
        self.is_lambda = is_lambda
        self.is_generator = is_generator
        self.is_async = is_async
        self.returns_value = returns_value
        self.annotations: dict[str, ast.expr] = {} if annotations is None else annotations
        self.npos = len(self.posonly) + len(self.args)
        nparams = self.npos + len(self.kwonly) + (self.vararg is not None) + (self.kwarg is not None)
        self.nparams = nparams
        self.extra = [UNBOUND] * (self.nslots - 3 - nparams)
        # positional-only fast binding: exactly npos positional args, nothing else to fill
        self.fast = not (self.vararg or self.kwarg or self.kwonly)
        self.kwslots = {n: 3 + i for i, n in enumerate(self.args, len(self.posonly))}
        base = 3 + self.npos + (self.vararg is not None)
        self.kwslots.update({n: base + i for i, n in enumerate(self.kwonly)})
        self.simple = self.fast and not self.cell_slots and not self.nfree and not (
            self.is_generator or self.is_async
        )
        self.invoker = _make_invoker(self)
        self.invoker1 = _make_invoker1(self)
        # entered inline by one-argument call sites: exactly one positional parameter, a body
        # returning the value, no cells and no slots beyond the parameter
        self.body1 = self.body if (
            self.simple and self.npos == 1 and (self.returns_value or self.is_lambda) and not self.extra
        ) else None

    def __repr__(self) -> str:
        return f"<FuncCode {self.info.qualname}>"


class Origin:
    """The run a function was defined in, for later host calls: its policy, limits and audit
    hook, the ``ResultBound`` every host call into the run's objects draws on, and what the
    run's objects keep alive (``keep``: the guest namespace they were defined in)."""

    __slots__ = ("policy", "limits", "filename", "run_nested", "audit", "bound", "keep")

    def __init__(self, policy: Any, limits: Any, filename: str, run_nested: Callable[..., Any] | None = None,
                 audit: Callable[..., Any] | None = None, bound: ResultBound | None = None,
                 keep: Any = None) -> None:
        self.policy = policy
        self.limits = limits
        self.filename = filename
        self.run_nested = run_nested
        self.audit = audit
        self.bound = ResultBound(limits) if bound is None else bound
        self.keep = keep


def current_origin() -> Origin | None:
    """The Origin of the run in progress (one per context, made at its first function or
    generator). A context opened for a host call carries the bound of the run it calls into,
    so objects made during that call share it."""
    ctx = current_context()
    if ctx is None:
        return None
    o: Origin | None = ctx.extra.get("origin")
    if o is None:
        if ctx.bound is None:
            ctx.bound = ResultBound(ctx.budget.limits)
        o = ctx.extra["origin"] = Origin(ctx.policy, ctx.budget.limits, ctx.filename, ctx.run_nested,
                                         ctx.audit, ctx.bound, ctx.keep)
    return o


@register_internal_type
class Function:
    """A guest function. ``__name__``/``__qualname__``/``__defaults__``... live in ``__dict__``
    so ``functools.wraps`` and decorators can read and set them."""

    __slots__ = (
        "code", "run", "run1", "body1", "globals", "defaults", "kwdefaults", "closure", "origin", "__dict__",
    )

    def __init__(
        self,
        code: FuncCode,
        globals_: dict[str, Any],
        defaults: tuple[Any, ...],
        kwdefaults: dict[str, Any] | None,
        closure: tuple[Cell, ...],
        origin: Origin | None,
    ) -> None:
        self.code = code
        # the specialised call path: fn.run(fn, budget, args, kwargs=None)
        self.run = code.invoker
        # the one-positional-argument call path: fn.run1(fn, budget, arg) (``f(n - 1)``)
        self.run1 = code.invoker1
        # the body a one-argument call site may enter inline (specialize.call1_global_closure)
        self.body1 = code.body1
        self.globals = globals_
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.closure = closure
        self.origin = origin
        d = self.__dict__
        d["__name__"] = code.info.name
        d["__qualname__"] = code.info.qualname
        d["__module__"] = "__main__"
        d["__doc__"] = None

    # -- attributes functools.wraps and inspect use ---------------------------------------
    @property
    def __defaults__(self) -> tuple[Any, ...] | None:
        return self.defaults or None

    @property
    def __kwdefaults__(self) -> dict[str, Any] | None:
        return self.kwdefaults or None

    @property
    def __annotations__(self) -> dict[str, Any]:
        """Real types resolved from the annotations' AST on first read, against the globals
        as they are then (so a method can name its class); never text (annotations.py)."""
        d = self.__dict__
        ann = d.get("__annotations__")
        if ann is None:
            from safe_eval.interpreter.annotations import function_annotations

            ann = d["__annotations__"] = function_annotations(self.code.annotations, self.globals)
        return ann

    @__annotations__.setter
    def __annotations__(self, value: Any) -> None:
        # functools.wraps copies annotations from what it wraps (maybe a host function whose
        # annotations are text): only inert values are kept
        from safe_eval.interpreter.annotations import is_inert

        if type(value) is not dict:
            raise TypeError("__annotations__ must be set to a dict object")
        self.__dict__["__annotations__"] = {
            k: v for k, v in value.items() if type(k) is str and is_inert(v)}

    @property
    def __signature__(self) -> inspect.Signature:
        return signature_of(self)

    def __repr__(self) -> str:
        return f"<function {self.__dict__.get('__qualname__', '?')}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return types.MethodType(self, obj)

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The host-to-guest door: guest code calls guest functions through ``run`` and never
        # reaches here; host code does (C callbacks such as ``key=``, dunders the host calls,
        # reflected operators, a decoded callable), so every argument is entered first.
        ctx = current_context()
        origin = self.origin
        # it runs as is only inside its own run (or a host call into it), or a run deciding and
        # auditing as its own does (a later run of the same Evaluator); anywhere else under its
        # own run's policy and audit hook (session.call_as_origin), coming back through here
        if ctx is not None and origin is not None and (
                ctx.bound is origin.bound or (ctx.policy is origin.policy and ctx.audit is origin.audit)):
            kw: dict[str, Any] | None = kwargs
            refs = GUEST_REFS
            called_back = in_tool_call()  # by a tool: what it wrote so far enters (below)
            if not called_back:
                for a in args:  # the guest's own objects and plain data need no conversion (fast path)
                    tp = type(a)
                    if tp not in PLAIN_SCALARS:
                        ref = refs.get(id(tp))
                        if ref is None or ref() is not tp or isinstance(a, HOST_FILLABLE):
                            # (a guest list or exception subclass may hold what host code put in it)
                            args, kw = enter_call_args(args, kw, ctx.policy)
                            break
                else:
                    if kw:
                        args, kw = enter_call_args(args, kw, ctx.policy)
            b = ctx.budget
            b.host_calls += 1
            if b.host_calls > b.max_host_calls:
                b.too_many_host_calls()
            # called back by a tool its run handed the CPU to: the run's own state (its decimal
            # context) is back for the call, and the watchdog watches it again (last: off the
            # CPU nothing is delivered here)
            state = guest_again(ctx) if ctx.root.extra else None
            oncpu = None
            try:
                if IN_HOST_CODE:
                    oncpu = guest_from_host(b)
                if called_back:  # on the run's CPU time: the walk of what the tool was handed
                    args, kw = enter_call_args(args, kw, ctx.policy)
                result = self.run(self, b, args, kw)
            finally:
                b.host_calls -= 1
                if oncpu is not None:
                    host_code_again(oncpu)
                if state is not None:
                    host_again(ctx, state)
            # host code called this: a host iterator it gets back ticks (``metered_result``)
            return result if type(result) in PLAIN_SCALARS else metered_result(result)
        from safe_eval.interpreter.session import call_as_origin

        if ctx is None:  # the host application, outside any run (handed.from_the_host)
            from_the_host(args, kwargs, origin.keep if origin is not None else None)
        return call_as_origin(origin, lambda: self(*args, **kwargs))

    def invoke(self, b: Any, args: Any, kwargs: dict[str, Any] | None = None) -> Any:
        return self.run(self, b, args, kwargs)

    def invoke_generic(self, b: Any, args: Any, kwargs: dict[str, Any] | None = None) -> Any:
        code = self.code
        b.fuel -= 1
        if b.fuel < 0:
            b.refuel()
        if code.simple and not kwargs and len(args) == code.npos:
            frame = [self.globals, b, None, *args, *code.extra]
        else:
            frame = self.bind(b, args, kwargs)
        if code.is_generator or code.is_async:
            from safe_eval.interpreter.generators import make_generator

            return make_generator(self, frame)
        b.depth += 1
        if b.depth > b.max_depth:
            b.too_deep()
        try:
            if code.returns_value or code.is_lambda:
                return code.body(frame)
            code.body(frame)
            return frame[2]
        except BaseException as e:
            tracebacks.push(e, code.info)
            raise
        finally:
            b.depth -= 1

    def bind(self, b: Any, args: Any, kwargs: dict[str, Any] | None) -> Frame:
        code = self.code
        frame: Frame = [self.globals, b, None]
        frame += [UNBOUND] * (code.nslots - 3)
        npos = code.npos
        n = len(args)
        name = self.__dict__.get("__qualname__", code.info.qualname)
        too_many = 0  # reported after the keywords, as CPython does: k1(1, 2, bad=3) names bad
        if n > npos:
            if code.vararg is None:
                too_many = n
            else:
                frame[3 + npos] = tuple(args[npos:])
            n = npos
        elif code.vararg is not None:
            frame[3 + npos] = ()
        frame[3 : 3 + n] = args[:n]
        extra: dict[str, Any] | None = {} if code.kwarg is not None else None
        if kwargs:
            for k, v in kwargs.items():
                slot = code.kwslots.get(k)
                if slot is None:
                    if extra is None:
                        if k in code.posonly:  # CPython names them all
                            given = ", ".join(p for p in kwargs if p in code.posonly)
                            raise TypeError(
                                f"{name}() got some positional-only arguments passed as keyword "
                                f"arguments: '{given}'"
                            )
                        raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
                    extra[k] = v
                elif frame[slot] is not UNBOUND:
                    raise TypeError(f"{name}() got multiple values for argument '{k}'")
                else:
                    frame[slot] = v
        if too_many:
            _too_many(name, code, len(self.defaults), too_many, kwargs)
        defaults = self.defaults
        first_default = npos - len(defaults)
        missing: list[str] = []
        names = code.posonly + code.args
        for i in range(n, npos):
            if frame[3 + i] is UNBOUND:
                if i >= first_default:
                    frame[3 + i] = defaults[i - first_default]
                else:
                    missing.append(names[i])
        if missing:
            _missing(name, missing, "positional")
        if code.kwonly:
            kwd = self.kwdefaults or {}
            for k in code.kwonly:
                slot = code.kwslots[k]
                if frame[slot] is UNBOUND:
                    if k in kwd:
                        frame[slot] = kwd[k]
                    else:
                        missing.append(k)
            if missing:
                _missing(name, missing, "keyword-only")
        if extra is not None:
            frame[3 + code.nparams - 1] = extra
        return self._cells(frame)

    def _cells(self, frame: Frame) -> Frame:
        code = self.code
        for s in code.cell_slots:
            c = Cell()
            v = frame[s]
            if v is not UNBOUND:
                c.v = v
            frame[s] = c
        if code.nfree:
            frame[code.free_start : code.free_start + code.nfree] = self.closure
        return frame


def _make_invoker(code: FuncCode) -> Callable[..., Any]:
    """The call path of one compiled function, with its constants in closure cells."""
    if not code.simple:
        return Function.invoke_generic
    body, extra, npos, info, push = code.body, code.extra, code.npos, code.info, tracebacks.push
    if code.returns_value or code.is_lambda:
        def invoke_lambda(fn: Function, b: Any, args: Any, kwargs: dict[str, Any] | None = None) -> Any:
            b.fuel -= 1
            if b.fuel < 0:
                b.refuel()
            if kwargs or len(args) != npos:
                frame = fn.bind(b, args, kwargs)
            else:
                frame = [fn.globals, b, None, *args, *extra]
            b.depth += 1
            if b.depth > b.max_depth:
                b.too_deep()
            try:
                return body(frame)
            except BaseException as e:
                push(e, info)
                raise
            finally:
                b.depth -= 1
        return invoke_lambda

    def invoke_simple(fn: Function, b: Any, args: Any, kwargs: dict[str, Any] | None = None) -> Any:
        b.fuel -= 1
        if b.fuel < 0:
            b.refuel()
        if kwargs or len(args) != npos:
            frame = fn.bind(b, args, kwargs)
        else:
            frame = [fn.globals, b, None, *args, *extra]
        b.depth += 1
        if b.depth > b.max_depth:
            b.too_deep()
        try:
            body(frame)
            return frame[2]
        except BaseException as e:
            push(e, info)
            raise
        finally:
            b.depth -= 1
    return invoke_simple


def _make_invoker1(code: FuncCode) -> Callable[..., Any]:
    """The call path for exactly one positional argument: no argument tuple, no kwargs or
    count test. Same fuel tick, depth check and traceback push as ``_make_invoker``."""
    if not code.simple or code.npos != 1:
        def invoke1_general(fn: Function, b: Any, a: Any) -> Any:
            return fn.run(fn, b, (a,))
        return invoke1_general
    body, extra, info, push = code.body, code.extra, code.info, tracebacks.push
    returns = code.returns_value or code.is_lambda
    if returns and not extra:
        def invoke1_value(fn: Function, b: Any, a: Any) -> Any:
            b.fuel -= 1
            if b.fuel < 0:
                b.refuel()
            frame = [fn.globals, b, None, a]
            b.depth += 1
            if b.depth > b.max_depth:
                b.too_deep()
            try:
                return body(frame)
            except BaseException as e:
                push(e, info)
                raise
            finally:
                b.depth -= 1
        return invoke1_value

    def invoke1(fn: Function, b: Any, a: Any) -> Any:
        b.fuel -= 1
        if b.fuel < 0:
            b.refuel()
        frame = [fn.globals, b, None, a, *extra]
        b.depth += 1
        if b.depth > b.max_depth:
            b.too_deep()
        try:
            if returns:
                return body(frame)
            body(frame)
            return frame[2]
        except BaseException as e:
            push(e, info)
            raise
        finally:
            b.depth -= 1
    return invoke1


register_guest_function_type(Function)


def _too_many(name: str, code: FuncCode, ndefaults: int, given: int, kwargs: Any) -> None:
    npos = code.npos
    if ndefaults:
        takes = f"from {npos - ndefaults} to {npos} positional arguments"
    else:
        takes = f"{npos} positional argument" + ("" if npos == 1 else "s")
    was = "was" if given == 1 else "were"
    raise TypeError(f"{name}() takes {takes} but {given} {was} given")


def _missing(name: str, missing: list[str], kind: str) -> None:
    quoted = [f"'{m}'" for m in missing]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    s = "" if len(missing) == 1 else "s"
    raise TypeError(f"{name}() missing {len(missing)} required {kind} argument{s}: {listed}")


def signature_of(fn: Function) -> inspect.Signature:
    """A real ``inspect.Signature`` (names, defaults, kinds) built from the compiled code."""
    import inspect

    declared = fn.__dict__.get("__signature__")
    if type(declared) is inspect.Signature:  # a generic guest-stdlib function (guestlib._leaves)
        return declared
    P = inspect.Parameter
    code = fn.code
    params: list[inspect.Parameter] = []
    defaults = fn.defaults
    first_default = code.npos - len(defaults)
    ann = fn.__annotations__
    for i, n in enumerate(code.posonly + code.args):
        kind = P.POSITIONAL_ONLY if i < len(code.posonly) else P.POSITIONAL_OR_KEYWORD
        default = defaults[i - first_default] if i >= first_default else P.empty
        params.append(P(n, kind, default=default, annotation=ann.get(n, P.empty)))
    if code.vararg:
        params.append(P(code.vararg, P.VAR_POSITIONAL, annotation=ann.get(code.vararg, P.empty)))
    kwd = fn.kwdefaults or {}
    for n in code.kwonly:
        params.append(P(n, P.KEYWORD_ONLY, default=kwd.get(n, P.empty), annotation=ann.get(n, P.empty)))
    if code.kwarg:
        params.append(P(code.kwarg, P.VAR_KEYWORD, annotation=ann.get(code.kwarg, P.empty)))
    return inspect.Signature(params, return_annotation=ann.get("return", inspect.Signature.empty))
