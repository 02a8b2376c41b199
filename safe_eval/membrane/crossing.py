"""Values and exceptions crossing the membrane, and ``format()``.

``enter_value(value, policy, name=)``: a host value entering the guest (each env value, each
tool result). Validate-in-place: plain data passes as the same object (a list of a million
ints is checked by one C-speed scan, not copied); a container holding something that must be
wrapped is copied with the wrapped items. Decision table, first match wins:

    plain scalars, guest-made objects, membrane objects, curated modules   as they are
    list / tuple / dict / set / frozenset / slice                        checked, copied if needed
    exception instances                                                  cleaned (guest_exception)
    modules                                                              curated wrapper or Refused
    type objects                                                         builtin/exception types as they
                                                                         are, ``type`` -> GUARDED_TYPE,
                                                                         metaclasses Refused, other classes
                                                                         Tools (calling builds a proxy)
    frames, code, cells, coroutines ...                                  Refused
    host generators / iterators                                          HostIterator
    registered plain-data types (datetime, Decimal, Counter ...)         as they are
    ``expose(...)`` declarations, ``__safe_eval_expose__`` classes       HostProxy with those names
    callables                                                            Tool, or Refused if dangerous
    anything else                                                        HostProxy exposing nothing

``guest_exception(exc)``: a host exception entering the guest, cleaned in place (identity kept:
``except E as e`` must see the object that was raised): no traceback, host objects in ``args``
and fields replaced by a placeholder naming their type, ``__cause__``/``__context__`` cleaned
the same way. An exception host code raised or returned (a tool's, the doors in proxies.py, an
exception value entering here) is first copied (``owned.own_exception``): host code keeps its
object, which another run may be handed too, and the guest cleans and writes only its copy.
"""

from __future__ import annotations

import collections.abc
import contextvars
import types
from typing import Any

from safe_eval.context import current_context
from safe_eval.errors import PolicyViolation, SafeEvalError
from safe_eval.interpreter.identity import GUEST_REFS, is_curated_type, is_guest_class, is_guest_made
from safe_eval.limits.guards import check_format_spec, price_text, shown_text
from safe_eval.limits.routines import slot_price
from safe_eval.membrane import allowlists
from safe_eval.membrane.admission import admitted, register_membrane_type
from safe_eval.membrane.allowlists import FORBIDDEN_VALUE_TYPES, HOST_TYPE_NAMES, PLAIN_SCALARS
from safe_eval.membrane.danger import dangerous_callable
from safe_eval.membrane.handed import before_guest_runs, enter_contents, in_tool_call
from safe_eval.membrane.owned import own_exception
from safe_eval.membrane.proxies import (
    Exposed,
    HostExceptionClass,
    HostIterator,
    HostProxy,
    Refused,
    Tool,
    declared,
    host_exception_class,
    host_iterator,
    is_tool,
    proxy,
    refusal,
    refused,
    tool,
)
from safe_eval.membrane.typeview import GUARDED_TYPE, OpaqueType, is_own_class, reveal_type

__all__ = ["enter_call_args", "enter_tool", "enter_value", "foreign_exception",
           "format_value", "guest_exception", "register_guest_function_type"]

_CONTAINERS = (list, tuple, dict, set, frozenset)
# Bases whose instances host code fills without guest code running: ``L(items)`` of a guest
# ``class L(list)`` is ``list.__init__``, ``E(x)`` of a guest exception class stores ``x`` in
# ``args``. A tool given such a class as a callback builds guest-made objects holding its own
# values, so being guest-made says nothing of what they hold (``_enter_host_filled``).
HOST_FILLABLE: tuple[type, ...] = (list, tuple, dict, set, frozenset, collections.deque, BaseException)
_ARGS = BaseException.__dict__["args"]  # the slot itself: a guest class may shadow ``args``
_DEFAULT_FACTORY = collections.defaultdict.__dict__["default_factory"]
_MEMBRANE_TYPES = (Tool, HostExceptionClass, HostProxy, HostIterator, Refused, OpaqueType, type(GUARDED_TYPE))
for _cls in _MEMBRANE_TYPES:
    register_membrane_type(_cls)
