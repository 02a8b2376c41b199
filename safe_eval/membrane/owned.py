"""The guest's own copies of what host code hands over and the guest may change.

Host code hands the guest objects the host keeps: a declared attribute of an exposed object (a
server exposes one ``catalog`` to every user's run), an exception a tool raises or returns (a
module-level ``NOT_FOUND`` raised on every miss). Guest code may change the builtin containers
and the exceptions it holds (``tags.append(x)``, ``e.add_note(x)``), so these doors hand it a
copy, and the host's object stays as the host left it, for the host and for the next run:

- ``own_copy(value)``: exact ``list``/``dict``/``set``/``bytearray`` rebuilt (and those inside
  tuples, frozensets and each other), shape kept (shared and cyclic parts copied once); other
  values as they are (the entry converts host objects; scalars and registered data types are
  immutable or refused on exit). One op per item, charged to the running budget.
- ``own_exception(exc)``: a host exception rebuilt without running host code: its class's C
  ``__new__`` on copies of its ``args`` (a Python ``__new__``/``__init__`` of the host class is
  not run), the C fields of the builtin exception types (``StopIteration.value``,
  ``OSError.filename`` ...), its ``__dict__`` (``__notes__`` included) copied, its chain
  (``__cause__``/``__context__``) and group members rebuilt the same way. An exception a guest
  class made is the guest's already and stays itself (``except E as e`` sees what was raised).
"""

from __future__ import annotations

import builtins
from typing import Any

from safe_eval.errors import SafeEvalError
from safe_eval.interpreter.identity import is_guest_made

__all__ = ["own_copy", "own_exception"]

_REBUILT = (list, dict, set, bytearray, tuple, frozenset)
# immutable leaves: a container holding only these is copied in one C call
_LEAVES = frozenset({str, int, float, bool, bytes, complex, type(None)})
_MAX_DEPTH = 100  # as deep as ``crossing`` enters: deeper data is refused there anyway
_MAX_CHAIN = 32  # exceptions rebuilt per hand-over (chains, groups, exceptions in args)
# the C fields of the builtin exception types (member and getset descriptors, set by their
# ``__init__``, which is not run): copied when the exception's class has them
_C_FIELDS = ("value", "code", "name", "path", "msg", "errno", "strerror", "filename", "filename2",
             "characters_written", "lineno", "offset", "text", "end_lineno", "end_offset",
             "print_file_and_line", "encoding", "object", "start", "end", "reason")
_DESCRIPTORS = (type(StopIteration.__dict__["value"]), type(BaseException.__dict__["args"]))


def own_copy(value: Any) -> Any:
    """``value`` with the builtin containers in it copied (see the module docstring)."""
    if type(value) not in _REBUILT:
        return value
    return _copied(value, {}, 0)


def _copied(value: Any, memo: dict[int, Any], depth: int) -> Any:
    tp = type(value)
    if tp not in _REBUILT or depth > _MAX_DEPTH:
        return value
    done = memo.get(id(value))
    if done is not None:
        return done  # shared or cyclic: copied once, as deepcopy keeps the shape
    _pay(len(value))
    if tp is not bytearray and _LEAVES.issuperset(map(type, value.values() if tp is dict else value)):
        # the common case, flat data: one C copy (``map(type, ...)`` scans at C speed)
        copy: Any = value.copy() if tp is not tuple and tp is not frozenset else value
        memo[id(value)] = copy
        return copy
    if tp is dict:
        table: dict[Any, Any] = {}
        memo[id(value)] = table
        for k, v in list(value.items()):
            table[_copied(k, memo, depth + 1)] = _copied(v, memo, depth + 1)
        return table
    if tp is list or tp is set:
        copy = [] if tp is list else set()
        memo[id(value)] = copy
        items = [_copied(v, memo, depth + 1) for v in list(value)]
        if tp is list:
            copy.extend(items)
        else:
            copy.update(items)
        return copy
    if tp is bytearray:
        copy = bytearray(value)
    else:  # tuple, frozenset: immutable, rebuilt only when something inside was copied
        items = [_copied(v, memo, depth + 1) for v in value]
        copy = value if all(a is b for a, b in zip(items, value, strict=True)) else tp(items)
    memo[id(value)] = copy
    return copy


