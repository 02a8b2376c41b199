"""Guest objects a tool was handed, and what the tool wrote into them.

A tool's arguments reach it as plain copies, except guest objects (an instance of a guest
class, a guest function, a guest class), which have no plain copy: the tool gets them as they
are, and host code may write into them (``obj.result = host_obj``,
``obj.items.append(host_obj)``), during the call or in any later call if it kept them. The
guest trusts what its own objects hold: ``attributes._exit`` passes a container a guest object
or class holds unchecked, the instance-dict view reads values as stored. So a tool call is
bracketed: ``held(args, kwargs)`` records what is reachable from its roots before the call, and
``reenter(held)`` after it (returned or raised) enters, in place, every value reachable there
that was not held before: through ``crossing.enter_value``, stored as ``setattr`` stores it
(instance attributes), or with the host base's own methods (items of plain lists, dicts, sets
and deques, and of guest containers): no guest code runs. What the guest held before the call
stays as it is (its own iterators, views ...).

The roots of a call are the guest objects among its arguments and every guest object a tool
was ever handed under the same guest namespace (``Kept``: the objects handed to tools by runs
on one ``env``, and by the functions and classes those runs made, whenever the host calls
them), so a tool writing into an object it kept from an earlier call, or from an earlier run on
the same ``env``, is re-checked by the bracket of whatever tool call it writes in. Kept too: the
guest objects a tool returned, raised or called guest code back with (it may hold them), and
the guest objects among the items of plain containers it was handed. ``Kept`` holds them weakly
where they can be (guest objects of classes without ``__weakref__``: strongly, until the
registry is all that holds one).

Reached: instance attributes (``__dict__`` and ``__slots__``), a guest function's attributes,
the public attributes of their guest classes and the dunders a class may define
(``type(obj).__call__ = host_fn``; its other ``_`` entries are what its metaclass keeps: enum,
abc), an exception's ``args`` and chain, the items of the containers these hold, recursively.
Cost: each bracket walks what its roots reach (kept objects included) twice; every value
visited is charged to the run as one operation (taken from its fuel: a program handing a large
graph to a tool and then calling tools many times meets its ops limit at its next tick, an
``OpLimit``), and a
single walk past ``_MAX_VISITS`` values ends the run (``PolicyViolation``) rather than leave part
unchecked. Plain containers of scalars are passed over at C speed, never descended into.

The same walk, against what the running call's roots held (``_CALLS``), also covers guest
objects reaching the guest otherwise while the tool runs or as it returns: ``enter_contents``
(a guest object entering through ``crossing.enter_value``: the tool's result, one it built) and
``before_guest_runs`` (guest code the tool calls back before it returns: its roots and the
callback's arguments, on the run's CPU time). The host application calling a guest function
outside any run (``from_the_host``) walks the arguments and what tools of that function's
namespace kept, and so does the start of every run on an ``env`` (``Evaluator._run``: host code
may have written into a kept object between two runs).
Not reached: a thread a tool starts that writes while guest code runs (no bracket is around
it, and no read barrier is cheap: C code reads container items with no hook; that is what the
process sandbox is for, where a guest object never reaches a tool and plain data reaches it as
a decoded copy), and a guest object a tool kept under one namespace written into while a run on
another namespace reads it (it entered that run through ``enter_value``, walked then).
"""

from __future__ import annotations

import collections
import contextvars
import sys
import weakref
from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.identity import GUEST_REFS, is_guest_class
from safe_eval.membrane.allowlists import PLAIN_SCALARS
from safe_eval.membrane.dunders import DEFINABLE_DUNDERS, FORBIDDEN_DUNDERS

__all__ = ["Held", "Kept", "before_guest_runs", "calling", "done_calling", "enter_contents", "from_the_host",
           "held", "reenter"]

_MAX_VISITS = 200_000
# what the guest callbacks of one tool call may make the walk visit in all (each callback
# re-walks the tool's roots): a tool calling back once per item of a large handed graph ends
# the run with a typed refusal rather than walk quadratically
_MAX_CALLBACK_VISITS = 2_000_000
_MUTABLE = (list, dict, set, collections.deque)
_IMMUTABLE = (tuple, frozenset)
_CONTAINERS = _MUTABLE + _IMMUTABLE
# ``crossing.HOST_FILLABLE`` (crossing imports this module: the same tuple, spelled here)
_FILLABLE = (list, tuple, dict, set, frozenset, collections.deque, BaseException)
_CLASS_DICT = type.__dict__["__dict__"]
_MEMBER = type(type.__dict__["__dictoffset__"])  # a ``__slots__`` entry's descriptor
_ARGS = BaseException.__dict__["args"]
# what a class statement puts in a class's dict besides its values (``__dict__``, a slot, the
# wrappers ``class_value`` already checked): kept as they are, never replaced by the walk
_SLOT_NAMES = DEFINABLE_DUNDERS | frozenset(FORBIDDEN_DUNDERS)
_CLASS_MACHINERY = frozenset({type(type.__dict__["__dict__"]), _MEMBER, staticmethod, classmethod, property})
_SCALARS_ONLY = frozenset(PLAIN_SCALARS).issuperset  # over ``map(type, items)``: C speed
_FUNCTION: list[type] = []  # the interpreter's function type, looked up once
_OBJECT_GETATTR = object.__getattribute__