_MAX_DEPTH = 100


# the interpreter's guest function type (``register_guest_function_type``: the interpreter
# imports this module, not the other way round)
_FUNCTION: list[Any] = []


def register_guest_function_type(cls: Any) -> None:
    _FUNCTION.append(cls)


def _foreign_code(value: Any, policy: Any) -> bool:
    """``value`` is a guest function (or a method bound to one) another run made, whose policy
    is not the one of the run it enters. Guest code calls guest functions on a fast path that
    runs them under the caller's context, so such a function enters as a tool: the entering
    run's policy decides whether it may call it, and the call runs it under its own run's
    policy and audit hook (``Function.__call__``, ``session.call_as_origin``)."""
    fn: Any = value.__func__ if type(value) is types.MethodType else value
    if not _FUNCTION or type(fn) is not _FUNCTION[0]:
        return False
    return _other_policy(fn.origin, policy)


def _other_policy(origin: Any, policy: Any) -> bool:
    """The run ``origin`` names decides or audits otherwise than the one entering: another
    policy, or another audit hook, which must see the calls its own run's code makes (a quota
    kept in the hook), as ``Function.__call__`` decides."""
    if origin is None:
        return False
    ctx = current_context()
    if policy is None:
        if ctx is None:
            return False
        policy = ctx.policy
    if origin.policy is not policy:
        return True
    audit = ctx.audit if ctx is not None else _entering_audit.get()
    return audit is not _UNKNOWN and origin.audit is not audit


# the audit hook of the run whose env is entering (``entering``), outside any run's context
_UNKNOWN = object()
_entering_audit: contextvars.ContextVar[Any] = contextvars.ContextVar("safe_eval_entering_audit",
                                                                      default=_UNKNOWN)


def entering(audit: Any) -> contextvars.Token[Any]:
    """Values entered from now on (until ``done_entering``) enter the run audited by ``audit``."""
    return _entering_audit.set(audit)


def done_entering(token: contextvars.Token[Any]) -> None:
    _entering_audit.reset(token)


def _foreign_object(value: Any, policy: Any) -> bool:
    """``value`` is a guest class another run made (or an instance of one), under another
    policy: its methods would run on the guest call fast path under the entering run's policy,
    so it is refused there (``_enter``). Found by the run of its class's own methods."""
    cls = value if isinstance(value, type) else type(value)
    if not _FUNCTION or not is_guest_class(cls):
        return False
    function = _FUNCTION[0]
    for klass in cls.__mro__:
        for member in type.__dict__["__dict__"].__get__(klass).values():
            if type(member) is function:
                return _other_policy(member.origin, policy)
    return False


def foreign_exception(exc: BaseException, policy: Any) -> PolicyViolation | None:
    """The refusal for an exception that leaves another run's code (a function or generator
    that run made, called by a run under ``policy``) when it, or an exception in its chain, is
    an instance of a class of that other run: its methods (``__str__``, ``__eq__``, properties)
    would run on the guest call fast path under ``policy``, as ``_foreign_object`` says of the
    values ``env`` hands in. None when the exception may cross as it is."""
    seen: list[BaseException] = []
    todo = [exc]
    while todo and len(seen) < _MAX_CHAIN:
        e = todo.pop()
        if any(e is s for s in seen):
            continue
        seen.append(e)
        if _foreign_object(e, policy):
            return refusal(f"an exception of class {type(e).__name__!r} was made by another run, under "
                           "another policy: its methods run only under the policy of the run that made "
                           "them", "catch it in the run that raised it and return plain data")
        for link in (e.__cause__, e.__context__):
            if link is not None:
                todo.append(link)
    return None


