"""Guest generators, coroutines and async generators, run on greenlets.

A guest generator body runs in its own greenlet: ``yield`` anywhere inside an expression is
a switch to whoever resumed it, so the closures are compiled once and need no generator
variant. The guest only sees the wrapper classes below (no frame, code or greenlet).

Async: ``await x`` delegates to ``x``'s awaiting iterator and passes what it yields (event
loop requests, see ``aio``) up to the greenlet that resumed the coroutine; an async generator
wraps its own ``yield`` values in ``_AsyncYield`` so ``__anext__`` can tell them apart.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextvars import Context
from typing import Any

from greenlet import GreenletExit, getcurrent, greenlet
from greenlet import error as greenlet_error

from safe_eval.context import current_context
from safe_eval.errors import OpLimit, SafeEvalError
from safe_eval.interpreter import compile_stmt as _compile_stmt
from safe_eval.interpreter import tracebacks
from safe_eval.interpreter.compile_stmt import Discarded
from safe_eval.interpreter.functions import Origin, current_origin
from safe_eval.interpreter.handled import handled, set_handled
from safe_eval.interpreter.identity import register_internal_type
from safe_eval.interpreter.runtime import Frame
from safe_eval.interpreter.tracebacks import CodeInfo
from safe_eval.limits.budget import Budget
from safe_eval.limits.model import Limits
from safe_eval.membrane.crossing import enter_call_args

# greenlet is loaded with this module (the first generator, coroutine or async construct):
# from now on a guest ``except`` must not catch GreenletExit (see compile_stmt._NOT_CATCHABLE)
_compile_stmt._NOT_CATCHABLE = (SafeEvalError, GreenletExit, Discarded)

__all__ = [
    "GuestAsyncGenerator", "GuestCoroutine", "GuestGenerator", "async_iterate", "await_value", "inner_frames",
    "make_generator", "yield_async", "yield_from", "yield_value",
]

_SEND, _THROW = 0, 1


class _AsyncYield:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _GuestGreenlet(greenlet):  # type: ignore[misc]
    """The greenlets guest bodies run on: a suspension may only ever switch out of one of
    these (never out of a host greenlet, e.g. a gevent hub the host runs us in).

    ``frame`` is the body's frame, whose tail keeps what a suspended ``yield from``/``await``
    holds (see ``suspension``); ``inner`` the frames of the list/set/dict comprehensions it is
    running that can suspend (parked with it: ``inner_frames``); ``out`` carries a yielded
    value to the resumer, so that no host frame of the suspended body holds it (an argument
    of ``switch`` stays on the caller's stack until the switch returns)."""

    __slots__ = ("frame", "inner", "out")


# what a body switches to its resumer with when it yields (the value is in ``out``): any other
# switch into the resumer is the body finishing
_YIELDED = object()


def inner_frames() -> list[Frame]:
    """The frames parked with the running body's (a comprehension that can suspend pushes its
    frame here while it runs: host frames hold it while the body is suspended, so its contents
    must be parked like the body's)."""
    g = getcurrent()
    return g.inner if type(g) is _GuestGreenlet else []


def _guest_greenlet() -> _GuestGreenlet:
    g = getcurrent()
    if type(g) is not _GuestGreenlet:
        raise RuntimeError("yield or await outside a guest generator or coroutine")
    return g


# The suspending calls below take what they pass in a one-item list they empty (a *box*), never
# as an argument: an argument stays on the calling host frame's value stack until the call
# returns, and on CPython 3.10 the collector does not see the value stack of a frame that is
# executing (every host frame of a suspended body is), so a yielded or awaited value leading
# back to the run would keep it alive. The caller's stack then holds only the empty list.
def yield_value(box: list[Any]) -> Any:
    g = _guest_greenlet()
    g.out = box.pop()  # the suspended frames keep nothing the guest could make lead back to its run
    if handled() is None:
        return g.parent.switch(_YIELDED)
    return _switch_handling(g)


def yield_async(box: list[Any]) -> Any:
    g = _guest_greenlet()
    g.out = _AsyncYield(box.pop())
    if handled() is None:
        return g.parent.switch(_YIELDED)
    return _switch_handling(g)


def _switch_handling(g: _GuestGreenlet) -> Any:
    """Suspend a body that is handling an exception: the exception waits on the body's frame
    tail (parked with it), not in the thread state greenlet saves with the suspended greenlet
    (see ``handled``); it is the handled exception again once the body resumes, and an
    exception thrown in at the suspension gets it as ``__context__``, as CPython's ``throw``
    chains it."""
    f: Frame = g.frame
    k = len(f)
    f.append(handled())
    set_handled(None)
    if handled() is not None:  # held further down the chain (a host generator runs): as is
        held = f.pop()
        if handled() is not held:  # what was cleared was not None: put it back
            set_handled(held)
        del held
        return g.parent.switch(_YIELDED)
    try:
        v = g.parent.switch(_YIELDED)
        thrown = False
    except BaseException as e:  # thrown in; leaving this clause leaves no exception handled
        v, thrown = e, True
    if len(f) > k:  # (a greenlet killed on its thread's death finds its frame still parked)
        set_handled(f[k])
        del f[k:]
    try:
        if thrown:
            raise v  # raised while the body's exception is handled: chained to it
        return v
    finally:
        del v


def _body_runner(body: Callable[[Frame], Any], frame: Frame, info: CodeInfo, is_async: bool) -> Any:
    def run(_first: Any) -> Any:
        try:
            body(frame)
        except (GreenletExit, SafeEvalError):
            raise
        except StopIteration as e:
            err = RuntimeError(("coroutine" if is_async else "generator") + " raised StopIteration")
            err.__cause__ = e
            tracebacks.push(err, info)
            raise err from e
        except BaseException as e:
            tracebacks.push(e, info)
            raise
        return frame[2]
    return run


class Resumable:
    """Shared machinery: resume the greenlet with a value or an exception."""

    __slots__ = ("_g", "_frame", "_parked", "_parked_inner", "_info", "_started", "_done", "_running",
                 "_origin", "__weakref__")

    def __init__(self, body: Callable[[Frame], Any], frame: Frame, info: CodeInfo, is_async: bool) -> None:
        self._g = g = _GuestGreenlet(_body_runner(body, frame, info, is_async))
        g.frame, g.inner, g.out = frame, [], None
        self._frame = frame
        # the frame's contents while the body is suspended (see ``_park``), and those of the
        # frames in ``g.inner``
        self._parked: Frame | None = None
        self._parked_inner: list[Frame] | None = None
        self._info = info
        self._started = False
        self._done = False
        self._running = False
        # the run that made it: a host resume or close later runs under its policy and audit,
        # on a budget drawn from its ResultBound
        self._origin: Origin | None = current_origin()

    @property
    def __name__(self) -> str:
        return self._info.name

    def _resume(self, how: int, value: Any) -> tuple[bool, Any]:
        """Returns (finished, yielded-or-returned value)."""
        if self._running:
            raise ValueError(f"{self._kind()} already executing")
        ctx = current_context()
        origin = self._origin
        if ctx is None or origin is None or (ctx.bound is not origin.bound and (
                ctx.policy is not origin.policy or ctx.audit is not origin.audit)):
            # resumed by the host or from a run deciding otherwise: the body runs only under
            # its own run (its policy and audit hook; the host's resume on its ResultBound)
            resumed: tuple[bool, Any] = _as_origin(origin, lambda: self._resume(how, value))
            return resumed
        frame = self._frame
        b = ctx.budget
        # kept until this resume returns: the parked lists freed while the body runs from a
        # finalizer the collector called crashed CPython's finalize_garbage (3.11, 3.13)
        _kept = self._unpark(b)
        b.depth += 1
        if b.depth > b.max_depth:
            b.too_deep()
        g = self._g
        self._running = True
        self._started = True
        try:
            cur = getcurrent()
            try:
                g.parent = cur
            except ValueError:  # greenlet: "parent cannot be on a different thread"
                raise self._moved() from None
            # the body sees the context of whoever resumes it (a greenlet starts with an empty
            # one), which is always its own run's (tested above): its tool calls are decided
            # and audited by the run that made it
            g.gr_context = cur.gr_context
            r = g.switch(value) if how == _SEND else g.throw(value)
        except BaseException:
            # (a host resume runs inside session.call_in_run, whose run_guarded turns a guest
            # SystemExit/BaseException into a GuestError: it never stops the host)
            self._done = True
            raise
        finally:
            self._running = False
            b.depth -= 1
        if g.dead:
            self._done = True
            return True, r
        if r is _YIELDED:
            r, g.out = g.out, None
        self._park(frame)
        return False, r

    def _moved(self) -> RuntimeError:
        """A started body is suspended on its thread's greenlet, which cannot move: say so
        (a guest-level error) instead of greenlet's."""
        return RuntimeError(
            f"this {self._kind()} was started on another thread than this resume runs on: "
            "safe-eval runs generator bodies on greenlets, which cannot move between threads, "
            "and a call from a thread other than the main one runs on a fresh thread; "
            "consume it in the code that made it (e.g. return list(...))")

    def _park(self, frame: Frame) -> None:
        """Move the suspended body's frame contents (its globals, locals, cells: ``self`` of a
        method generator) onto this object. A suspended greenlet is not tracked by the cyclic
        collector, so whatever its host frames refer to counts as alive: the frame list they
        hold, left full, kept a generator bound in its own namespace (``it = g(); next(it)``,
        then the host drops ``env``) or stored on an object its body refers to
        (``self.it = self.gen()``) alive forever, with the run's whole namespace. Here the
        collector sees the cycle and frees it; ``_resume`` puts the contents back."""
        self._parked = frame[:]
        frame.clear()
        inner = self._g.inner
        if inner:  # the frames of comprehensions suspended in the body (see ``inner_frames``)
            self._parked_inner = [fr[:] for fr in inner]
            for fr in inner:
                fr.clear()

    def _unpark(self, budget: Budget) -> tuple[Frame | None, list[Frame] | None]:
        """Put the parked contents back, every frame drawing on ``budget`` from now on; the
        lists they were parked in."""
        parked = self._parked
        if parked is not None:
            self._frame[:] = parked
            self._parked = None
        self._frame[1] = budget
        inner = self._parked_inner
        if inner is not None:
            for fr, saved in zip(self._g.inner, inner, strict=True):
                fr[:] = saved
                fr[1] = budget
            self._parked_inner = None
        return parked, inner

    def _kind(self) -> str:
        return "generator"

    def _throw_exc(self, typ: Any, val: Any = None, tb: Any = None) -> BaseException:
        if isinstance(typ, BaseException):
            return typ
        if isinstance(typ, type) and issubclass(typ, BaseException):
            if isinstance(val, typ):
                return val
            return typ() if val is None else typ(val)
        raise TypeError("exceptions must be classes or instances deriving from BaseException, not "
                        + type(typ).__name__)

    def _close(self) -> None:
        if not self._started or self._done:
            self._done = True
            return
        ctx = current_context()
        origin = self._origin
        if ctx is None or origin is None or ctx.bound is not origin.bound:
            _as_origin(origin, self._close)  # a host close, or from another run: under its own run
            return
        try:
            finished, _ = self._resume(_THROW, GeneratorExit())
        except (GeneratorExit, StopIteration, StopAsyncIteration):
            return
        if not finished:
            raise RuntimeError(f"{self._kind()} ignored GeneratorExit")

    def __del__(self) -> None:
        # A generator dropped while suspended. Inside the run that made it (or a host call
        # drawing on that run's bound) its finally blocks run now, under that run's budget,
        # policy and audit hook, as CPython would run them. Anywhere else (a later run, host
        # code, another thread) no guest code runs at all: the body is unwound with
        # ``Discarded``, which no ``except``/``finally``/``__exit__`` sees.
        if not self._started or self._done or self._running:
            return
        ctx = current_context()
        origin = self._origin
        try:
            if (ctx is not None and origin is not None and ctx.bound is origin.bound
                    and ctx.budget.exhausted is None):
                self._close()
            else:
                self._discard()
        except BaseException:
            pass  # as CPython: an exception in a finalizer is not the host's to handle

    def _discard(self) -> None:
        # The one rule every unwinding construct honours (try/finally, except*, with, async
        # with, async for, the host helpers below, a close): the body of a discarded generator
        # unwinds with no run active (an empty context: call_tool refuses, a guest function
        # called refuses, having no origin to run under) and the spent budget (the first op of
        # any guest code raises). ``Discarded`` itself only spares the unwinding the work.
        self._done = True
        g = self._g
        if g.dead:
            return
        _kept = self._unpark(_SPENT)  # kept until the unwinding returns (see ``_resume``)
        try:
            g.gr_context = Context()
            g.parent = getcurrent()
            g.throw(Discarded)
        except greenlet_error:
            # dropped on another thread: greenlet unwinds it later on its own thread with
            # GreenletExit, in the empty context set above
            pass


def _entered(value: Any) -> Any:
    """A ``send`` value crosses the door in like every host-to-guest argument (the host may
    hold the generator: a returned guest generator driven by host code)."""
    ctx = current_context()
    (value,), _ = enter_call_args((value,), None, None if ctx is None else ctx.policy)
    return value


@register_internal_type
class GuestGenerator(Resumable):
    __slots__ = ()

    @staticmethod
    def start(body: Callable[[Frame], Any], frame: Frame, info: CodeInfo, is_async: bool = False) -> Any:
        if is_async:
            return GuestAsyncGenerator(body, frame, info, True)
        return GuestGenerator(body, frame, info, False)

    def __iter__(self) -> GuestGenerator:
        return self

    def __next__(self) -> Any:
        return self.send(None)

    def send(self, value: Any) -> Any:
        if self._done:
            raise StopIteration
        if not self._started and value is not None:
            raise TypeError("can't send non-None value to a just-started generator")
        if value is not None:
            value = _entered(value)
        finished, r = self._resume(_SEND, value)
        if finished:
            raise StopIteration if r is None else StopIteration(r)
        return r

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        exc = self._throw_exc(typ, val, tb)
        if not self._started or self._done:
            self._done = True
            raise exc
        finished, r = self._resume(_THROW, exc)
        if finished:
            raise StopIteration if r is None else StopIteration(r)
        return r

    def close(self) -> None:
        self._close()

    def __repr__(self) -> str:
        return f"<generator object {self._info.qualname}>"


@register_internal_type
class GuestCoroutine(GuestGenerator):
    __slots__ = ()

    def _kind(self) -> str:
        return "coroutine"

    def __iter__(self) -> Any:
        raise TypeError("'coroutine' object is not iterable")

    def __await__(self) -> GuestCoroutine:
        return self

    def __repr__(self) -> str:
        return f"<coroutine object {self._info.qualname}>"


@register_internal_type
class GuestAsyncGenerator(Resumable):
    __slots__ = ()

    def _kind(self) -> str:
        return "async generator"

    def __aiter__(self) -> GuestAsyncGenerator:
        return self

    def __anext__(self) -> _AStep:
        return _AStep(self, _SEND, None)

    def asend(self, value: Any) -> _AStep:
        return _AStep(self, _SEND, value if value is None else _entered(value))

    def athrow(self, typ: Any, val: Any = None, tb: Any = None) -> _AStep:
        return _AStep(self, _THROW, self._throw_exc(typ, val, tb))

    def aclose(self) -> _AClose:
        return _AClose(self)

    def __repr__(self) -> str:
        return f"<async_generator object {self._info.qualname}>"


@register_internal_type
class _AStep:
    """The awaitable ``__anext__``/``asend``/``athrow`` return."""

    __slots__ = ("agen", "how", "value")

    def __init__(self, agen: GuestAsyncGenerator, how: int, value: Any) -> None:
        self.agen, self.how, self.value = agen, how, value

    def __await__(self) -> Generator[Any, Any, Any]:
        agen, how, value = self.agen, self.how, self.value
        if agen._done:
            if how == _THROW:
                raise value
            raise StopAsyncIteration
        while True:
            finished, r = agen._resume(how, value)
            if finished:
                raise StopAsyncIteration
            if isinstance(r, _AsyncYield):
                return r.value
            try:
                value = yield r
                how = _SEND
            except GeneratorExit:
                # this awaitable is closed (its awaiting coroutine was closed or dropped): as
                # CPython, nothing is passed into the async generator (whose own close is
                # ``aclose``), so no guest code runs on behalf of a dropped owner
                raise
            except BaseException as e:  # forwarded into the async generator's pending await
                if current_context() is None:  # outside any run: nothing enters guest code
                    raise
                how, value = _THROW, e


@register_internal_type
class _AClose:
    __slots__ = ("agen",)

    def __init__(self, agen: GuestAsyncGenerator) -> None:
        self.agen = agen

    def __await__(self) -> Generator[Any, Any, Any]:
        agen = self.agen
        if not agen._started or agen._done:
            agen._done = True
            return None
        try:
            yield from _AStep(agen, _THROW, GeneratorExit()).__await__()
        except (GeneratorExit, StopAsyncIteration):
            return None
        raise RuntimeError("async generator ignored GeneratorExit")


def _spent() -> Budget:
    b = Budget(Limits())
    b.exhausted = OpLimit("the run that made this generator is over")
    b.fuel = 0
    return b


_SPENT = _spent()


def _as_origin(origin: Origin | None, call: Callable[[], Any]) -> Any:
    from safe_eval.interpreter.session import call_as_origin

    return call_as_origin(origin, call)


def make_generator(fn: Any, frame: Frame) -> Any:
    code = fn.code
    if code.is_async and code.is_generator:
        return GuestAsyncGenerator(code.body, frame, code.info, True)
    if code.is_async:
        return GuestCoroutine(code.body, frame, code.info, True)
    return GuestGenerator(code.body, frame, code.info, False)


# -- delegation: yield from / await --------------------------------------------------------
def _delegate(box: list[Any]) -> Any:
    """Pass what ``it`` yields up and what is sent down until it returns. While suspended it
    keeps the delegate and its ``send`` on the body's frame tail, none in a local (see
    ``suspension``): a generator suspended in ``yield from`` over something leading back to
    it is collected with its run."""
    g = getcurrent()
    f: list[Any] = g.frame if type(g) is _GuestGreenlet else []
    k = len(f)
    f.append(box.pop())  # the callers hand the delegate over in a box, holding it nowhere
    f.append(getattr(f[k], "send", None))
    try:
        # f[k + 2]: the value to pass up next, then the value sent down after a resume
        try:
            f.append(next(f[k]))
        except StopIteration as s:
            return s.value
        while True:
            try:
                f.append(yield_value([f.pop()]))
            except (GreenletExit, SafeEvalError, Discarded):
                raise
            except GeneratorExit:
                close = getattr(f[k], "close", None)
                if close is not None:
                    close()
                raise
            except BaseException as e:
                thr = getattr(f[k], "throw", None)
                if thr is None:
                    raise
                try:
                    f.append(thr(e))
                except StopIteration as s:
                    return s.value
                continue
            try:
                f.append(_step(f, k))
            except StopIteration as s:
                return s.value
    finally:
        del f[k:]


def _step(f: list[Any], k: int) -> Any:
    v = f.pop()
    send = f[k + 1]
    return next(f[k]) if v is None or send is None else send(v)


def yield_from(box: list[Any]) -> Any:
    """``yield from box[0]`` (in a box: see ``yield_value``)."""
    value = box[0]
    if isinstance(value, GuestCoroutine):
        raise TypeError("cannot 'yield from' a coroutine object in a non-coroutine generator")
    if not isinstance(value, GuestGenerator):
        box[0] = iter(value)
    del value  # no local of a suspended body's host frames keeps what it delegates to
    return _delegate(box)


def await_value(box: list[Any]) -> Any:
    """``await box[0]`` (in a box: see ``yield_value``)."""
    box[0] = _awaiting_iterator(box[0])
    return _delegate(box)


def _awaiting_iterator(aw: Any) -> Any:
    t = type(aw)
    if t is GuestCoroutine:
        return aw
    m = getattr(t, "__await__", None)
    if m is None:
        raise TypeError(f"object {t.__name__} can't be used in 'await' expression")
    return m(aw)


def async_iterator(obj: Any) -> Any:
    """``obj.__aiter__()``, checked to be an asynchronous iterator as ``async for`` checks."""
    m = getattr(type(obj), "__aiter__", None)
    if m is None:
        raise TypeError(f"'async for' requires an object with __aiter__ method, got {type(obj).__name__}")
    ait = m(obj)
    if getattr(type(ait), "__anext__", None) is None:
        raise TypeError("'async for' received an object from __aiter__ that does not implement __anext__: "
                        + type(ait).__name__)
    return ait


def _anext_of(ait: Any) -> Any:
    return type(ait).__anext__(ait)


def anext_onto(f: list[Any], k: int) -> bool:
    """Await the next item of the asynchronous iterator at ``f[k]`` onto ``f``'s tail; False
    once it is exhausted. (``async for`` in a body whose frame is parked: see ``suspension``.)"""
    try:
        f.append(await_value([_anext_of(f[k])]))
    except StopAsyncIteration:
        return False
    return True


def async_iterate(obj: Any) -> Iterator[Any]:
    """``async for`` as a plain host iterator running inside the coroutine's greenlet (where
    nothing parks the frame it runs in: a comprehension of a coroutine)."""
    ait = async_iterator(obj)
    anext = type(ait).__anext__

    def gen() -> Iterator[Any]:
        while True:
            try:
                v = await_value([anext(ait)])
            except StopAsyncIteration:
                return
            yield v
    return gen()
