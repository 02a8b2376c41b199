"""Host values handed to the guest in a form it cannot walk: tools, proxies, refusals.

- ``Tool``: a host callable from ``env`` (or a method of an exposed object). Calling it goes
  through the policy (``safe_eval.policy.enforce.call_tool``, the one door out); its result
  crosses back through ``enter_value``; a host exception it raises crosses through
  ``guest_exception``. The guest sees ``__name__``, ``__qualname__`` and ``__doc__``, nothing else.
- ``HostExceptionClass``: a host exception class (not a builtin one) is a ``Tool`` too:
  constructing it runs host ``__init__`` code on guest arguments, so it is a tool call the policy
  decides and the audit hook sees. ``except HostError:``, ``raise HostError`` and
  ``isinstance(e, HostError)`` still work (``exception_class`` gives the interpreter the class to
  match). It cannot be subclassed by guest code: the subclass would run the host ``__init__``
  without a decision.
- ``HostProxy``: any other host object. Exposes only what the host declared with
  ``expose(obj, attrs=..., methods=..., writable=...)`` or a ``__safe_eval_expose__`` class
  attribute; by default nothing but its type name in its repr. Assigning a writable attribute
  runs host code (a property setter) and hands the host a value: it is the tool call
  ``Type.attr(value)``, decided by the policy and seen by the audit hook like any other, and
  the host stores the plain copy (``policy/plain.py``) the rule decided on; a value that cannot
  be copied whole (a guest object) is refused. It is the only write: a declared attribute
  is read as the guest's own copy of the builtin containers in it (``owned.own_copy``), so an
  in-place change (``p.tags.append(x)``) never reaches the host object.

Naming (what a policy rule names): a callable or host exception class from ``env`` is the tool
of its env key; a method of an exposed object is ``Type.method``, ``Type`` being the object's
class name, or the class's own name when the exposed object is a class (``User.create``); a
writable attribute is ``Type.attr``. A callable reached any other way (inside a container in
env, returned by a tool, read from an exposed attribute, a caught host exception's class) is
named by its own ``__name__``.
- ``HostIterator``: a host generator or iterator; each item crosses through ``enter_value``.
- ``Refused``: a host value that must never reach the guest (a module without a curated
  wrapper, ``exec``, anything from ``os``...). Using it raises ``PolicyViolation``, which guest
  code cannot catch; merely holding it is harmless, so one bad env entry does not break a run
  that never touches it.

None of these classes can be built by guest code: their constructors require ``_KEY``, and
``type(x)`` shows the guest an ``OpaqueType`` (see typeview.py).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from safe_eval import rules
from safe_eval.context import back_from_host, to_host
from safe_eval.errors import PolicyViolation, SafeEvalError
from safe_eval.interpreter.annotations import register_stand_in
from safe_eval.limits.watchdog import back_in_run, host_code
from safe_eval.membrane.admission import register_membrane_type
from safe_eval.membrane.handed import calling, done_calling, held, reenter
from safe_eval.membrane.owned import own_copy, own_exception
from safe_eval.membrane.typeview import GUARDED_TYPE, OpaqueType, register_type_view
from safe_eval.policy.plain import register_handle

__all__ = [
    "Exposed", "HostClassView", "HostExceptionClass", "HostIterator", "HostProxy", "Refused", "Tool",
    "exception_class", "expose", "host_original", "is_host_exception_class", "is_tool", "refusal",
    "static_facts",
]

_KEY = object()


def _check_key(key: object, cls: str) -> None:
    if key is not _KEY:
        raise TypeError(f"cannot create '{cls}' instances in safe-eval")


def refusal(message: str, hint: str = "") -> PolicyViolation:
    """A run-time ``PolicyViolation`` (code E401) for a refused host value or access."""
    diag = rules.HOST_VALUE_REFUSED.diagnostic((0, 0, 0, 0), hint=hint, detail=message)
    return PolicyViolation([diag])


# policy.enforce.call_tool, imported at the first tool call (cold start: most evaluations call
# no tool); a one-item list so the hot path is a truth test and an index
_CALL_TOOL: list[Callable[..., Any]] = []


def _load_call_tool() -> Callable[..., Any]:
    from safe_eval.policy.enforce import call_tool

    _CALL_TOOL.append(call_tool)
    return call_tool


class Tool:
    """A host callable the guest may call (through the policy) but not look inside."""

    __slots__ = ("_name", "_fn")

    def __init__(self, key: object, name: str, fn: Callable[..., Any]) -> None:
        _check_key(key, "tool")
        self._name = name
        self._fn = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from safe_eval.membrane.crossing import enter_value, guest_exception

        before = held(args, kwargs)  # what the guest objects it is handed hold (handed.py)
        call = _CALL_TOOL[0] if _CALL_TOOL else _load_call_tool()
        token = calling(before)  # guest code it calls back sees its writes entered (handed.py)
        try:
            try:
                result = call(self._name, self._fn, args, kwargs)
            except SafeEvalError:
                reenter(before)
                raise
            except Exception as exc:  # a host error: re-created clean, raised outside this handler
                owned = own_exception(exc)  # the host keeps its own: entered below in place
                reenter(before, owned)  # what it wrote, and the guest objects its error holds
                error = guest_exception(owned)
            except BaseException:
                reenter(before)
                raise
            else:
                reenter(before)  # what it wrote into them, through the door
                # within the call: what its guest arguments held before stays as it is
                return enter_value(result)
        finally:
            done_calling(token)
        raise error

    def __repr__(self) -> str:
        return f"<tool {self._name}>"

    # ``isinstance(x, Order)`` with ``Order`` a host class the host put in env (a tool: calling
    # it constructs one): true for proxies of its instances; no guest code runs
    def __instancecheck__(self, obj: Any) -> bool:
        return _is_instance(obj, _class_of_tool(self))

    def __subclasscheck__(self, cls: Any) -> bool:
        return _is_subclass(cls, _class_of_tool(self))

    def __safe_eval_getattr__(self, name: str) -> Any:
        if name in ("__name__", "__qualname__"):
            return self._name
        if name == "__doc__":
            doc = getattr(self._fn, "__doc__", None)
            return doc if isinstance(doc, str) else None
        raise AttributeError(f"tool '{self._name}' has no attribute '{name}' visible to safe-eval")


class HostExceptionClass(Tool):
    """A host exception class as the guest sees it: constructing it is a tool call."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<host exception class {self._name}>"

    def __eq__(self, other: object) -> bool:
        # ``type(e) == HostError``: the same host class, whichever path the guest took to it
        return type(other) is HostExceptionClass and other._fn is self._fn

    def __hash__(self) -> int:
        return hash(self._fn)

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, self._fn)  # type: ignore[arg-type]  # a class (see crossing)

    def __subclasscheck__(self, cls: Any) -> bool:
        # ``type(e)`` of a caught host exception is itself a ``HostExceptionClass``
        real = exception_class(cls)
        return isinstance(real, type) and issubclass(real, self._fn)  # type: ignore[arg-type]