_MAX_CHAIN = 32


def _scalar(value: object) -> bool:
    return type(value) in PLAIN_SCALARS


_guest_made = is_guest_made


# -- enter_value -------------------------------------------------------------------------------
def enter_value(value: Any, policy: Any = None, *, name: str | None = None) -> Any:
    """``value`` as the guest may hold it (see the module docstring). ``name`` is the env
    name of the value: the tool name the policy decides calls by."""
    if type(value) in PLAIN_SCALARS:
        return value
    return _enter(value, policy, name, 0)


def enter_call_args(
    args: tuple[Any, ...], kwargs: dict[str, Any] | None, policy: Any
) -> tuple[tuple[Any, ...], dict[str, Any] | None]:
    """The arguments of a host-to-guest call (host C code calling a guest function or dunder:
    ``key=`` callbacks, reflected comparisons, ``sorted``'s ``__lt__``, a decoded callable
    called by the host), each entered as ``enter_value`` enters it. Values the guest already
    holds are admitted unchanged, so a guest-to-guest call through host code is unaffected."""
    if in_tool_call():  # called back while a tool runs: what it wrote so far enters first
        before_guest_runs(args, kwargs)
    refs = GUEST_REFS
    for a in args:
        tp = type(a)
        if tp in PLAIN_SCALARS:
            continue
        ref = refs.get(id(tp))  # ``is_guest_class(tp)`` inlined: the guest's own objects
        if ref is not None and ref() is tp and (
                not isinstance(a, HOST_FILLABLE) or _enter_host_filled(a, policy, None, 0) is a):
            continue
        if not admitted(a) or _foreign_code(a, policy) or isinstance(a, HOST_FILLABLE):
            args = tuple([a if type(a) in PLAIN_SCALARS else _enter(a, policy, None, 0) for a in args])
            break
    if kwargs:
        kwargs = {
            (k if type(k) is str else str.__str__(k)): _enter(v, policy, None, 0) for k, v in kwargs.items()
        }
    return args, kwargs


def enter_tool(fn: Any, policy: Any, name: str) -> Any:
    """A host callable the host gave as a tool (``tools=``), entered under ``name``: always a
    tool the policy decides by that name, never a guest-made function or a builtin passed as it
    is (those are not the host's tools: pass them in ``env``). A host mistake is a TypeError."""
    if type(name) is not str or not name.isidentifier():
        raise TypeError(f"tool names must be identifiers, not {name!r}")
    entered = _enter(fn, policy, name, 0) if callable(fn) else None
    if not is_tool(entered):
        raise TypeError(f"tool '{name}' must be a host function or class, not {type(fn).__name__} "
                        "(pass data and guest-made functions in env)")
    return entered


