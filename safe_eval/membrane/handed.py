"""Guest objects a tool was handed, and what the tool wrote into them.

A tool's arguments reach it as plain copies, except guest objects (an instance of a guest
class, a guest function, a guest class), which have no plain copy: the tool gets them as they
are, and host code may write into them (``obj.result = host_obj``,
``obj.items.append(host_obj)``). The guest trusts what its own objects hold:
``attributes._exit`` passes a container a guest object or class holds unchecked, the
instance-dict view reads values as stored. So a tool call is bracketed: ``held(args, kwargs)``
records what is reachable from the guest objects among its arguments before the call, and
``reenter(held)`` after it (returned or raised) enters, in place, every value reachable there
that was not held before: through ``crossing.enter_value``, stored as ``setattr`` stores it
(instance attributes), or with the host base's own methods (items of plain lists, dicts, sets
and deques, and of guest containers): no guest code runs. What the guest held before the call
stays as it is (its own iterators, views ...).

Reached: instance attributes (``__dict__`` and ``__slots__``), a guest function's attributes,
the public attributes of their guest classes and the dunders a class may define
(``type(obj).__call__ = host_fn``; its other ``_`` entries are what its metaclass keeps: enum,
abc), an exception's ``args`` and chain, the items of the containers these hold, recursively.
Bounded: a tool handed more than ``_MAX_VISITS`` values ends the run (``PolicyViolation``)
rather than leave part unchecked.

The same walk, against what the running call's arguments held (``_CALLS``), also covers guest
objects reaching the guest otherwise while the tool runs or as it returns: ``enter_contents``
(a guest object entering through ``crossing.enter_value``: the tool's result, one it built) and
``before_guest_runs`` (guest code the tool calls back before it returns: its roots and the
callback's arguments, on the run's CPU time).
Not reached: a guest object a tool kept from an earlier call and writes into later, a thread
the tool starts.
"""

from __future__ import annotations

import collections
import contextvars
from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.identity import is_guest_class
from safe_eval.membrane.allowlists import PLAIN_SCALARS
from safe_eval.membrane.dunders import DEFINABLE_DUNDERS, FORBIDDEN_DUNDERS

__all__ = ["Held", "before_guest_runs", "calling", "done_calling", "enter_contents", "from_the_host", "held",
           "reenter"]

_MAX_VISITS = 200_000
# what the guest callbacks of one tool call may make the walk visit in all (each callback
# re-walks the tool's roots): a tool calling back once per item of a large handed graph ends
# the run with a typed refusal rather than walk quadratically
_MAX_CALLBACK_VISITS = 2_000_000
_MUTABLE = (list, dict, set, collections.deque)
_IMMUTABLE = (tuple, frozenset)
_CLASS_DICT = type.__dict__["__dict__"]
_MEMBER = type(type.__dict__["__dictoffset__"])  # a ``__slots__`` entry's descriptor
_ARGS = BaseException.__dict__["args"]
# what a class statement puts in a class's dict besides its values (``__dict__``, a slot, the
# wrappers ``class_value`` already checked): kept as they are, never replaced by the walk
_SLOT_NAMES = DEFINABLE_DUNDERS | frozenset(FORBIDDEN_DUNDERS)
_CLASS_MACHINERY = frozenset({type(type.__dict__["__dict__"]), _MEMBER, staticmethod, classmethod, property})
_SCALARS_ONLY = frozenset(PLAIN_SCALARS).issuperset  # over ``map(type, items)``: C speed
_FUNCTION: list[type] = []  # the interpreter's function type, looked up once


class Held:
    """What the guest objects among a tool's arguments held before the call: id -> value
    (the values are kept, so an id is never reused for a new object meanwhile)."""

    __slots__ = ("roots", "values", "spent")

    def __init__(self, roots: list[Any]) -> None:
        self.roots = roots
        self.values: dict[int, Any] = {}
        self.spent = 0  # visits of the walks before the guest callbacks of this call


# the tool calls running on this thread/task, innermost last: guest code called back while a
# tool runs (a callback, a stored C method) reads what the tool wrote before the tool returns
_CALLS: contextvars.ContextVar[tuple[Held, ...]] = contextvars.ContextVar("safe_eval_tool_calls",
                                                                         default=())


def calling(before: Held | None) -> contextvars.Token[tuple[Held, ...]]:
    """A tool call starts (``before``: what its guest arguments held); ``done_calling`` ends it."""
    return _CALLS.set((*_CALLS.get(), before if before is not None else Held([])))


def done_calling(token: contextvars.Token[tuple[Held, ...]]) -> None:
    _CALLS.reset(token)


def in_tool_call() -> bool:
    return bool(_CALLS.get())