def is_host_exception_class(cls: type) -> bool:
    """A host exception class whose construction the policy decides: not a builtin or curated
    standard-library one (their constructors only store their arguments), not a guest one."""
    from safe_eval.membrane import allowlists

    if allowlists._stdlib_pending:
        allowlists.ensure_stdlib_types()
    return cls not in allowlists.HOST_TYPE_NAMES


def exception_class(value: Any) -> Any:
    """The class a guest ``except``/``raise`` names: a ``HostExceptionClass``'s host class (to
    match, never to call), anything else as it is."""
    return value._fn if type(value) is HostExceptionClass else value


class Exposed:
    """A host's declaration of what the guest may use on one object (see ``expose``)."""

    __slots__ = ("obj", "attrs", "methods", "writable")

    def __init__(
        self,
        obj: object,
        attrs: Iterable[str] = (),
        methods: Iterable[str] = (),
        writable: Iterable[str] = (),
    ) -> None:
        self.obj = obj
        self.attrs = frozenset(attrs)
        self.methods = frozenset(methods)
        self.writable = frozenset(writable)
        bad = [n for n in self.attrs | self.methods | self.writable if n.startswith("__")]
        if bad:
            raise ValueError(f"expose(): dunder names cannot be exposed: {sorted(bad)}")


def expose(
    obj: object, attrs: Iterable[str] = (), methods: Iterable[str] = (), writable: Iterable[str] = ()
) -> Exposed:
    """Declare what guest code may do with a host object put in ``env``: read ``attrs``, call
    ``methods`` (as tools named ``Type.method``), assign ``writable``. Nothing else is visible."""
    return Exposed(obj, attrs, methods, writable)