def _enter(value: Any, policy: Any, name: str | None, depth: int) -> Any:
    if allowlists._stdlib_pending:
        allowlists.ensure_stdlib_types()  # before any decision about a non-scalar value
    tp = type(value)
    if tp in PLAIN_SCALARS:
        return value
    if _foreign_code(value, policy):
        return tool(name or _callable_name(value), value)
    if _foreign_object(value, policy):
        return refused(_label(value, name), "it was made by another run, under another policy: its "
                       "methods run only under the policy of the run that made them")
    if isinstance(value, HOST_FILLABLE) and is_guest_class(tp):
        return _enter_host_filled(value, policy, name, depth)
    if is_guest_class(tp) or tp is _function_type() or (isinstance(value, type) and is_guest_class(value)):
        # guest-made, but host code may have built it or written into it (a tool's result):
        # what it holds enters first, in place (handed.enter_contents)
        enter_contents(value)
        return value
    if _host_items(value):
        # a builtin iterator or dict view (``iter(results)``, ``d.values()``, ``zip``, ``map``)
        # is a listed type, but holds whatever host code gave it: its items enter one by one
        return _enter_items_of(value, policy, name, depth)
    if admitted(value) and not (name is not None and _host_callable(value)):
        return value  # (a host callable under an env name stays a tool the policy decides by name)
    if depth > _MAX_DEPTH:
        return refused(_label(value, name), "data nested too deeply")
    if tp in _CONTAINERS:
        return _enter_container(value, policy, depth)
    if tp is slice:
        parts = [_enter(p, policy, None, depth + 1) for p in (value.start, value.stop, value.step)]
        return slice(*parts)
    if isinstance(value, BaseException):
        return guest_exception(own_exception(value))  # the host keeps its own (owned.py)
    if isinstance(value, Exposed):
        return proxy(value)
    if isinstance(value, types.ModuleType):
        return _enter_module(value, policy)
    if isinstance(value, type):
        return _enter_type(value, name)
    if tp in FORBIDDEN_VALUE_TYPES:  # (a host generator entered above, as an iterator)
        return refused(_label(value, name), f"a host {tp.__name__} is never handed to guest code")
    decl = declared(value)
    if decl is not None:
        return proxy(decl)
    if _registered(tp) and not callable(value):
        return _enter_registered(value, name)
    if callable(value):
        why = dangerous_callable(value)
        if why:
            return refused(_label(value, name), why)
        return tool(name or _callable_name(value), value)
    return proxy(Exposed(value))  # (an iterator entered above, as a ``HostIterator``)


_VIEWS = (collections.abc.KeysView, collections.abc.ValuesView, collections.abc.ItemsView)


def _host_items(value: Any) -> bool:
    """A host iterator or dict view (not the membrane's own, not guest-made): what it yields is
    not known to be admitted."""
    tp = type(value)
    if tp in _MEMBRANE_TYPES or isinstance(value, type) or _guest_made(value) or is_curated_type(tp):
        return False  # (the interpreter's own generators and iterators are guest-made)
    return isinstance(value, (collections.abc.Iterator, *_VIEWS)) and not isinstance(value, Exposed)


def _enter_items_of(value: Any, policy: Any, name: str | None, depth: int) -> Any:
    """An iterator enters as a ``HostIterator`` (each item entered as it is yielded); a view as
    itself when every item would enter as itself, else ``Refused`` (it is live: its dict may
    change)."""
    if isinstance(value, collections.abc.Iterator):
        return host_iterator(value)
    if depth > _MAX_DEPTH:
        return refused(_label(value, name), "data nested too deeply")
    for item in list(value):
        if _entered(item, policy, depth) is not item:
            return refused(_label(value, name), "a view of host data that does not cross as it is")
    return value


def _enter_host_filled(value: Any, policy: Any, name: str | None, depth: int) -> Any:
    """A guest-made container or exception (``HOST_FILLABLE``) as it may enter: itself when
    everything it holds would enter as itself. An exception's arguments are entered in place
    (exceptions are cleaned in place: ``except E as e`` must see the object raised); a
    container holding anything else is refused whole (replacing its items would change an
    object the guest holds, through methods its class may override). Its contents are read
    with the host base's own methods: no guest code runs at the door."""
    if isinstance(value, BaseException):
        _enter_exception_args(value, policy, depth)
        return value
    if depth > _MAX_DEPTH:
        return refused(_label(value, name), "data nested too deeply")
    if isinstance(value, dict):
        items: list[Any] = [*dict.keys(value), *dict.values(value)]
        if isinstance(value, collections.defaultdict):
            items.append(_DEFAULT_FACTORY.__get__(value))
    else:
        base = next(b for b in HOST_FILLABLE if isinstance(value, b))
        items = list(base.__iter__(value))  # type: ignore[attr-defined]
    for item in items:
        if item is not value and _entered(item, policy, depth) is not item:
            return refused(_label(value, name), "host code filled it with values that do not cross as "
                           "they are (a guest class built on a host container, called by host code)")
    return value


