"""Whether an earlier tool rule decides every call a later one matches (``policy check``).

    covering(earlier, later) -> "never" | "shadowed" | None

The first matching rule decides (``model._first_match``), so a later rule whose calls an
earlier rule of the same tool pattern all matches is dead or misleading:

- ``"never"``: the earlier rule matches every call the later one matches, whatever the values
  (``allow``/``allow`` and ``deny``/``deny`` with included conditions, any rule after ``(*)``,
  an ``allow`` after a ``deny`` that names no argument): the later rule never decides.
- ``"shadowed"``: an ``allow`` followed by a ``deny`` it covers (``allow g(x: int)`` then
  ``deny g(x: int in 1..3)``): every call passing plain values for just the arguments the deny
  names is allowed first. It is not "never": the deny still fires on a value that is not plain
  data, on an argument the allow does not name, or when the tool's signature cannot be read,
  where no allow with arguments matches (``model._first_match``).
- ``None``: not covered, or coverage cannot be decided from the conditions alone.

Coverage is decided per argument, with the arguments placed by the tool's signature (as the
run-time gate places them), from what the conditions say: the same condition, range and length
inclusion, ``==``/``in`` literals within an ``in`` set or a range, a type within a union of bare
type names (``int`` within ``int | str``); ``matches`` only when identical. Anything else is
"cannot decide" and nothing is reported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from safe_eval.policy.conditions import Condition, Equals, InRange, IsType, LenRange, OneOf, literal_key
from safe_eval.policy.rules import Arg, ToolRule

__all__ = ["Coverage", "covering"]

Coverage = Literal["never", "shadowed"]


def covering(earlier: ToolRule, later: ToolRule) -> Coverage | None:
    """How ``earlier`` covers ``later`` (see the module docstring)."""
    if not earlier.glob.fullmatch(later.tool):
        # ``*`` in the later pattern is a literal the earlier glob's ``.*`` alone can match
        return None
    if earlier.args is None:
        return "never"
    if later.args is None:
        return None
    mine = {a.name: a for a in earlier.args}
    theirs = {a.name: a for a in later.args}
    if earlier.action == "deny":
        if later.action == "deny":
            # both fire when each argument they name is passed (or absent in doubt) and is
            # denied: the earlier one may only name fewer arguments, each denying more values
            covered = all(n in theirs and _denies_within(theirs[n], a) for n, a in mine.items())
            return "never" if covered else None
        # an allow rule matches a call passing none of its arguments, which a deny rule that
        # names one does not
        return "never" if not mine else None
    if later.action == "allow":
        for name, arg in theirs.items():
            if not (_holds_within(arg, mine[name], plain_only=False) if name in mine else earlier.rest):
                return None
        if later.rest:
            # any other argument, any value (not plain data too)
            if not earlier.rest or not all(_universal(a) for n, a in mine.items() if n not in theirs):
                return None
        return "never"
    for name, arg in theirs.items():
        if not (_holds_within(arg, mine[name], plain_only=True) if name in mine else earlier.rest):
            return None
    return "shadowed"


def _universal(arg: Arg) -> bool:
    return all(c.universal() for c in arg.conditions)


def _holds_within(inner: Arg, outer: Arg, *, plain_only: bool) -> bool:
    """Every value meeting ``inner``'s conditions meets ``outer``'s (an allow rule's test). A
    value that is not plain data meets a list only when every condition is universal, so unless
    ``plain_only`` a universal ``inner`` needs a universal ``outer``."""
    if not plain_only and _universal(inner) and not _universal(outer):
        return False
    return all(c.universal() or any(_implies(i, c) for i in inner.conditions) for c in outer.conditions)


def _denies_within(inner: Arg, outer: Arg) -> bool:
    """Every value ``inner`` denies (each condition holds or cannot be evaluated on it),
    ``outer`` denies too (a deny rule's test; both deny a value that is not plain data)."""
    return all(c.universal() or any(_implies_or_doubt(i, c) for i in inner.conditions)
               for c in outer.conditions)


def _implies(inner: Condition, outer: Condition) -> bool:
    """``inner`` holds -> ``outer`` holds, decided from the two conditions alone."""
    if inner == outer:
        return True
    if isinstance(inner, IsType) and isinstance(outer, IsType):
        return _type_within(inner.text, outer.text)
    if isinstance(inner, InRange) and isinstance(outer, InRange):
        return _range_within(inner.low, inner.high, outer.low, outer.high)
    if isinstance(inner, LenRange) and isinstance(outer, LenRange):
        return _range_within(inner.low, inner.high, outer.low, outer.high)
    values = _literals(inner)
    if values is None:
        return False
    # ``==``/``in`` hold only on plain values of the literal's kind: a str is a str, a
    # number is an int or a float equal to it (1 == 1.0), a bool is a bool
    if isinstance(outer, OneOf | Equals):
        outer_values = _literals(outer)
        return outer_values is not None and _keys(values) <= _keys(outer_values)
    if isinstance(outer, InRange):
        return all(type(v) in (int, float) and _within(v, outer.low, outer.high) for v in values)
    if isinstance(outer, LenRange):
        return all(type(v) is str and _within(len(v), outer.low, outer.high) for v in values)
    if isinstance(outer, IsType):
        members = _bare_members(outer.text)
        kinds = {"str" if type(v) is str else "bool" if type(v) is bool else "None" if v is None else "number"
                 for v in values}
        wanted = set().union(*({"int", "float"} if k == "number" else {k} for k in kinds))
        return members is not None and wanted <= members
    return False


def _implies_or_doubt(inner: Condition, outer: Condition) -> bool:
    """``inner`` holds or cannot be evaluated -> the same of ``outer``: only for conditions of
    one kind whose "cannot be evaluated" is the same set of values."""
    if inner == outer:
        return True
    if isinstance(inner, IsType) and isinstance(outer, IsType):
        return _type_within(inner.text, outer.text)  # never in doubt
    if isinstance(inner, InRange) and isinstance(outer, InRange):
        return _range_within(inner.low, inner.high, outer.low, outer.high)
    if isinstance(inner, LenRange) and isinstance(outer, LenRange):
        return _range_within(inner.low, inner.high, outer.low, outer.high)
    values, outer_values = _literals(inner), _literals(outer)
    if values is None or outer_values is None:
        return False
    # in doubt on a value of none of the literals' exact types: the same types, the same doubt
    same_types = {type(v) for v in values} == {type(v) for v in outer_values}
    return same_types and _keys(values) <= _keys(outer_values)


def _literals(condition: Condition) -> Sequence[Any] | None:
    """The literals of a (not negated) ``==`` or ``in`` condition, None for any other."""
    if isinstance(condition, Equals) and not condition.negate:
        return (condition.value,)
    if isinstance(condition, OneOf) and not condition.negate:
        return tuple(condition.values)
    return None


def _keys(values: Sequence[Any]) -> set[tuple[str, Any]]:
    return {literal_key(v) for v in values}


def _bare_members(text: str) -> set[str] | None:
    """``int | str`` -> ``{"int", "str"}``; None for a type with arguments (not decided)."""
    if "[" in text:
        return None
    return {part.strip() for part in text.split("|")}


def _type_within(inner: str, outer: str) -> bool:
    if inner == outer:
        return True
    a, b = _bare_members(inner), _bare_members(outer)
    return a is not None and b is not None and a <= b


def _range_within(lo: float | None, hi: float | None, outer_lo: float | None, outer_hi: float | None) -> bool:
    low = -math.inf if lo is None else lo
    high = math.inf if hi is None else hi
    return (outer_lo is None or outer_lo <= low) and (outer_hi is None or high <= outer_hi)


def _within(value: float, lo: float | None, hi: float | None) -> bool:
    return (lo is None or lo <= value) and (hi is None or value <= hi)
