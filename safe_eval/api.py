"""The public API: ``safe_eval``, ``safe_exec``, ``safe_callable`` and ``Evaluator``.

    safe_eval(code, env=None, *, policy=None, limits=None, tools=None) -> value of the last expression
    safe_exec(code, env=None, *, policy=None, limits=None, tools=None) -> the namespace (dict)
    Evaluator(policy=None, limits=None).run(code, env, tools=None) -> Result(value, stdout, ops, seconds)
    safe_callable(code, name=None, *, expected=None, env=None, tools=None, ...) -> a host callable

``env`` is the session's state: its values enter through the membrane (``enter_value``); when
``env`` is a dict, top-level bindings the code makes (new or rebound) are written back, as
``exec(code, globals)`` does. ``tools`` are the host's functions, kept apart from that state:
callable through the policy (the one door out, ``policy/enforce.py``), never written into
``env``, and never shadowing a name ``env`` holds. A host callable put in ``env`` is a tool too
(the policy decides its calls by its env key); what the guest binds itself (a helper it
defines, a class it imports) is never a tool, in the step that binds it or any later one.
``limits`` merge onto the policy's limits field by field (a ``Limits`` replaces only the fields
it was given). A ``SafeEvalError`` raised by a run carries the output printed before it
(``err.stdout``).
Errors: ``PolicyViolation`` (static), ``GuestError`` (an exception the code did not catch),
``LimitExceeded`` subclasses, ``InternalError``, and ``SandboxError`` subclasses when an OS
sandbox is selected (``sandbox=``, ``with safe_eval.sandbox(...)``, ``SAFE_EVAL_SANDBOX``, or
the policy's ``sandbox`` line: see ``safe_eval.sandbox``). A host mistake in the call itself (``env`` not
a mapping, a non-str key) is a ``TypeError``.
"""

from __future__ import annotations

import time
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from safe_eval import membrane
from safe_eval._record import Frozen, Record
from safe_eval.context import RunContext
from safe_eval.errors import GuestError, PolicyViolation, SafeEvalError, SandboxError
from safe_eval.interpreter.compiler import CompiledModule, compile_module
from safe_eval.interpreter.namespace import NamespaceRegistry
from safe_eval.interpreter.session import run_guarded
from safe_eval.limits.budget import Budget
from safe_eval.limits.model import Limits
from safe_eval.membrane.crossing import done_entering, enter_tool, entering
from safe_eval.membrane.handed import from_the_host
from safe_eval.membrane.instancedict import plain_result
from safe_eval.membrane.proxies import static_facts
from safe_eval.pipeline.cache import BoundedCache
from safe_eval.pipeline.program import build_program
from safe_eval.policy import Policy, resolve_policy
from safe_eval.sandbox import selection as _selection

__all__ = ["Evaluator", "Result", "refill", "safe_callable", "safe_eval", "safe_exec"]

LimitsLike = Limits | Mapping[str, Any] | None
# the host's tools: a dict of names to host callables, or host callables named by ``__name__``
ToolsLike = Mapping[str, Callable[..., Any]] | Iterable[Callable[..., Any]] | None
_NO_NAMES: frozenset[str] = frozenset()
_NO_FACTS: tuple[frozenset[str], frozenset[tuple[str, str]]] = (frozenset(), frozenset())