class Held:
    """What the roots of a tool call held before the call: id -> value (the values are kept,
    so an id is never reused for a new object meanwhile)."""

    __slots__ = ("roots", "values", "spent", "kept")

    def __init__(self, roots: list[Any], kept: tuple[Kept, ...] = ()) -> None:
        self.roots = roots
        self.values: dict[int, Any] = {}
        self.spent = 0  # visits of the walks before the guest callbacks of this call
        self.kept = kept  # where the call's guest objects are kept once it returns


class Kept:
    """The guest objects tools were handed under one guest namespace: id -> a weak reference
    (or the object, where it takes none)."""

    __slots__ = ("refs", "__weakref__")

    def __init__(self) -> None:
        self.refs: dict[int, Any] = {}

    def add(self, objs: list[Any]) -> None:
        refs = self.refs
        for obj in objs:
            known = refs.get(id(obj))
            if known is not None and _alive(known) is obj:
                continue
            try:
                refs[id(obj)] = weakref.ref(obj)
            except TypeError:  # a class with ``__slots__`` and no ``__weakref__``
                refs[id(obj)] = _Strong(obj)

    def roots(self) -> list[Any]:
        """The kept objects still alive (dead references are dropped)."""
        out = []
        refs = self.refs
        for key, ref in list(refs.items()):  # (a copy: another thread's run may add meanwhile)
            obj = _alive(ref)
            if obj is not None and type(ref) is _Strong and _getrefcount(obj) <= _ONLY_OURS:
                obj = None  # held strongly by this registry alone: no guest or tool can reach it
            if obj is None:
                if refs.get(key) is ref:
                    del refs[key]
            else:
                out.append(obj)
        return out


# ``_Strong.obj``, the loop's ``obj`` in ``Kept.roots`` and ``getrefcount``'s own argument. An
# object that matters holds two more (the tool that writes into it, and whatever the guest
# reads it through): a margin of two if an interpreter counts a reference less
_ONLY_OURS = 3
_getrefcount = sys.getrefcount


class _Strong:
    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj


def _alive(ref: Any) -> Any:
    return ref.obj if type(ref) is _Strong else ref()


# one per guest namespace (``RunContext.keep``, ``Origin.keep``), held as long as it lives
_KEPT: weakref.WeakKeyDictionary[Any, Kept] = weakref.WeakKeyDictionary()


def _kept_of(keep: Any) -> Kept:
    """The registry of a namespace. A context without one (a curated module's own set-up run)
    gets a fresh one: nothing it hands a tool outlives the call's own bracket."""
    if keep is None:
        return Kept()
    found = _KEPT.get(keep)
    if found is None:
        found = _KEPT.setdefault(keep, Kept())
    return found


def _kept_now() -> tuple[Kept, ...]:
    """The registries of the run in progress: its own namespace's and, nested in another run
    (a function of run A called by a tool of run B), the outermost run's too."""
    from safe_eval.context import current_context

    ctx = current_context()
    if ctx is None:
        return ()
    mine = _kept_of(ctx.keep)
    root = ctx.root
    if root is ctx or root.keep is ctx.keep:
        return (mine,)
    return (mine, _kept_of(root.keep))


# the tool calls running on this thread/task, innermost last: guest code called back while a
# tool runs (a callback, a stored C method) reads what the tool wrote before the tool returns
_CALLS: contextvars.ContextVar[tuple[Held, ...]] = contextvars.ContextVar("safe_eval_tool_calls",
                                                                         default=())


def calling(before: Held | None) -> contextvars.Token[tuple[Held, ...]]:
    """A tool call starts (``before``: what its roots held); ``done_calling`` ends it."""
    return _CALLS.set((*_CALLS.get(), before if before is not None else Held([])))


def done_calling(token: contextvars.Token[tuple[Held, ...]]) -> None:
    _CALLS.reset(token)


