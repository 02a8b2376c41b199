"""One tool call on its way out: plain values, exact keyword names, placed as CPython places them.

``OutboundCall(fn, args, kwargs)`` is built by ``enforce.call_tool`` (and ``Policy.decide``)
before any rule looks at the call:

- every keyword name becomes an exact ``str`` (``plain.plain_name``: a ``str`` subclass is
  copied by ``str.__str__``, its ``__hash__``/``__eq__`` never run); a name that is not a
  ``str`` is a ``BindError``, two names with the same text too;
- every value becomes its plain copy (``plain.plain``); a value that cannot be copied whole is
  wrapped in ``Incomplete`` so that a rule condition on it counts as "cannot be evaluated";
- ``place()`` binds the plain arguments to ``fn``'s real signature (``binding.placer_for``).

The host function is then called with ``host_args()``: the very values the rules decided on
(placed ones when a rule needed names), the ``Incomplete`` wrappers removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from safe_eval.policy.binding import BindError, Placer, parameters_of, placer_for
from safe_eval.policy.plain import plain, plain_name

__all__ = ["UNREADABLE", "Incomplete", "OutboundCall"]


class Incomplete:
    """An argument value that could not be copied whole into plain types (a guest object, a
    proxy, a container holding one): rules never evaluate a condition on it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"<not plain data: a {type(self.value).__name__}>"


class _Unreadable:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNREADABLE"


# ``OutboundCall.named`` when the tool's signature cannot be read: which argument is which is unknown
UNREADABLE: Any = _Unreadable()
_UNPLACED: Any = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})  # plain as they are: no copy to make


def _bare(value: Any) -> Any:
    return value.value if type(value) is Incomplete else value


class OutboundCall:
    """The normalised arguments of one call of ``fn`` (None: no function, as for
    ``Policy.decide`` asked without one; rules then bind positions in their own order)."""

    __slots__ = ("fn", "args", "kwargs", "_named", "_placed")

    def __init__(self, fn: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
        self.fn = fn
        for a in args:
            if type(a) not in _SCALARS:
                args = tuple([_plain(a) for a in args])
                break
        else:
            args = tuple(args)  # a tuple already when it comes from a call
        self.args: tuple[Any, ...] = args
        out: dict[str, Any] = {}
        if kwargs:
            for key, value in dict.items(kwargs) if type(kwargs) is dict else kwargs.items():
                name = plain_name(key)
                if name is None:
                    raise BindError("keywords must be strings")
                if name in out:
                    raise BindError(f"got multiple values for keyword argument '{name}'")
                out[name] = value if type(value) in _SCALARS else _plain(value)
        self.kwargs = out
        self._named: Any = _UNPLACED
        self._placed: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    def named(self) -> dict[str, Any] | None:
        """Parameter name -> plain value (``binding``'s ``named``), placed on first use;
        None without a function, ``UNREADABLE`` when its signature cannot be read.
        ``BindError`` when the arguments do not fit the signature."""
        named: dict[str, Any] | None = self._named
        if named is not _UNPLACED:
            return named
        if self.fn is None:
            named = None
        elif not self.args and not self.kwargs:
            named = {}  # nothing to tell apart (a missing required argument fails in the call)
        else:
            placer = placer_for(self.fn)
            named = UNREADABLE if placer is None else self._place(placer)
        self._named = named
        return named

    def _place(self, placer: Placer) -> dict[str, Any]:
        args, kwargs, named, star = placer(self.args, self.kwargs)
        self._placed = (args, kwargs)
        if star is not None:
            value = named.get(star, ())
            # a ``*args`` tuple holding a value that is not plain data is not plain data either
            if Incomplete in map(type, value):
                named[star] = Incomplete(tuple([_bare(v) for v in value]))
        return named

    def absent_in_doubt(self, name: str) -> bool:
        """A deny rule names ``name`` and the call does not pass it under that name: may a value
        meant for it still reach the host? Not when it is a parameter of the tool (the tool's
        own default is used). When the tool has no such parameter, the rule does not fit the
        tool: any positional argument may be the one it meant (deny when in doubt); a keyword
        cannot be, keywords are placed by their exact names."""
        if self.fn is None:
            return False
        params = parameters_of(self.fn)
        if params is None:
            return True
        return name not in params and bool(self.args)

    def host_args(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """What the host function is called with: the placed arguments if a rule placed them,
        else the normalised ones (CPython places those the same way)."""
        args, kwargs = self._placed if self._placed is not None else (self.args, self.kwargs)
        return tuple([_bare(a) for a in args]), {k: _bare(v) for k, v in kwargs.items()}


def _plain(value: Any) -> Any:
    copy, complete = plain(value)
    return copy if complete else Incomplete(copy)