def held(args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> Held | None:
    """The values reachable from the guest objects among ``args``/``kwargs`` (None: none)."""
    roots = [a for a in args if type(a) not in PLAIN_SCALARS and _walkable(a)]
    if kwargs:
        roots.extend(v for v in kwargs.values() if type(v) not in PLAIN_SCALARS and _walkable(v))
    if not roots:
        return None
    before = Held(roots)
    values = before.values

    def record(value: Any) -> Any:
        values[id(value)] = value
        return value

    _traverse(roots, record, clean=False)
    return before


def reenter(before: Held | None, *extra: Any) -> None:
    """Enter in place every value reachable from the same roots (and ``extra``: the exception
    the tool raised) that was not held before."""
    roots = [e for e in extra if type(e) not in PLAIN_SCALARS and _walkable(e)]
    if before is None:
        if not roots:
            return
        before = Held([])
    _enter_new(before, before.roots + roots)


def before_guest_runs(args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> None:
    """Guest code is called back while a tool runs: what the tool wrote so far into the objects
    it was handed, and into the guest objects among the callback's arguments (one it built),
    enters first, as ``reenter`` enters it when the tool returns."""
    before = _CALLS.get()[-1]  # called only within a tool call (``crossing.enter_call_args``)
    roots = [a for a in args if type(a) not in PLAIN_SCALARS and _walkable(a)]
    if kwargs:
        roots.extend(v for v in kwargs.values() if type(v) not in PLAIN_SCALARS and _walkable(v))
    # on the run's CPU time (the tool handed the thread to host code): a walk past the run's
    # deadline ends it with its time limit, as guest code would
    from safe_eval.context import current_context
    from safe_eval.limits.watchdog import IN_HOST_CODE, guest_from_host, host_code_again

    ctx = current_context()
    oncpu = guest_from_host(ctx.budget) if IN_HOST_CODE and ctx is not None else None
    try:
        before.spent += _enter_new(before, before.roots + roots)
    finally:
        if oncpu is not None:
            host_code_again(oncpu)
    if before.spent > _MAX_CALLBACK_VISITS:
        from safe_eval.membrane.proxies import refusal

        raise refusal("a tool called guest code back more often than safe-eval re-checks the guest "
                      "data it was handed", "hand tools that call back less data, or fewer objects")


def enter_contents(obj: Any) -> None:
    """A guest object, function or class entering from host code (a tool's result, an item of a
    host iterator, another run's env): what it holds enters in place, except what the guest
    objects of the running tool call held before it (host code may have written into it, or
    built it: ``type(obj)()`` then ``made.x = host_obj``)."""
    calls = _CALLS.get()
    before = calls[-1] if calls else Held([])
    _enter_new(before, [obj])


def from_the_host(args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> None:
    """The host application, outside any run, calls guest code with guest objects it may have
    written into since the run returned them (``o = ns['O'](); o.x = host_obj; ns['f'](o)``):
    what they hold enters first, in place."""
    roots = [a for a in args if type(a) not in PLAIN_SCALARS and _walkable(a)]
    if kwargs:
        roots.extend(v for v in kwargs.values() if type(v) not in PLAIN_SCALARS and _walkable(v))
    if roots:
        _enter_new(Held([]), roots)


def _enter_new(before: Held, roots: list[Any]) -> int:
    from safe_eval.membrane.crossing import enter_value

    values = before.values

    def entered(value: Any) -> Any:
        tp = type(value)
        if tp in PLAIN_SCALARS or values.get(id(value)) is value:
            return value  # held before the call (a container among them is walked still)
        if tp not in _IMMUTABLE and _walkable(value):
            return value  # new, but written into in place: its items are checked one by one
        return enter_value(value)  # (a new tuple: a copy with its items entered)

    return _traverse(roots, entered, clean=True)


def _walkable(value: Any) -> bool:
    """Values the walk descends into: plain containers and guest objects, functions and
    classes."""
    tp = type(value)
    if tp in _MUTABLE or tp in _IMMUTABLE or isinstance(value, BaseException):
        return True  # (an exception: its args, fields and chain, host-made or not)
    if isinstance(value, type):
        return is_guest_class(value)
    return is_guest_class(tp) or tp is _function_type()


def _function_type() -> Any:
    if not _FUNCTION:
        from safe_eval.membrane import crossing

        _FUNCTION.extend(crossing._FUNCTION[:1])
    return _FUNCTION[0] if _FUNCTION else None


def _traverse(roots: list[Any], visit: Callable[[Any], Any], *, clean: bool) -> int:
    """Every value reachable from ``roots`` through walkable values, each passed to ``visit``;
    where ``visit`` returns another value, it replaces the old one in its holder. Returns the
    number of values walked. ``clean``: exceptions met are cleaned in place (after the call)."""
    seen: set[int] = set()
    classes: set[type] = set()  # the classes of the guest objects met: their walk is queued once
    todo = list(roots)
    visits = 0
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        visits += 1
        if visits > _MAX_VISITS:
            from safe_eval.membrane.proxies import refusal

            raise refusal("a tool was handed more guest data than safe-eval re-checks after the call",
                          "hand tools plain data, or fewer objects")
        for value in _walk(obj, visit, classes, clean):
            if type(value) not in PLAIN_SCALARS and _walkable(value):
                todo.append(value)
    return visits


def _walk(obj: Any, visit: Callable[[Any], Any], classes: set[type], clean: bool) -> list[Any]:
    """Visit (and replace where ``visit`` says) what ``obj`` holds; the values it now holds."""
    from safe_eval.membrane.crossing import HOST_FILLABLE

    out: list[Any] = []
    tp = type(obj)
    if tp not in classes and not isinstance(obj, type):
        classes.add(tp)
        out.extend(k for k in tp.__mro__ if is_guest_class(k))  # ``type(obj).x = ...``
    if isinstance(obj, type):
        # public entries and the dunders a class may define: ``type(obj).__call__ = host_fn``
        # is a slot the guest's ``obj(...)`` runs; the other ``_`` entries are what a
        # metaclass keeps (abc's ``_abc_impl``, enum's maps, ``__orig_bases__``): as they are
        for key, value in list(_CLASS_DICT.__get__(obj).items()):
            if type(key) is str and (key[:1] != "_" or key in _SLOT_NAMES) \
                    and type(value) not in PLAIN_SCALARS and type(value) not in _CLASS_MACHINERY:
                out.append(_replace_class_attr(obj, key, value, visit))
        return out
    if not isinstance(obj, _MUTABLE + _IMMUTABLE) or is_guest_class(type(obj)):
        d = _instance_dict(obj)
        if d is not None:
            _walk_attrs(d, visit, out)
        _walk_slots(obj, visit, out)
        if not isinstance(obj, HOST_FILLABLE):
            return out
    if isinstance(obj, BaseException):
        from safe_eval.membrane.crossing import guest_exception

        if clean:
            guest_exception(obj)  # cleaned in place: its args (and a host one's fields, its chain)
        out.extend(_ARGS.__get__(obj))  # what stayed (guest objects): walked for what they hold
        out.extend(e for e in (obj.__cause__, obj.__context__) if e is not None)
        return out
    if isinstance(obj, dict):
        if _SCALARS_ONLY(map(type, dict.keys(obj))) and _SCALARS_ONLY(map(type, dict.values(obj))):
            return out  # plain data: nothing to record or enter (the common case, at C speed)
        for key, value in list(dict.items(obj)):
            new_key, new = visit(key), visit(value)
            if new_key is not key:
                dict.__delitem__(obj, key)
                dict.__setitem__(obj, new_key, new)
            elif new is not value:
                dict.__setitem__(obj, key, new)
            out += (new_key, new)
    elif isinstance(obj, list | collections.deque):
        base: Any = list if isinstance(obj, list) else collections.deque
        items = list(base.__iter__(obj))
        if _SCALARS_ONLY(map(type, items)):
            return out
        for i, value in enumerate(items):
            new = visit(value)
            if new is not value:
                base.__setitem__(obj, i, new)
            out.append(new)
    elif isinstance(obj, set):
        items = list(set.__iter__(obj))
        if _SCALARS_ONLY(map(type, items)):
            return out
        for value in items:
            new = visit(value)
            if new is not value:
                set.discard(obj, value)
                set.add(obj, new)
            out.append(new)
    else:  # tuple, frozenset: nothing can be written into them, but what they hold may change
        base = tuple if isinstance(obj, tuple) else frozenset
        items = list(base.__iter__(obj))
        if _SCALARS_ONLY(map(type, items)):
            return out
        out.extend(items)
        for value in items:
            visit(value)  # recorded before the call; after it, a held value is kept as it is
    return out


def _walk_attrs(d: dict[str, Any], visit: Callable[[Any], Any], out: list[Any]) -> None:
    from safe_eval.membrane.stored import stored_value

    if _SCALARS_ONLY(map(type, d.values())):
        return
    for key, value in list(d.items()):
        if type(value) in PLAIN_SCALARS:
            continue
        new = visit(value)
        if new is not value:
            d[key] = stored_value(new)
        out.append(new)


def _walk_slots(obj: Any, visit: Callable[[Any], Any], out: list[Any]) -> None:
    """The ``__slots__`` values of a guest object (member descriptors its guest classes made)."""
    for klass in type(obj).__mro__:
        if not is_guest_class(klass):
            continue
        for member in list(_CLASS_DICT.__get__(klass).values()):
            if type(member) is not _MEMBER:
                continue
            try:
                value = member.__get__(obj, klass)
            except AttributeError:  # not set
                continue
            if type(value) in PLAIN_SCALARS:
                continue
            new = visit(value)
            if new is not value:
                from safe_eval.membrane.stored import stored_value

                member.__set__(obj, stored_value(new))
            out.append(new)


def _replace_class_attr(cls: type, key: str, value: Any, visit: Callable[[Any], Any]) -> Any:
    new = visit(value)
    if new is not value:
        from safe_eval.membrane.stored import class_value

        type.__setattr__(cls, key, class_value(key, new))
    return new


def _instance_dict(obj: Any) -> dict[str, Any] | None:
    """The real ``__dict__`` of a guest object or function (None without one), read without
    guest code."""
    try:
        d = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return None
    return d if type(d) is dict else None