def declared(obj: object) -> Exposed | None:
    """The ``__safe_eval_expose__`` declaration of ``obj``'s class, if it has one: a mapping
    with ``attrs``/``methods``/``writable`` keys or an iterable of names (callables become
    methods, the rest read-only attributes)."""
    spec = getattr(type(obj), "__safe_eval_expose__", None)
    if spec is None:
        return None
    if isinstance(spec, Mapping):
        return Exposed(obj, spec.get("attrs", ()), spec.get("methods", ()), spec.get("writable", ()))
    names = [spec] if isinstance(spec, str) else list(spec)
    methods = [n for n in names if callable(getattr(obj, n, None))]
    return Exposed(obj, [n for n in names if n not in methods], methods)


class HostProxy:
    """A host object as the guest sees it: only the declared names."""

    __slots__ = ("_obj", "_decl", "_label")

    def __init__(self, key: object, decl: Exposed) -> None:
        _check_key(key, "proxy")
        self._obj = decl.obj
        self._decl = decl
        # an exposed class is named by itself, not by its metaclass (every class is a ``type``)
        owner = decl.obj if isinstance(decl.obj, type) else type(decl.obj)
        self._label = owner.__name__

    def __repr__(self) -> str:
        obj = self._obj
        if isinstance(obj, type):
            return f"<class '{self._label}'>"
        names = sorted(self._decl.attrs | self._decl.writable)[:_SHOWN_ATTRS]
        if not names:
            return f"<{self._label} object>"
        return f"{self._label}({', '.join(f'{n}={_shown(obj, n)}' for n in names)})"

    # ``isinstance(x, Order)`` with ``Order`` an exposed host class
    def __instancecheck__(self, obj: Any) -> bool:
        return _is_instance(obj, _class_of_proxy(self))

    def __subclasscheck__(self, cls: Any) -> bool:
        return _is_subclass(cls, _class_of_proxy(self))

    def __safe_eval_getattr__(self, name: str) -> Any:
        from safe_eval.membrane.crossing import enter_value

        decl = self._decl
        if name in decl.attrs or name in decl.writable:
            # the guest's own copy: a write into it never reaches the host object undecided
            return enter_value(own_copy(getattr(self._obj, name)))
        if name in decl.methods:
            return Tool(_KEY, f"{self._label}.{name}", getattr(self._obj, name))
        raise AttributeError(f"'{self._label}' object attribute '{name}' is not exposed to safe-eval")

    def __safe_eval_setattr__(self, name: str, value: Any) -> None:
        if name not in self._decl.writable:
            raise AttributeError(f"'{self._label}' object attribute '{name}' is read-only in safe-eval")
        from safe_eval.membrane.crossing import guest_exception
        from safe_eval.policy.plain import plain

        # the other way out of the guest: the host reads this attribute later, so it gets the
        # plain data a guest str/list subclass holds, never the subclass with its own methods
        # nor a guest object (its __eq__/__str__ would run as host code)
        copy, complete = plain(value)
        if not complete:
            raise TypeError(
                f"cannot assign a {type(value).__name__} to '{self._label}.{name}': "
                "only plain data (str, numbers, lists, dicts ...) can be stored in a host object"
            )
        obj = self._obj

        def assign(value: Any) -> None:
            setattr(obj, name, value)

        try:
            (_CALL_TOOL[0] if _CALL_TOOL else _load_call_tool())(f"{self._label}.{name}", assign, (copy,), {})
        except SafeEvalError:
            raise
        except Exception as exc:  # a host setter's error, re-created clean
            error = guest_exception(own_exception(exc))  # the host keeps its own
        else:
            return
        raise error


