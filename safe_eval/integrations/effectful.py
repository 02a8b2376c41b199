"""safe-eval as effectful's eval provider: ``SafeEvalProvider``.

effectful (``effectful.handlers.llm``) runs model-written code through four operations a
provider fills: ``parse``, ``type_check``, ``compile`` and ``exec``. Install this one in place
of ``UnsafeEvalProvider``/``RestrictedEvalProvider``::

    with handler(SafeEvalProvider()):          # or SafeEvalProvider(policy=..., limits=...)
        ...

- ``parse(source, filename)``: safe-eval's parser (its size and nesting limits), the source
  registered in ``linecache`` under ``filename`` as the stock providers do, so
  ``inspect.getsource`` and tracebacks find it. Bad code raises ``RefusedCode``, which is a
  ``SyntaxError`` (what effectful's decoders catch) and a ``PolicyViolation``.
- ``type_check``: delegated to the stock provider (mypy in a subprocess: it reads the text,
  never runs it).
- ``compile(module, filename)``: the whole static pipeline (scrub, restrict, policy check) runs
  here, so refused code fails at decode time and the model is asked again. **What it returns
  is inert**: a real ``CodeType`` (effectful's encoders read its ``co_filename``) compiled from
  one line, ``raise RuntimeError("... not runnable outside SafeEvalProvider.exec ...")``, with
  nothing of the guest's code in it. The checked program is kept on the side, in a registry
  keyed weakly by that code object; builtin ``exec`` of it only raises.
- ``exec(code, env)``: looks the program up (a code object this provider did not compile is
  refused with ``TypeError``) and runs it in safe-eval with ``env``'s values entering through
  the membrane. Every top-level binding (new or rebound) is written back to ``env`` as the
  host's own objects: membrane wrappers unwrapped (``membrane.proxies.host_original``: a
  tool's function, an exposed object, the real module for a curated one), guest functions as
  host functions (below). A guest exception arrives as ``GuestError`` with the guest traceback
  added as a note.

Decoded functions are host functions that call the guest function (every call sandboxed and
limited again). They carry the guest function's real ``__signature__`` and ``__annotations__``
(resolved from the scrubbed annotation AST against the allowlist and the types in ``env``:
never evaluated from text, see ``interpreter/annotations.py``), its docstring, and a
``__code__`` whose ``co_filename``/``co_firstlineno`` point at the ``def`` in ``linecache``, so
``inspect.getsource`` returns the model's text. Handed back to a later ``exec``, such a function
is the guest function again.

effectful keeps its handler state in a ``threading.local``: a run started on a thread other
than the main one (where safe-eval runs the guest on a big-stack thread, ``limits/stack.py``)
still makes its calls of ``env`` callables on the caller's thread, in the caller's context:
the caller serves them while it waits. Such a call is not interrupted by the watchdog (it runs
on the waiting thread); the run ends at its limit once the call returns.

effectful's own tests (``tests/clients/run_effectful.sh``, effectful at 003b74a, measured
2026-11-26 on CPython 3.12): stock 753 passed, 6 failed, 204 skipped; with both stock providers
replaced by this one 749 passed, 10 failed, 204 skipped. The 6 fail in both runs (effectful's
REPL checks of its own); the 4 more are by design (``tests/clients/README.md``). Differences by design:
``RestrictedEvalProvider(policy=...)`` takes a RestrictedPython transformer, which has no meaning
here (ignored); code the stock unsafe provider runs but the policy refuses (``import os``, dunder
access) is a ``RefusedCode`` at compile time; guest functions have no ``__globals__``/``__code__``
of their own.
"""

from __future__ import annotations

import ast
import builtins
import itertools
import linecache
import queue
import threading
import types
import weakref
from collections.abc import Callable, MutableMapping
from typing import Any

from effectful.handlers.llm import evaluation
from effectful.handlers.llm.evaluation import UnsafeEvalProvider
from effectful.ops.syntax import ObjectInterpretation, implements

from safe_eval.api import Evaluator, LimitsLike
from safe_eval.errors import GuestError, PolicyViolation
from safe_eval.interpreter.functions import Function
from safe_eval.limits.stack import stack_for, start_with_stack
from safe_eval.membrane.instancedict import plain_result
from safe_eval.membrane.proxies import host_original
from safe_eval.pipeline.parse import parse as parse_guarded

__all__ = ["RefusedCode", "SafeEvalProvider"]


class RefusedCode(PolicyViolation, SyntaxError):  # type: ignore[misc]  # both name a ``filename``: one slot
    """Code safe-eval will not run (a parse error or a policy violation), raised by ``parse``
    and ``compile``: a ``SyntaxError`` too, which is what effectful's decoders turn into a
    retry with the message shown to the model."""