def in_tool_call() -> bool:
    return bool(_CALLS.get())


def _roots_of(args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> list[Any]:
    roots = [a for a in args if type(a) not in PLAIN_SCALARS and _walkable(a)]
    if kwargs:
        roots.extend(v for v in kwargs.values() if type(v) not in PLAIN_SCALARS and _walkable(v))
    return roots


def held(args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> Held | None:
    """The values reachable from the guest objects among ``args``/``kwargs`` and from what
    tools of this namespace kept (None: nothing to walk)."""
    roots = _roots_of(args, kwargs)
    kept = _kept_now()
    own = list(roots)
    for registry in kept:
        if registry.refs:
            roots.extend(registry.roots())
    before = Held(roots, kept)  # (with no roots: what a result it enters is kept with)
    if not roots:
        return before
    values = before.values

    def record(value: Any) -> Any:
        values[id(value)] = value
        return value

    _charge(_traverse(roots, record, clean=False))
    _keep(kept, own)
    return before


def _keep(kept: tuple[Kept, ...], roots: list[Any]) -> None:
    """Register the guest objects among ``roots`` and among the items of the plain containers
    there (a tool may keep any of them) with ``kept``."""
    if not kept or not roots:
        return
    objs: list[Any] = []
    todo = list(roots)
    seen: set[int] = set()
    while todo:
        obj = todo.pop()
        tp = type(obj)
        if tp in PLAIN_SCALARS or id(obj) in seen:
            continue
        seen.add(id(obj))
        if tp is dict:
            todo.extend(dict.keys(obj))
            todo.extend(dict.values(obj))
        elif tp in _CONTAINERS:
            todo.extend(tp.__iter__(obj))
        elif isinstance(obj, BaseException) and not _is_guest(tp):
            todo.extend(_ARGS.__get__(obj))  # a host exception holding guest objects
        elif _walkable(obj):
            objs.append(obj)
        if len(seen) > _MAX_VISITS:
            break  # the walk of the same roots refused them already
    for registry in kept:
        registry.add(objs)


def _is_guest(tp: type) -> bool:
    ref = GUEST_REFS.get(id(tp))
    return ref is not None and ref() is tp


def _charge(visits: int) -> None:
    """The bracket's walk is the run's work: one operation per value visited. Taken from the
    fuel without a check: the run's next tick past it ends the run (``OpLimit``), never the
    bracket itself, which may run while a tool's own exception propagates."""
    from safe_eval.context import current_context

    ctx = current_context()
    if ctx is not None:
        ctx.budget.fuel -= visits


def reenter(before: Held | None, *extra: Any) -> None:
    """Enter in place every value reachable from the same roots (and ``extra``: the exception
    the tool raised) that was not held before."""
    roots = [e for e in extra if type(e) not in PLAIN_SCALARS and _walkable(e)]
    if before is None:
        if not roots:
            return
        before = Held([], _kept_now())
    elif not roots and not before.roots:
        return
    _keep(before.kept, roots)
    _charge(_enter_new(before, before.roots + roots))


def before_guest_runs(args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> None:
    """Guest code is called back while a tool runs: what the tool wrote so far into the objects
    it was handed (or kept), and into the guest objects among the callback's arguments (one it
    built), enters first, as ``reenter`` enters it when the tool returns."""
    calls = _CALLS.get()
    if not calls:
        return
    before = calls[-1]
    roots = _roots_of(args, kwargs)
    _keep(before.kept, roots)
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
    host iterator, another run's env): what it holds enters in place, except what the roots of
    the running tool call held before it (host code may have written into it, or built it:
    ``type(obj)()`` then ``made.x = host_obj``). Entering while a tool runs, it is kept: the
    tool may hold it."""
    calls = _CALLS.get()
    if calls:
        before = calls[-1]
        _keep(before.kept, [obj])
    else:
        before = Held([])
    _enter_new(before, [obj])


def from_the_host(args: tuple[Any, ...], kwargs: dict[str, Any] | None, keep: Any = None) -> None:
    """The host application, outside any run, calls guest code with guest objects it may have
    written into since the run returned them (``o = ns['O'](); o.x = host_obj; ns['f'](o)``),
    or a tool of the function's namespace (``keep``) wrote into an object it kept: what they
    hold enters first, in place."""
    roots = _roots_of(args, kwargs) if args or kwargs else []
    if keep is not None and len(_KEPT):  # (every evaluation passes here: no tool kept anything yet)
        try:
            registry = _KEPT.get(keep)
        except TypeError:  # not weakly referenceable: no registry was made for it
            registry = None
        if registry is not None and registry.refs:
            roots.extend(registry.roots())
    if roots:
        _enter_new(Held([]), roots)


def _enter_new(before: Held, roots: list[Any]) -> int:
    from safe_eval.membrane.crossing import enter_value

    values = before.values

    def entered(value: Any) -> Any:
        tp = type(value)
        if tp in PLAIN_SCALARS or values.get(id(value)) is value:
            return value  # held before the call (a container among them is walked still)
        if tp in _IMMUTABLE:
            if _SCALARS_ONLY(map(type, value)):
                return value  # a new tuple of plain scalars enters as itself
            return enter_value(value)  # a copy with its items entered
        if _walkable(value):
            return value  # new, but written into in place: its items are checked one by one
        return enter_value(value)

    return _traverse(roots, entered, clean=True)


def _walkable(value: Any) -> bool:
    """Values the walk descends into: plain containers and guest objects, functions and
    classes."""
    tp = type(value)
    if tp in _CONTAINERS or isinstance(value, BaseException):
        return True  # (an exception: its args, fields and chain, host-made or not)
    if isinstance(value, type):
        return is_guest_class(value)
    return _is_guest(tp) or tp is _function_type()


def _function_type() -> Any:
    if not _FUNCTION:
        from safe_eval.membrane import crossing

        _FUNCTION.extend(crossing._FUNCTION[:1])
    return _FUNCTION[0] if _FUNCTION else None


def _plain_data(value: Any, tp: type) -> bool:
    """A plain container holding plain scalars only: nothing in it to record or enter (the
    common case, decided at C speed, so the walk never descends into it)."""
    if tp is list or tp is tuple or tp is set or tp is frozenset:
        return _SCALARS_ONLY(map(type, value))
    if tp is dict:
        return _SCALARS_ONLY(map(type, dict.keys(value))) and _SCALARS_ONLY(map(type, dict.values(value)))
    return False


def _traverse(roots: list[Any], visit: Callable[[Any], Any], *, clean: bool) -> int:
    """Every value reachable from ``roots`` through walkable values, each passed to ``visit``;
    where ``visit`` returns another value, it replaces the old one in its holder. Returns the
    number of values walked. ``clean``: exceptions met are cleaned in place (after the call)."""
    seen: set[int] = set()
    # the classes met, each with whether it is a guest class and its slot descriptors: a
    # class's walk is queued once, and these facts are looked up once per walk
    classes: dict[type, tuple[bool, tuple[Any, ...]]] = {}
    walkable: dict[type, bool] = {}  # by the type of a value (a class: by the value itself)
    # guest classes whose instances hold nothing but their ``__dict__`` (no slots, not a
    # container or exception): one whose values are all plain scalars is done at C speed
    dict_only: dict[type, bool] = {}
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
        tp = type(obj)
        if dict_only.get(tp):
            try:
                d = _OBJECT_GETATTR(obj, "__dict__")
            except AttributeError:
                d = None
            if type(d) is dict and _SCALARS_ONLY(map(type, d.values())):
                continue
        out = _walk(obj, visit, classes, clean)
        if tp not in dict_only:
            facts = classes.get(tp)
            dict_only[tp] = facts is not None and facts[0] and not facts[1] and not isinstance(obj, _FILLABLE)
        for value in out:
            tp = type(value)
            if tp in PLAIN_SCALARS:
                continue
            known = walkable.get(tp)
            if known is None:
                known = _walkable(value)
                if not isinstance(value, type):
                    walkable[tp] = known
            if known:
                todo.append(value)
    return visits


def _walk(obj: Any, visit: Callable[[Any], Any], classes: dict[type, tuple[bool, tuple[Any, ...]]],
          clean: bool) -> list[Any]:
    """Visit (and replace where ``visit`` says) what ``obj`` holds; the values it now holds
    (plain scalars and plain data left out: nothing in them to walk)."""
    tp = type(obj)
    if tp is dict:
        return _walk_dict(obj, visit)
    if tp is list:
        return _walk_list(obj, list, visit)
    if tp is tuple or tp is frozenset:
        return _walk_immutable(obj, tp, visit)
    out: list[Any] = []
    if isinstance(obj, type):
        # public entries and the dunders a class may define: ``type(obj).__call__ = host_fn``
        # is a slot the guest's ``obj(...)`` runs; the other ``_`` entries are what a
        # metaclass keeps (abc's ``_abc_impl``, enum's maps, ``__orig_bases__``): as they are
        for key, value in list(_CLASS_DICT.__get__(obj).items()):
            if type(key) is str and (key[:1] != "_" or key in _SLOT_NAMES) \
                    and type(value) not in PLAIN_SCALARS and type(value) not in _CLASS_MACHINERY:
                out.append(_replace_class_attr(obj, key, value, visit))
        return out
    facts = classes.get(tp)
    if facts is None:
        facts = classes[tp] = (_is_guest(tp), _slot_members(tp))
        out.extend(k for k in tp.__mro__ if is_guest_class(k))  # ``type(obj).x = ...``
    guest, members = facts
    if guest or not isinstance(obj, _CONTAINERS):
        d = _instance_dict(obj)
        if d is not None:
            _walk_attrs(d, visit, out)
        if members:
            _walk_slots(obj, members, visit, out)
        if not isinstance(obj, _FILLABLE):
            return out
    if isinstance(obj, BaseException):
        from safe_eval.membrane.crossing import guest_exception

        if clean:
            guest_exception(obj)  # cleaned in place: its args (and a host one's fields, its chain)
        out.extend(_ARGS.__get__(obj))  # what stayed (guest objects): walked for what they hold
        out.extend(e for e in (obj.__cause__, obj.__context__) if e is not None)
        return out
    if isinstance(obj, dict):
        out.extend(_walk_dict(obj, visit))
    elif isinstance(obj, list):
        out.extend(_walk_list(obj, list, visit))
    elif isinstance(obj, collections.deque):
        out.extend(_walk_list(obj, collections.deque, visit))
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
    else:  # tuple, frozenset subclasses
        out.extend(_walk_immutable(obj, tuple if isinstance(obj, tuple) else frozenset, visit))
    return out


def _walk_dict(obj: Any, visit: Callable[[Any], Any]) -> list[Any]:
    out: list[Any] = []
    if _SCALARS_ONLY(map(type, dict.keys(obj))) and _SCALARS_ONLY(map(type, dict.values(obj))):
        return out  # plain data: nothing to record or enter (the common case, at C speed)
    for key, value in list(dict.items(obj)):
        tk, tv = type(key), type(value)
        new_key = new = None
        if tk not in PLAIN_SCALARS and not _plain_data(key, tk):
            new_key = visit(key)
            out.append(new_key)
        if tv not in PLAIN_SCALARS and not _plain_data(value, tv):
            new = visit(value)
            out.append(new)
        if new_key is not None and new_key is not key:
            dict.__delitem__(obj, key)
            dict.__setitem__(obj, new_key, value if new is None else new)
        elif new is not None and new is not value:
            dict.__setitem__(obj, key, new)
    return out


def _walk_list(obj: Any, base: Any, visit: Callable[[Any], Any]) -> list[Any]:
    items = list(base.__iter__(obj))
    if _SCALARS_ONLY(map(type, items)):
        return []
    out = []
    for i, value in enumerate(items):
        tp = type(value)
        if tp in PLAIN_SCALARS or _plain_data(value, tp):
            continue
        new = visit(value)
        if new is not value:
            base.__setitem__(obj, i, new)
        out.append(new)
    return out


def _walk_immutable(obj: Any, base: Any, visit: Callable[[Any], Any]) -> list[Any]:
    """Nothing can be written into a tuple or frozenset, but what it holds may change."""
    items = list(base.__iter__(obj))
    if _SCALARS_ONLY(map(type, items)):
        return []
    out = []
    for value in items:
        tp = type(value)
        if tp not in PLAIN_SCALARS and not _plain_data(value, tp):
            visit(value)  # recorded before the call; after it, a held value is kept as it is
            out.append(value)
    return out


def _walk_attrs(d: dict[str, Any], visit: Callable[[Any], Any], out: list[Any]) -> None:
    if _SCALARS_ONLY(map(type, d.values())):
        return
    from safe_eval.membrane.stored import stored_value

    for key, value in list(d.items()):
        tp = type(value)
        if tp in PLAIN_SCALARS or _plain_data(value, tp):
            continue
        new = visit(value)
        if new is not value:
            d[key] = stored_value(new)
        out.append(new)


def _slot_members(tp: type) -> tuple[Any, ...]:
    """The ``__slots__`` descriptors the guest classes of ``tp`` made, with their class."""
    return tuple((member, klass) for klass in tp.__mro__ if is_guest_class(klass)
                 for member in list(_CLASS_DICT.__get__(klass).values()) if type(member) is _MEMBER)


def _walk_slots(obj: Any, members: tuple[Any, ...], visit: Callable[[Any], Any], out: list[Any]) -> None:
    """The ``__slots__`` values of a guest object (member descriptors its guest classes made)."""
    for member, klass in members:
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