# How an exposed object prints: its host class name and the attributes the host declared
# readable, ``Order(id=7, total=99.5)``. Not the host's own ``__repr__``, which may show what
# the host did not expose; a value that is not a plain scalar shows as its type name, and each
# repr is bounded (``reprlib``), so printing costs about what reading the attributes does.
_SHOWN_ATTRS = 8
_SHOWN_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _shown(obj: object, name: str) -> str:
    import reprlib

    try:
        value = getattr(obj, name)  # a declared readable attribute of the host's own object
        if type(value) in _SHOWN_SCALARS:
            return reprlib.repr(value)
        return f"<{type(value).__name__}>"
    except Exception:  # a failing host property, a too-long int: the repr still prints
        return "<?>"


class HostClassView(OpaqueType):
    """``type(p)`` of a proxy ``p``: its host class as the guest may see it, named like it
    (``type(order).__name__ == "Order"``), equal to that class as the host gave it (exposed
    or as a tool), true in ``isinstance`` for proxies of its instances; not callable, not
    walkable (an ``OpaqueType``)."""

    __slots__ = ()

    def __instancecheck__(self, obj: object) -> bool:
        return _is_instance(obj, self._real)

    def __eq__(self, other: object) -> bool:
        return _stands_for(other) is self._real

    def __hash__(self) -> int:
        return hash(self._real)


register_membrane_type(HostClassView)
# The live view of each host class, held weakly: ``type(p) is type(q)`` holds while a view is
# alive, and a view lives only while something (guest or host) holds it, so no entry keeps a
# host class (with what its class attributes hold) alive after the runs that saw it, nor hands
# a later run a view nobody kept. (A view holds its class: a map keyed weakly by the class
# and holding the view would keep both forever.) No weakref callback: dead entries are swept
# when the map has doubled, as ``identity.WeakTypeMap``.
_views: dict[int, weakref.ref[HostClassView]] = {}
_views_sweep_at = [256]


def _type_of_proxy(p: HostProxy) -> Any:
    obj = p._obj
    if isinstance(obj, type):  # an exposed class: its type is a metaclass, shown as ``type``
        return GUARDED_TYPE
    cls = type(obj)
    ref = _views.get(id(cls))
    view = ref() if ref is not None else None
    if view is None or view._real is not cls:
        view = HostClassView(cls)
        _views[id(cls)] = weakref.ref(view)
        if len(_views) >= _views_sweep_at[0]:
            for k in [k for k, r in list(_views.items()) if r() is None]:
                _views.pop(k, None)
            _views_sweep_at[0] = max(256, 2 * len(_views))
    return view


register_type_view(HostProxy, _type_of_proxy)


def _stands_for(value: object) -> type | None:
    """The host class a guest-held value names: a type view's, an exposed class's, a class
    tool's (None for anything else)."""
    tp = type(value)
    if tp is HostClassView or tp is OpaqueType:
        return value._real  # type: ignore[attr-defined, no-any-return]
    if tp is HostProxy and isinstance(value._obj, type):  # type: ignore[attr-defined]
        return value._obj  # type: ignore[attr-defined]
    if tp is Tool and isinstance(value._fn, type):  # type: ignore[attr-defined]
        return value._fn  # type: ignore[attr-defined]
    return None


def _class_of_tool(t: Tool) -> type:
    if not isinstance(t._fn, type):
        raise TypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")
    return t._fn


def _class_of_proxy(p: HostProxy) -> type:
    if not isinstance(p._obj, type):
        raise TypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")
    return p._obj


def _is_instance(obj: object, cls: type) -> bool:
    """Only proxies hold instances of host classes; host object and class are the host's own."""
    return isinstance(obj, HostProxy) and type(obj) is HostProxy and isinstance(obj._obj, cls)


def _is_subclass(cls: object, host_cls: type) -> bool:
    real = _stands_for(cls)
    if real is None:
        if not isinstance(cls, type):
            raise TypeError("issubclass() arg 1 must be a class")
        return False  # a guest or builtin class is no subclass of a host class the guest cannot extend
    return issubclass(real, host_cls)