class Result(Frozen, Record):
    """One evaluation: the value, the captured ``print`` output, operations and seconds used.
    A frozen value (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("value", "stdout", "ops", "seconds")
    _fields = __slots__
    __match_args__ = ("value", "stdout", "ops", "seconds")

    value: Any
    stdout: str
    ops: int
    seconds: float

    def __init__(self, value: Any, stdout: str, ops: int, seconds: float) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "stdout", stdout)
        object.__setattr__(self, "ops", ops)
        object.__setattr__(self, "seconds", seconds)


class Evaluator:
    """Configuration (policy, limits, filename) plus an LRU of compiled programs, so
    re-evaluating the same text skips parse, scrub, restrict, policy check and compile.

    Nothing a run makes is kept here: the LRU is bounded in bytes (``pipeline/cache.py``) and
    never holds what guest ``exec``/``eval`` compiled, and the guest namespaces of ``env`` dicts
    are held weakly (``interpreter/namespace.py``), so a run's data lives only as long as the
    host keeps its ``env`` or its results."""

    def __init__(
        self,
        policy: Any = None,
        limits: LimitsLike = None,
        *,
        filename: str = "<safe-eval>",
        echo: bool = False,
        audit: Callable[..., Any] | None = None,
        cache_size: int = 256,
        # compiled programs kept, estimated bytes (see pipeline/cache.py)
        cache_bytes: int = 16 * 2**20,
        sandbox: str | None = None,
    ) -> None:
        self.policy: Policy = resolve_policy(policy)
        # an OS sandbox to run in (see safe_eval.sandbox.selection for the precedence)
        self.sandbox = None if sandbox is None else _selection.normalize(sandbox)
        self._escalates = self.sandbox is not None or self.policy.sandbox is not None
        self.limits: Limits = _merge(self.policy.limits, limits)
        self.filename = filename
        self.echo = echo
        self.audit = audit
        self.cache_size = cache_size
        self._cache = BoundedCache(cache_size, cache_bytes)
        # guest namespaces of the env dicts in use (a REPL loop reuses one: see namespace.py)
        self._spaces = NamespaceRegistry()

    # -- compiling -------------------------------------------------------------------------
    def compile(self, code: Any, env_names: frozenset[str] = frozenset(),
                tool_names: frozenset[str] | None = None,
                writable: frozenset[tuple[str, str]] = frozenset(), *, cache: bool = True) -> CompiledModule:
        """The compiled module for ``code``; ``cache=False`` neither reads nor fills a cache
        (guest ``exec``/``eval`` strings: a run must not leave its programs behind).
        ``tool_names``: which of ``env_names`` are tools (``None``: any of them may be);
        ``writable``: (env name, attribute) pairs declared writable (``membrane.static_facts``)."""
        key = (code, env_names, (tool_names, writable)) if cache and isinstance(code, str) else None
        if key is not None:
            hit: CompiledModule | None = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        program = build_program(code, self.policy, self.filename, env_names, tool_names, writable,
                                cache=cache)
        compiled = program.compiled.get("module")
        if compiled is None:
            compiled = compile_module(program.tree, program.source, program.filename, program.annotations)
            if cache:
                program.compiled["module"] = compiled
        if key is not None:
            self._cache.put(key, compiled, program.nbytes)
        return compiled

    # -- running ---------------------------------------------------------------------------
    def run(self, code: Any, env: Mapping[str, Any] | None = None, *, limits: LimitsLike = None,
            tools: ToolsLike = None) -> Result:
        value, budget, seconds, _ = self._run(code, env, limits, True, None, tools)
        return Result(value, budget.stdout, budget.ops_used, seconds)

    def eval(self, code: Any, env: Mapping[str, Any] | None = None, *, limits: LimitsLike = None,
             tools: ToolsLike = None) -> Any:
        return self._run(code, env, limits, False, None, tools)[0]

    def exec(self, code: Any, env: Mapping[str, Any] | None = None, *,
             limits: LimitsLike = None, tools: ToolsLike = None) -> dict[str, Any]:
        return self._run(code, env, limits, False, None, tools)[3]

    def _run(self, code: Any, env: Mapping[str, Any] | None, limits: LimitsLike,
             timed: bool = False, sandbox: str | None = None,
             tools: ToolsLike = None) -> tuple[Any, Any, float, dict[str, Any]]:
        """(value, budget, seconds (0.0 unless ``timed``), namespace) of one evaluation."""
        # the hot path of every evaluation: one-expression calls spend most of their time here,
        # so the common cases (a dict env, a cached text) are tested inline
        tool_map = None if tools is None else tool_mapping(tools)
        if sandbox is not None or self._escalates or _HANDLER.get() is not None or _FROM_ENV[0] is not None:
            name = _selection.choose(sandbox if sandbox is not None else self.sandbox, self.policy.sandbox)
            if name is not None:
                return self._run_sandboxed(name, code, env, limits, tool_map)
        if env is not None and type(env) is not dict and not isinstance(env, Mapping):
            raise TypeError(f"env must be a dict (or a mapping), not {type(env).__name__}")
        ns = self._spaces.for_env(env)
        policy = self.policy
        token = entering(self.audit)  # a function another Evaluator made enters as its run's tool
        try:
            ns.sync_in(membrane.enter_value, policy)
            ns.sync_tools(tool_map, enter_tool, policy)
            # what a tool of an earlier run on this env kept and wrote into since (handed.py)
            from_the_host((), None, ns)
        finally:
            done_entering(token)
        g = ns.g
        names = frozenset(g) if g else _NO_NAMES
        # which names are tools (only those meet the tool rules), which attributes are writable
        facts = static_facts(g) if g else _NO_FACTS
        compiled = None
        if isinstance(code, str):
            cache = self._cache
            key = (code, names, facts)
            compiled = cache.get(key)
            if compiled is not None:
                cache.move_to_end(key)
        if compiled is None:
            try:
                compiled = self.compile(code, names, *facts)
            except PolicyViolation as exc:
                _refused(self.audit, exc, self.filename)
                raise
        lim = self.limits if limits is None else _merge(self.limits, limits)
        budget = Budget(lim, echo=True) if self.echo else Budget(lim)
        ctx = RunContext(budget, policy, self.audit, self.run_nested, self.filename, None, None, ns)
        start = time.perf_counter() if timed else 0.0
        try:
            value = run_guarded(ctx, compiled.run, g, budget)
        except SafeEvalError as exc:
            exc.stdout = budget.stdout  # the output printed before the error (agents repair from it)
            raise
        finally:
            ns.sync_out()
        seconds = time.perf_counter() - start if timed else 0.0
        return plain_result(value), budget, seconds, dict(ns.bindings()) if env is None else ns.bindings()

    def _run_sandboxed(self, name: str, code: Any, env: Mapping[str, Any] | None, limits: LimitsLike,
                       tools: dict[str, Any] | None = None) -> tuple[Any, Any, float, dict[str, Any]]:
        """One evaluation in the OS sandbox ``name`` (a fresh worker from its warm pool)."""
        lim = self.limits if limits is None else _merge(self.limits, limits)
        on_print = (lambda text: print(text, end="")) if self.echo else None
        seen: Mapping[str, Any] | None = env
        merged: dict[str, Any] | None = None
        if tools:  # beneath env, as in process; the backend keeps callables as tools
            seen = merged = {**tools, **(env or {})}
        result = _selection.get_backend(name).run(
            code, seen, policy=self.policy, limits=lim, audit=self.audit, on_print=on_print,
            filename=self.filename)
        if tools and merged is not None and isinstance(env, dict):
            env.update({k: v for k, v in merged.items() if k not in tools or v is not tools[k]})
        if isinstance(env, dict):
            ns = env
        else:
            ns = {k: v for k, v in (env or {}).items() if not callable(v)}
        return result.value, _Spent(result.stdout, result.ops), result.seconds, ns

    def run_nested(self, source: Any, mode: str = "exec", globals: dict[str, Any] | None = None) -> Any:
        """Guest ``eval``/``exec`` of a string: the whole pipeline, the running budget."""
        from safe_eval.context import current_context

        ctx = current_context()
        if ctx is None:
            raise RuntimeError("run_nested outside an evaluation")
        g = {} if globals is None else globals
        try:
            compiled = self.compile(source, frozenset(g), cache=False)
        except PolicyViolation as exc:
            _refused(ctx.audit, exc, self.filename)
            raise
        if mode == "eval":
            if compiled.body is not None or compiled.last is None:
                raise SyntaxError("eval() arg must be a single expression")
            return compiled.run(g, ctx.budget)
        compiled.run(g, ctx.budget)
        return None


def _refused(audit: Callable[..., Any] | None, exc: PolicyViolation, filename: str) -> None:
    """Tell the audit hook and the logger that the static checks refused the code."""
    from safe_eval.audit import Refusal, report

    report(audit, Refusal(exc.diagnostics, filename, exc.source))


class _Spent:
    """What a sandboxed run reports in place of a budget."""

    __slots__ = ("stdout", "ops_used")

    def __init__(self, stdout: str, ops_used: int) -> None:
        self.stdout = stdout
        self.ops_used = ops_used


_HANDLER = _selection._handler
_FROM_ENV = _selection._from_env


def tool_mapping(tools: ToolsLike) -> dict[str, Any] | None:
    """``tools=`` as ``{name: host callable}`` (a list of functions is named by their
    ``__name__``); the membrane checks each is a host callable when it enters (``enter_tool``)."""
    if tools is None:
        return None
    if isinstance(tools, Mapping):
        return dict(tools)
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Iterable):
        raise TypeError(f"tools must be a dict of names to functions or a list of functions, "
                        f"not {type(tools).__name__}")
    named: dict[str, Any] = {}
    for fn in tools:
        name = getattr(fn, "__name__", None)  # the host's own object: host code may read it
        if not isinstance(name, str):
            raise TypeError(f"a tool given in a list needs a __name__: {fn!r}; pass a dict instead")
        named[name] = fn
    return named


def _merge(base: Limits, override: LimitsLike) -> Limits:
    if override is None:
        return base
    if isinstance(override, Limits):
        return base.merged(override)  # only the fields it was given (as a dict merges)
    if isinstance(override, Mapping):
        return base.merged(dict(override))
    raise TypeError(f"limits must be a Limits or a dict, not {type(override).__name__}")


_EVALUATORS: dict[Any, Evaluator] = {}
# the shared evaluators of the module-level functions, one per policy (each caches at most its
# cache_bytes of compiled programs, so together they hold at most 16 x 16 MB)
_SHARED_EVALUATORS = 16


def _evaluator(policy: Any) -> Evaluator:
    ev = _EVALUATORS.get(policy) if policy is None or isinstance(policy, (str, Policy)) else None
    if ev is None:
        ev = Evaluator(policy)
        if policy is None or isinstance(policy, (str, Policy)):
            if len(_EVALUATORS) >= _SHARED_EVALUATORS:
                _EVALUATORS.clear()
            _EVALUATORS[policy] = ev
    return ev


def safe_eval(code: Any, env: Mapping[str, Any] | None = None, *, policy: Any = None,
              limits: LimitsLike = None, sandbox: str | None = None, tools: ToolsLike = None) -> Any:
    """Evaluate an expression or a block of statements; the value of the last expression
    statement (else None). Top-level bindings are written back to ``env`` when it is a dict.
    ``tools`` (a dict of names to host functions, or a list of functions named by their
    ``__name__``) are callable by the code through the policy, never written into ``env``.
    ``sandbox`` ("subprocess", "bwrap", "container", "off" ...) runs it in an OS sandbox."""
    ev = _EVALUATORS.get(None) if policy is None else None  # the default policy: no lookup logic
    return (ev or _evaluator(policy))._run(code, env, limits, False, sandbox, tools)[0]


def safe_exec(code: Any, env: Mapping[str, Any] | None = None, *, policy: Any = None,
              limits: LimitsLike = None, sandbox: str | None = None,
              tools: ToolsLike = None) -> dict[str, Any]:
    """Run a block of statements; returns the resulting namespace (without the tools)."""
    return _evaluator(policy)._run(code, env, limits, False, sandbox, tools)[3]


def safe_callable(code: Any, name: str | None = None, *, expected: Any = None, policy: Any = None,
                  limits: LimitsLike = None, env: Mapping[str, Any] | None = None,
                  tools: ToolsLike = None, sandbox: str | None = None) -> Callable[..., Any]:
    """Decode a function the code defines (``name``, else the last one defined): a host
    callable whose every call is sandboxed and limited again; checked against ``expected``
    (e.g. ``Callable[[list[int]], int]``) when given. ``env`` is its module-level state (the
    function reads it as globals; a dict ``env`` gets the code's top-level bindings), ``tools``
    the host functions it may call through the policy on every later call. ``sandbox``
    ("subprocess", "bwrap"...) keeps the function in a worker of that OS sandbox, arguments
    and results crossing as plain data, ``env`` and ``tools`` as there (``expected`` is not
    offered: the signature lives in the worker)."""
    from safe_eval.interpreter.functions import Function

    if sandbox is not None and _selection.normalize(sandbox) != "off":
        if expected is not None:
            raise SandboxError("safe_callable(sandbox=...) does not take `expected`: the function "
                               "and its signature stay in the worker")
        from safe_eval.sandbox.calls import sandboxed_callable

        return sandboxed_callable(code, name, sandbox, policy=policy, limits=limits, env=env,
                                  tools=tool_mapping(tools))

    ev = Evaluator(policy, limits) if limits is not None else _evaluator(policy)
    ns = ev._run(code, env, None, False, None, tools)[3]
    if name is None:
        fns = [v for v in ns.values() if isinstance(v, Function)]
        if not fns:
            raise GuestError("NameError", "the code defines no function")
        fn = fns[-1]
    else:
        if name not in ns:
            raise GuestError("NameError", f"the code does not define '{name}'")
        fn = ns[name]
    if not callable(fn):
        raise GuestError("TypeError", f"'{name}' is not callable")
    if not _guest_made(fn):
        raise GuestError("TypeError", f"'{name}' is not a function the code defines "
                         f"(it is a {type(fn).__name__})")
    if expected is not None:
        from safe_eval.interpreter.signatures import check_callable

        return check_callable(fn, expected)
    return fn


def _guest_made(fn: Any) -> bool:
    """True for a guest function, class or callable object, or a host wrapper of one (a bound
    method, ``functools.partial``, an ``lru_cache``): what ``safe_callable`` decodes. A builtin
    or a curated module's function named by the code is not decoded."""
    import functools
    import types

    from safe_eval.interpreter.identity import is_guest_class, is_guest_object
    from safe_eval.membrane.modules.functools import partial as guest_partial

    for _ in range(8):  # wrappers of wrappers, bounded
        kind = type(fn)
        if is_guest_object(fn) or (issubclass(kind, type) and is_guest_class(fn)):
            return True
        if kind is types.MethodType:
            fn = fn.__func__
        elif kind is functools.partial or kind is guest_partial:  # the guest's (curated) partial
            fn = fn.func
        elif kind is functools._lru_cache_wrapper:
            fn = fn.__wrapped__
        else:
            return False
    return False


def refill(obj: Any) -> None:
    """Give host calls into the results of the run that made ``obj`` (a decoded function, a
    returned generator, a guest class or an instance of one) their full allowance again.

    Every host call into a run's results (calling a decoded function, ``repr``/``==``/``hash``/
    iteration of returned guest objects, resuming a returned generator) draws on one bound of
    that run's limits, so a sequence of such calls cannot multiply them; the host decides when
    to grant more (``limits/result_bound.py``). A ``TypeError`` for anything no run made."""
    from safe_eval.interpreter.functions import Function
    from safe_eval.interpreter.signatures import CheckedFunction

    bound = None
    if isinstance(obj, CheckedFunction):  # safe_callable(..., expected=...)
        obj = obj.__wrapped__
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if isinstance(obj, Function):
        bound = obj.origin.bound if obj.origin is not None else None
    else:
        from safe_eval.interpreter import generators

        if isinstance(obj, generators.Resumable):
            origin = obj._origin
            bound = origin.bound if origin is not None else None
        else:
            # a guest class, or an instance of one: its methods carry the run's Origin. Only
            # class dicts are read (a mappingproxy of the interpreter's own Functions): no
            # guest code runs here.
            cls = obj if isinstance(obj, type) else type(obj)
            for klass in type.__dict__["__mro__"].__get__(cls):
                for value in type.__dict__["__dict__"].__get__(klass).values():
                    if type(value) is Function and value.origin is not None:
                        bound = value.origin.bound
                        break
                if bound is not None:
                    break
    if bound is None:
        raise TypeError(f"no safe-eval run made this {type(obj).__name__} object")
    bound.refill()