class _Compiled:
    """What ``compile`` checked, kept beside the inert code object it returned."""

    __slots__ = ("source", "filename", "evaluator", "defs")

    def __init__(self, source: str, filename: str, evaluator: Evaluator,
                 defs: dict[str, tuple[int, str | None]]) -> None:
        self.source = source
        self.filename = filename
        self.evaluator = evaluator
        self.defs = defs  # qualname -> (first line, decorators included; docstring)


# inert code object -> its checked program; weak, so a dropped code object frees the program
_PROGRAMS: weakref.WeakKeyDictionary[types.CodeType, _Compiled] = weakref.WeakKeyDictionary()
# host function made for a guest function -> that guest function
_GUEST_OF: weakref.WeakKeyDictionary[Callable[..., Any], Function] = weakref.WeakKeyDictionary()
# id of a guest function -> the host function made for it (one each, so ``g = f`` keeps ``is``)
_HOST_OF: weakref.WeakValueDictionary[int, Callable[..., Any]] = weakref.WeakValueDictionary()
# an env callable wrapped to run on the caller's thread -> the callable itself
_CALLER_OF: weakref.WeakKeyDictionary[Callable[..., Any], Callable[..., Any]] = weakref.WeakKeyDictionary()
_SERIAL = itertools.count(1)
# a bound on the values write-back walks into (nested containers of a run's results)
_MAX_WALK = 100_000


class SafeEvalProvider(ObjectInterpretation):
    """effectful's ``parse``/``type_check``/``compile``/``exec`` on safe-eval (module docstring).
    ``policy`` and ``limits`` are those of ``safe_eval.Evaluator``."""

    def __init__(self, policy: Any = None, limits: LimitsLike = None) -> None:
        super().__init__()
        self.policy = policy
        self.limits = limits
        self._stock = UnsafeEvalProvider()

    @implements(evaluation.parse)
    def parse(self, source: str, filename: str) -> ast.Module:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        parsed, diagnostics = parse_guarded(source, filename)
        if parsed is None:
            raise RefusedCode(diagnostics, source if isinstance(source, str) else "", filename=filename)
        return parsed.tree

    @implements(evaluation.type_check)
    def type_check(self, source: str, lo: int | None = None, hi: int | None = None, *,
                   lenient: bool = False) -> None:
        self._stock.type_check(source, lo, hi, lenient=lenient)

    @implements(evaluation.compile)
    def compile(self, module: ast.Module, filename: str) -> types.CodeType:
        source = _source_of(module, filename)
        # echo: guest print writes to sys.stdout as it runs (effectful's REPL captures it there)
        evaluator = Evaluator(self.policy, self.limits, filename=filename, echo=True)
        try:
            evaluator.compile(source)
        except PolicyViolation as exc:
            raise RefusedCode(exc.diagnostics, exc.source, filename=filename) from None
        serial = next(_SERIAL)
        message = (f"safe-eval program #{serial} ({filename}) is not runnable outside "
                   "SafeEvalProvider.exec: the guest code is not in this code object")
        inert = builtins.compile(f"raise RuntimeError({message!r})", filename, "exec")
        _PROGRAMS[inert] = _Compiled(source, filename, evaluator, _definitions(source))
        return inert

    @implements(evaluation.exec)
    def exec(self, bytecode: types.CodeType, env: MutableMapping[str, Any]) -> None:
        compiled = _PROGRAMS.get(bytecode) if type(bytecode) is types.CodeType else None
        if compiled is None:
            raise TypeError("SafeEvalProvider.exec runs only code objects its compile() returned")
        guest_env = {k: _into_guest(v) for k, v in env.items() if type(k) is str and k != "__builtins__"}
        before = dict(guest_env)
        try:
            _on_caller_thread(compiled.evaluator, lambda: compiled.evaluator.exec(compiled.source, guest_env),
                              guest_env)
        except GuestError as exc:
            _add_guest_traceback(exc)
            raise
        finally:
            # bindings made before an error are written back too, as exec(code, env) leaves them
            missing = object()
            for key, value in guest_env.items():
                if before.get(key, missing) is not value:
                    env[key] = _to_host(value, compiled)


def _source_of(module: ast.Module, filename: str) -> str:
    """The text ``module`` was parsed from (``parse`` registered it), else the module unparsed:
    safe-eval checks and runs text, and a tree edited after ``parse`` must run as edited."""
    entry = linecache.cache.get(filename)
    if entry is not None and len(entry) == 4:  # (size, mtime, lines, name): a registered source
        text = "".join(entry[2])
        parsed, _ = parse_guarded(text, filename)
        if parsed is not None and ast.dump(parsed.tree) == ast.dump(module):
            return text
    if not isinstance(module, ast.Module):
        raise TypeError(f"compile() expects an ast.Module, not {type(module).__name__}")
    return ast.unparse(module)


def _definitions(source: str) -> dict[str, tuple[int, str | None]]:
    """Each function's qualified name -> (its first line, decorators included; its docstring)."""
    found: dict[str, tuple[int, str | None]] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = prefix + node.name
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                found[qualname] = (first, ast.get_docstring(node))
                walk(node.body, qualname + ".<locals>.")
            elif isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + ".")

    walk(ast.parse(source).body, "")
    return found


