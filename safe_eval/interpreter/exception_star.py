"""``try: ... except* T:`` (PEP 654): matching an exception group clause by clause, and what leaves.

    handle_star(e, clauses, frame)     runs the matching ``except*`` clauses for ``e``; returns
                                       when everything was handled, raises what remains

As CPython does it (``ceval``'s ``CHECK_EG_MATCH`` and ``_PyExc_PrepReraiseStar``):
- a naked exception is matched as ``ExceptionGroup('', [e])``; if no clause matches, the naked
  exception itself goes on; if one does, what its clause raises (or nothing) goes on as is;
- each clause takes ``rest.split(T)``: the matched part is bound to the clause's name and is the
  active exception while the clause runs (so a bare ``raise`` re-raises it), the rest goes on;
- at the end, the parts that were re-raised (bare ``raise``) or never matched keep their place
  in the original group (``orig.split`` by identity of the leaves); new exceptions raised by
  clauses are grouped before them: ``ExceptionGroup('', [*raised, kept])``, unless that list
  holds one exception, which goes on alone;
- what goes on is raised as it is, never chained to the exception being handled (CPython's
  ``RERAISE``): its ``__context__`` is what the clause that raised it, or the split, gave it.
``break``/``continue``/``return`` in an ``except*`` clause are compile errors (P009), so a clause
ends by falling off its end or by raising.

Host code here reads groups only through ``BaseExceptionGroup``'s own C descriptors
(``exceptions``, ``split``), never through attribute lookup on the object, so a guest subclass
overriding them is not run with host rights; ``split`` calls ``derive``, which for a guest
subclass is a guest method the interpreter runs under the budget.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from safe_eval.interpreter.handled import raise_as_is
from safe_eval.interpreter.runtime import Frame

__all__ = ["handle_star"]

# 3.11+ (except* parses only there); None on 3.10, where this module is never reached
_GROUP: Any = getattr(builtins, "BaseExceptionGroup", None)
_EXCEPTIONS: Any = getattr(_GROUP, "exceptions", None)
_SPLIT: Any = getattr(_GROUP, "split", None)

# (evaluate the clause's types, run the clause with the matched group bound)
Clause = tuple[Callable[[Frame], Any], Callable[[Frame, BaseException], Any]]


def handle_star(e: BaseException, clauses: list[Clause], f: Frame,
                not_catchable: tuple[type[BaseException], ...]) -> None:
    naked = not isinstance(e, _GROUP)
    orig = _GROUP("", (e,)) if naked else e  # a tuple, as CPython wraps it (it shows in repr)
    rest: BaseException | None = orig
    raised: list[BaseException] = []
    kept: list[BaseException] = []  # re-raised as they were
    for types_of, run in clauses:
        if rest is None:
            break
        types = types_of(f)
        _check_types(types)
        if naked:  # matched whole or not at all, wrapped in a fresh group (CPython's shape)
            matched, rest = (orig, None) if isinstance(e, types) else (None, rest)
        else:
            matched, rest = _SPLIT(rest, types)
        if matched is None:
            continue
        outcome = _run_clause(run, f, matched, not_catchable)
        if outcome is not None:
            (kept if outcome is matched else raised).append(outcome)
    result = _outcome(e, naked, orig, rest, raised, kept)
    if result is not None:
        raise_as_is(result)


def _outcome(e: BaseException, naked: bool, orig: BaseException, rest: BaseException | None,
             raised: list[BaseException], kept: list[BaseException]) -> BaseException | None:
    """What leaves the statement (``_PyExc_PrepReraiseStar``), or None."""
    if naked:
        if rest is not None:
            return e
        return raised[0] if raised else kept[0] if kept else None
    if rest is not None:
        kept.append(rest)
    result = _projection(orig, kept)
    if not raised:
        return result
    leaving = [*raised, result] if result is not None else raised
    return leaving[0] if len(leaving) == 1 else _GROUP("", leaving)


def _check_types(types: Any) -> None:
    for t in types if isinstance(types, tuple) else (types,):
        if not (isinstance(t, type) and issubclass(t, BaseException)):
            raise TypeError("catching classes that do not inherit from BaseException is not allowed")
        if issubclass(t, _GROUP):
            raise TypeError("catching ExceptionGroup with except* is not allowed. Use except instead.")


def _run_clause(run: Callable[[Frame, BaseException], Any], f: Frame, matched: BaseException,
                not_catchable: tuple[type[BaseException], ...]) -> BaseException | None:
    """Run one clause with ``matched`` as the active exception; what it raised, or None."""
    cause, context, suppress = matched.__cause__, matched.__context__, matched.__suppress_context__
    try:
        try:
            raise matched
        except BaseException:
            matched.__cause__, matched.__context__ = cause, context
            matched.__suppress_context__ = suppress
            run(f, matched)
    except not_catchable:
        raise
    except BaseException as new:
        return new
    return None


def _projection(orig: BaseException, parts: list[BaseException]) -> BaseException | None:
    """The leaves of ``parts``, in the nesting and order they had in ``orig``."""
    if not parts:
        return None
    ids: set[int] = set()
    for part in parts:
        _leaf_ids(part, ids)
    matched, _ = _SPLIT(orig, lambda x: id(x) in ids)
    return matched  # type: ignore[no-any-return]


def _leaf_ids(e: BaseException, out: set[int]) -> None:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, _GROUP):
            stack.extend(_EXCEPTIONS.__get__(x))
        else:
            out.add(id(x))


def handle_star_parked(clauses: list[Clause], f: Frame, k: int,
                       not_catchable: tuple[type[BaseException], ...],
                       set_handled: Callable[[BaseException | None], None],
                       caught: Callable[..., Any], caught_marker: object) -> BaseException | None:
    """``handle_star`` for clauses that can suspend, in a body whose frame is parked while
    suspended: the exception is at ``f[k]`` and everything this keeps between clauses lives on
    ``f``'s tail, never in a local of this host frame, and each clause runs outside any host
    ``except`` clause with its group made the handled exception by ``set_handled`` (see
    ``compile_stmt._try_except_nested``). Returns what goes on (the caller raises it), or None."""
    e = f[k]
    naked = not isinstance(e, _GROUP)
    f.append(_GROUP("", (e,)) if naked else e)  # f[k + 1]: orig
    f.append(f[k + 1])  # f[k + 2]: rest
    f.append([])  # f[k + 3]: raised
    f.append([])  # f[k + 4]: kept, re-raised as they were
    del e
    for types_of, run in clauses:
        if f[k + 2] is None:
            break
        types = types_of(f)
        _check_types(types)
        if naked:
            matched, f[k + 2] = (f[k + 1], None) if isinstance(f[k], types) else (None, f[k + 2])
        else:
            matched, f[k + 2] = _SPLIT(f[k + 2], types)
        del types  # a guest class leads back to its run: no local keeps it while the clause runs
        if matched is None:
            continue
        f.append(matched)  # f[k + 5], taken by the clause
        set_handled(matched)
        del matched
        outcome = caught(lambda fr: run(fr, fr[k + 5]), f, ())  # noqa: B023
        set_handled(f[k])
        if outcome is caught_marker:  # what the clause raised is on the tail
            new = f.pop()
            if isinstance(new, not_catchable):  # goes on at once, as from ``handle_star``
                raise_as_is(new)
            (f[k + 4] if new is f[k + 5] else f[k + 3]).append(new)
            del new
        del f[k + 5:]
    return _outcome(f[k], naked, f[k + 1], f[k + 2], f[k + 3], f[k + 4])