class HostIterator:
    """A host generator or iterator: iteration only, every item entering the guest."""

    __slots__ = ("_it", "_label")

    def __init__(self, key: object, it: Iterator[Any]) -> None:
        _check_key(key, "iterator")
        self._it = it
        self._label = type(it).__name__

    def __iter__(self) -> HostIterator:
        return self

    def __next__(self) -> Any:
        from safe_eval.membrane.crossing import enter_value, guest_exception

        # the host's own code, as a tool is: it may switch to another greenlet (a request
        # waiting on I/O), where the watchdog must not fire for this run
        paused = host_code()
        state = to_host()  # the host's own state (its decimal context) for the host's code
        try:
            item = next(self._it)
        except StopIteration:
            raise StopIteration from None
        except SafeEvalError:
            raise
        except Exception as exc:
            error = guest_exception(own_exception(exc))  # the host keeps its own
        else:
            return enter_value(item)
        finally:
            back_from_host(state)
            back_in_run(paused)
        raise error

    def __repr__(self) -> str:
        return f"<host {self._label}>"

    def __safe_eval_getattr__(self, name: str) -> Any:
        raise AttributeError(f"host iterator attribute '{name}' is not accessible in safe-eval")


class Refused:
    """A host value the membrane will not hand over; any use raises ``PolicyViolation``."""

    __slots__ = ("_what", "_why")

    def __init__(self, key: object, what: str, why: str) -> None:
        _check_key(key, "refused")
        self._what = what
        self._why = why

    def _error(self) -> PolicyViolation:
        return refusal(
            f"{self._what} was passed in by the host but is refused: {self._why}",
            "pass plain data, a tool function, or an object declared with safe_eval.expose()",
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._error()

    def __repr__(self) -> str:
        return f"<refused {self._what}>"

    def __safe_eval_getattr__(self, name: str) -> Any:
        raise self._error()


def _tool_class(t: Tool) -> Any:
    return t._fn if isinstance(t._fn, type) else None


# an annotation naming a class the host handed in through ``env`` means that class
register_stand_in(Tool, _tool_class)


def is_tool(value: object) -> bool:
    """Whether an entered value is a tool: a call of it is one the policy decides (a ``Refused``
    callable counts, so the static check reports its calls as the run would refuse them)."""
    return type(value) in _TOOL_TYPES


_TOOL_TYPES = frozenset({Tool, HostExceptionClass, Refused})


def static_facts(entered: Mapping[str, Any]) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """What the static checks may know of an entered namespace: the names that are tools (their
    calls are held against the policy's tool rules) and the (name, attribute) pairs of exposed
    objects the host declared writable (not an R013)."""
    tools: list[str] = []
    writable: list[tuple[str, str]] = []
    for k, v in entered.items():
        tp = type(v)
        if tp in _TOOL_TYPES:
            tools.append(k)
        elif tp is HostProxy and v._decl.writable:
            writable += [(k, a) for a in v._decl.writable]
    return frozenset(tools), frozenset(writable)


def tool(name: str, fn: Callable[..., Any]) -> Tool:
    return Tool(_KEY, name, fn)


def host_exception_class(name: str, cls: type[BaseException]) -> HostExceptionClass:
    return HostExceptionClass(_KEY, name, cls)


def proxy(decl: Exposed) -> HostProxy:
    return HostProxy(_KEY, decl)


def host_iterator(it: Iterator[Any]) -> HostIterator:
    return HostIterator(_KEY, it)


def refused(what: str, why: str) -> Refused:
    return Refused(_KEY, what, why)


def host_original(value: Any) -> Any:
    """The host's own object behind a membrane wrapper, for host code receiving guest results
    (a tool's function or class, an exposed object, a curated module's host module); ``value``
    itself when it is no wrapper. Never reached by the guest:
    it hands the guest nothing, it gives the host back what the host put in."""
    tp = type(value)
    if tp is Tool or tp is HostExceptionClass:
        return value._fn
    if tp is HostProxy:
        return value._obj
    from safe_eval.membrane.modules._module import CuratedModule

    if tp is CuratedModule:
        import sys

        module = sys.modules.get(CuratedModule.name_of(value))
        if module is not None:
            return module
    return value
def _proxied(handle: HostProxy) -> Any:
    return handle._obj


# a proxy handed back to a tool is the host's own object again (the one door out, policy/plain.py)
register_handle(HostProxy, _proxied)