def _entered(item: Any, policy: Any, depth: int) -> Any:
    """``item`` of a guest-made container or exception as it enters: the guest's own objects
    as ``enter_call_args`` takes them, plain containers of scalars at C speed, else ``_enter``."""
    tp = type(item)
    if tp in PLAIN_SCALARS:
        return item
    ref = GUEST_REFS.get(id(tp))
    if ref is not None and ref() is tp and not isinstance(item, HOST_FILLABLE):
        if in_tool_call():  # a tool may have built or written into it (handed.enter_contents)
            enter_contents(item)
        return item
    if (tp is list or tp is tuple or tp is set or tp is frozenset) and _SCALARS_ONLY(map(type, item)):
        return item
    return _enter(item, policy, None, depth + 1)


_SCALARS_ONLY = PLAIN_SCALARS.issuperset


def _function_type() -> Any:
    return _FUNCTION[0] if _FUNCTION else None


def _enter_exception_args(exc: BaseException, policy: Any, depth: int) -> None:
    """A guest-made exception's ``args``, entered in place (host code may have built it)."""
    args = _ARGS.__get__(exc)
    entered = tuple([a if a is exc else _entered(a, policy, depth) for a in args])
    if any(a is not b for a, b in zip(entered, args, strict=True)):
        _ARGS.__set__(exc, entered)


def _host_callable(value: Any) -> bool:
    return callable(value) and not isinstance(value, type) and not isinstance(value, _MEMBRANE_TYPES) \
        and not _guest_made(value)


def _enter_container(value: Any, policy: Any, depth: int) -> Any:
    tp = type(value)
    if tp is dict:
        if all(map(_scalar, value)) and all(map(_scalar, value.values())):
            return value
        items = [
            (_enter(k, policy, None, depth + 1), _enter(v, policy, None, depth + 1)) for k, v in value.items()
        ]
        if all(a is k and b is v for (a, b), (k, v) in zip(items, value.items(), strict=True)):
            return value
        return dict(items)
    if all(map(_scalar, value)):
        return value
    entered = [_enter(v, policy, None, depth + 1) for v in value]
    if all(a is b for a, b in zip(entered, value, strict=True)):
        return value
    return tp(entered)


def _enter_module(module: types.ModuleType, policy: Any) -> Any:
    from safe_eval.membrane.modules import import_module

    modname = module.__name__
    try:
        return import_module(modname, policy)
    except Exception:
        return refused(f"module '{modname}'", "modules are refused unless safe-eval has a curated wrapper")


def _enter_type(cls: type, name: str | None) -> Any:
    if cls is type:
        return GUARDED_TYPE
    # (a listed or guest-made class was admitted as it is, in ``_enter``)
    if issubclass(cls, type):
        return refused(f"metaclass '{cls.__name__}'", "metaclasses build host classes")
    shown = reveal_type(cls)
    if type(shown) is HostExceptionClass and name is not None and issubclass(cls, BaseException):
        # from env: the tool of its env key, the name the policy is written against
        return host_exception_class(name, cls)
    if shown is not cls and (type(shown) is not OpaqueType or is_own_class(cls)):
        return shown
    # a host class the host handed in by name: a tool of that name, as the policy sees it
    # (an exception class is shown as its ``HostExceptionClass`` above, or listed and admitted)
    why = dangerous_callable(cls)
    if why:
        return refused(f"class '{cls.__name__}'", why)
    return tool(name or cls.__name__, cls)


def _registered(tp: type) -> bool:
    return any(k in HOST_TYPE_NAMES for k in tp.__mro__[:-1])


def _enter_registered(value: Any, name: str | None) -> Any:
    """datetime, Decimal, Counter, deque ...: plain data, but containers must hold plain data."""
    # only containers come here: other values of these types were admitted as they are
    if isinstance(value, collections.abc.Mapping):
        items = list(value.items())
        ok = all(_scalar(k) and _scalar(v) for k, v in items)
    else:  # a deque, a host subclass of list, tuple, set or frozenset (a namedtuple)
        ok = all(map(_scalar, value))
    if isinstance(value, collections.defaultdict) and value.default_factory is not None:
        ok = ok and value.default_factory in HOST_TYPE_NAMES
    if ok:
        return value
    return refused(_label(value, name), "it holds host objects that are not plain data")