def _pay(items: int) -> None:
    from safe_eval.limits.budget import current

    budget = current()
    if budget is not None:
        budget.charge(items)


def own_exception(exc: BaseException) -> BaseException:
    """``exc``, raised or returned by host code, as the guest's own copy (see the module
    docstring). Never raises, and never hands over the host's object when the copy cannot be
    made (a C constructor refusing its own args, a guest ``__hash__`` failing while a dict it
    holds is rebuilt): a ``RuntimeError`` naming the type stands for it then."""
    try:
        copy = _rebuilt(exc, {})
    except SafeEvalError:
        raise  # a limit reached while copying ends the run as any other
    except Exception:  # guest code run while copying (a key's __hash__) failed
        copy = None
    if copy is None:
        return RuntimeError(f"host code raised {type(exc).__name__}, which cannot be handed to "
                            "guest code")
    return copy


_BASE = BaseException.__dict__  # the C fields, read and written past a host class's overrides
_ARGS, _CAUSE, _CONTEXT = _BASE["args"], _BASE["__cause__"], _BASE["__context__"]
_SUPPRESS = _BASE["__suppress_context__"]
_GROUP: Any = getattr(builtins, "BaseExceptionGroup", None)  # 3.11+


def _rebuilt(exc: BaseException, memo: dict[int, BaseException]) -> BaseException | None:
    """The copy of ``exc`` (None: more exceptions than ``_MAX_CHAIN`` in one hand-over, or one
    whose C constructor refuses its own args). Dict keys and set items are hashed again where a
    container in it is rebuilt: a guest object there runs its ``__hash__``, as guest code."""
    if isinstance(exc, SafeEvalError) or is_guest_made(exc):
        return exc
    done = memo.get(id(exc))
    if done is not None:
        return done
    if len(memo) >= _MAX_CHAIN:
        return None
    cls = type(exc)
    copy: BaseException
    try:
        if _GROUP is not None and isinstance(exc, _GROUP):
            members = [_rebuilt(e, memo) for e in _GROUP.__dict__["exceptions"].__get__(exc)]
            if any(m is None for m in members):
                return None
            copy = _c_new(cls)(cls, _GROUP.__dict__["message"].__get__(exc), members)
        else:
            copy = _c_new(cls)(cls, *[_part(a, memo) for a in _ARGS.__get__(exc)])
    except SafeEvalError:
        raise  # a limit reached copying its args (``own_exception`` lets it end the run)
    except Exception:  # a C constructor refusing its own args
        return None
    memo[id(exc)] = copy
    for field in _fields(cls):
        try:
            value = field.__get__(exc)
            if value is not None:  # unset reads as None; a None stored would count as set
                field.__set__(copy, _part(value, memo))  # (``OSError.__str__`` shows a filename)
        except (AttributeError, TypeError, ValueError):  # unset (characters_written), read-only
            pass
    state = object.__getattribute__(exc, "__dict__")  # every exception has one (BaseException's)
    if state:
        object.__getattribute__(copy, "__dict__").update(
            {k: _part(v, memo) for k, v in list(state.items())})
    for link in (_CAUSE, _CONTEXT):
        nested = link.__get__(exc)
        link.__set__(copy, None if nested is None else _rebuilt(nested, memo))
    _SUPPRESS.__set__(copy, _SUPPRESS.__get__(exc))
    return copy


def _part(value: Any, memo: dict[int, BaseException]) -> Any:
    if isinstance(value, BaseException):
        copy = _rebuilt(value, memo)
        return f"<{type(value).__name__} object>" if copy is None else copy
    return own_copy(value)


def _c_new(cls: type) -> Any:
    """The constructor of the nearest builtin exception type: a host class's own Python
    ``__new__`` is host code with its own signature, and is not run."""
    # found at the latest on BaseException, in every exception class's MRO
    return next(k.__new__ for k in cls.__mro__ if k.__module__ == "builtins" and "__new__" in k.__dict__)


def _fields(cls: type) -> list[Any]:
    """The C field descriptors of the builtin exception types ``cls`` derives from."""
    found = []
    for name in _C_FIELDS:
        for klass in cls.__mro__:
            field = klass.__dict__.get(name) if klass.__module__ == "builtins" else None
            if type(field) in _DESCRIPTORS:
                found.append(field)
                break
    return found