# -- values crossing: env -> guest, guest -> env ------------------------------------------------
def _into_guest(value: Any) -> Any:
    """A host function made for a guest function is that guest function again; a host
    callable is wrapped so its calls run on the caller's thread (``_on_caller_thread``)."""
    if type(value) is types.FunctionType:
        fn = _GUEST_OF.get(value)
        if fn is not None:
            return fn
    return value


def _to_host(value: Any, compiled: _Compiled, budget: list[int] | None = None) -> Any:
    """The host's own object for a value a run bound: wrappers unwrapped, guest functions as
    host functions with source, containers rebuilt only when something inside changed."""
    budget = [_MAX_WALK] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:
        return value
    tp = type(value)
    if tp is Function:
        return _host_function(value, compiled)
    if tp is types.FunctionType and value in _CALLER_OF:
        return _CALLER_OF[value]
    if tp is list or tp is tuple or tp is set or tp is frozenset:
        items = [_to_host(v, compiled, budget) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return tp(items)
    if tp is dict:
        pairs = [(k, _to_host(v, compiled, budget)) for k, v in value.items()]
        if all(new is old for (_, new), old in zip(pairs, value.values(), strict=True)):
            return value
        return dict(pairs)
    return host_original(plain_result(value))


def _host_function(fn: Function, compiled: _Compiled) -> Callable[..., Any]:
    """A host function calling the guest function ``fn``, with its signature, annotations,
    docstring and a ``__code__`` locating its ``def`` in ``linecache`` (``inspect.getsource``)."""
    made = _HOST_OF.get(id(fn))
    if made is not None:
        return made
    qualname = fn.__dict__.get("__qualname__", "?")
    name = fn.__dict__.get("__name__", "?")

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except GuestError as exc:
            _add_guest_traceback(exc)
            raise

    where = compiled.defs.get(qualname)
    if where is not None and type(name) is str and type(qualname) is str:
        call.__code__ = call.__code__.replace(co_filename=compiled.filename, co_firstlineno=where[0],
                                              co_name=name, co_qualname=qualname)
        call.__doc__ = where[1]
    call.__name__ = name if type(name) is str else "?"
    call.__qualname__ = qualname if type(qualname) is str else "?"
    call.__module__ = "__main__"
    call.__signature__ = fn.__signature__  # type: ignore[attr-defined]
    call.__annotations__ = dict(fn.__annotations__)
    _GUEST_OF[call] = fn
    _HOST_OF[id(fn)] = call
    return call


def _add_guest_traceback(exc: GuestError) -> None:
    """The guest's frames as a note on the error (a traceback print shows them), once."""
    text = exc.render()
    if text not in getattr(exc, "__notes__", ()):
        exc.add_note(text)


# -- running on a worker thread, calling the host on the caller's --------------------------------
_DONE = object()


def _on_caller_thread(evaluator: Evaluator, run: Callable[[], Any], guest_env: dict[str, Any]) -> Any:
    """``run()``: on the main thread as it is; on any other, safe-eval's big-stack thread runs
    it while this thread performs the calls it makes of ``guest_env``'s callables, in this
    thread's context (effectful's handler state is thread-local)."""
    if threading.current_thread() is threading.main_thread():
        return run()
    requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
    for key, value in list(guest_env.items()):
        if callable(value) and type(value) is not Function and not isinstance(value, type):
            guest_env[key] = _marshalled(value, requests)
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, run()))
        except BaseException as exc:  # re-raised on the caller's thread
            outcome.append((False, exc))
        finally:
            requests.put(_DONE)

    worker = start_with_stack(target, stack_for(evaluator.limits.memory))
    while True:
        item = requests.get()
        if item is _DONE:
            break
        fn, args, kwargs, reply = item
        try:
            reply.put((True, fn(*args, **kwargs)))
        except BaseException as exc:  # handed to the guest's call, on its thread
            reply.put((False, exc))
    worker.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def _marshalled(fn: Callable[..., Any], requests: queue.SimpleQueue[Any]) -> Callable[..., Any]:
    """``fn`` performed by the thread serving ``requests`` when called from any other."""
    owner = threading.current_thread()

    def call(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is owner:
            return fn(*args, **kwargs)
        reply: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
        requests.put((fn, args, kwargs, reply))
        while True:
            try:  # short waits: the watchdog's asynchronous limit lands between them
                ok, value = reply.get(timeout=0.05)
                break
            except queue.Empty:
                continue
        if not ok:
            raise value
        return value

    call.__wrapped__ = fn  # type: ignore[attr-defined]  # inspect.signature: the real one
    call.__name__ = getattr(fn, "__name__", "tool")
    call.__doc__ = getattr(fn, "__doc__", None)
    _CALLER_OF[call] = fn
    return call