def _label(value: object, name: str | None) -> str:
    tname = value.__name__ if isinstance(value, type) else type(value).__name__
    return f"'{name}' ({tname})" if name else f"a '{tname}' object"


def _callable_name(fn: Any) -> str:
    label = getattr(fn, "__name__", None)
    return label if isinstance(label, str) else type(fn).__name__


# -- exceptions --------------------------------------------------------------------------------
def guest_exception(exc: BaseException) -> BaseException:
    """``exc`` cleaned for the guest, in place (see the module docstring)."""
    _clean_exception(exc, set())
    return exc


def _clean_exception(exc: BaseException, seen: set[int]) -> None:
    if id(exc) in seen or isinstance(exc, SafeEvalError):
        return
    seen.add(id(exc))
    exc.__traceback__ = None
    if not _guest_made(exc):
        exc.args = tuple(_clean_data(a, 0) for a in exc.args)
        _clean_fields(exc)
    else:  # raised by host code too (a tool given the guest's exception class)
        _enter_exception_args(exc, None, 0)
    for link in ("__cause__", "__context__"):
        nested = getattr(exc, link)
        if nested is None:
            continue
        if isinstance(nested, SafeEvalError):
            setattr(exc, link, None)
        else:
            _clean_exception(nested, seen)


def _clean_fields(exc: BaseException) -> None:
    if isinstance(exc, AttributeError):
        exc.obj = None  # the object whose attribute was missing: a host object, always dropped
        if not isinstance(exc.name, str | None):
            exc.name = None
    if isinstance(exc, ImportError):
        exc.path = None  # host file system paths
    if isinstance(exc, StopIteration):
        exc.value = _clean_data(exc.value, 0)
    fields = getattr(exc, "__dict__", None)
    if fields:
        for key, val in list(fields.items()):
            cleaned = _clean_data(val, 0)
            if cleaned is not val:
                fields[key] = cleaned


def _clean_data(value: Any, depth: int) -> Any:
    """``value`` if the guest may hold it as exception data, else a placeholder string."""
    tp = type(value)
    if tp in PLAIN_SCALARS or _guest_made(value) or isinstance(value, _MEMBRANE_TYPES):
        return value
    if isinstance(value, BaseException):
        _clean_exception(value, set())
        return value
    if tp in (tuple, list, frozenset, set) and depth < 10:
        items = [_clean_data(v, depth + 1) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return tp(items)
    if tp is dict and depth < 10:
        pairs = [(_clean_data(k, depth + 1), _clean_data(v, depth + 1)) for k, v in value.items()]
        if all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    if isinstance(value, type) and (value in HOST_TYPE_NAMES or issubclass(value, BaseException)):
        return reveal_type(value)
    if _registered(tp) and not callable(value):
        return value
    return f"<{tp.__name__} object>"


# -- format ------------------------------------------------------------------------------------
def format_value(value: Any, spec: str = "") -> str:
    """``format(value, spec)`` and f-string ``{value:spec}``: the spec's width and precision
    are checked against the memory budget before the string is built."""
    if spec:  # an exact str: a spec parsed by the formatter or joined by an f-string
        check_format_spec(spec)
        priced = slot_price(type(value), "__format__")  # format(date, '%c' * 10**7): strftime
        if priced is not None:
            return priced(value, spec)  # type: ignore[no-any-return]
    else:
        shown = shown_text(value)  # format(print, '') is str(print)
        if shown is not None:
            return shown
    price_text(value)  # format(x, '') is str(x): escaping nested data can multiply it
    return format(value, spec)
