"""What a pattern costs the ``regex`` matcher in memory, read from CPython's parse of it.

Two costs are not bounded by the matcher's deadline, because they are memory, not time:

- **The compiled program.** ``regex`` unrolls every fixed repeat ``x{n}`` into ``n`` copies of
  ``x`` at compile time, so nested fixed repeats grow multiplicatively:
  ``(?:(?:(?:a{50}){50}){50}){50}`` is 6.25 million nodes (about 1.8 GB, compiled with no
  timeout). Measured on regex 2024 / CPython 3.11: 280-380 bytes and about 2 us per unrolled
  node, about 720 bytes for a capturing group; variable repeats (``{0,50}``, ``*``) are not
  unrolled. ``program_nodes`` counts the nodes with that rule.
- **The matcher's state.** A repeat of anything but a single character keeps backtracking
  state per iteration (measured 60-115 bytes per subject character), and every capturing group
  inside a repeat keeps its capture history (``regex``'s ``captures()``; 110-170 bytes per
  character and group, measured; ``(?:(?=(a))...{20}a)*`` on 200 000 characters ran out of
  memory). ``state_bytes_per_char`` gives an upper bound per subject character.

CPython's parse of the pattern (``_re_parser``, the same parse that validates it) is cheap:
its compile does not unroll.
"""

from __future__ import annotations

from typing import Any

from safe_eval.membrane.modules._re_parser import parse

try:  # CPython 3.11+
    from re import _constants as _c
except ImportError:  # pragma: no cover (3.10)
    import sre_constants as _c  # type: ignore[no-redef,unused-ignore]

__all__ = ["NODE_BYTES", "NODE_NS", "PatternCost", "pattern_cost"]

NODE_BYTES = 800  # per unrolled node (720 measured for a group, 380 for a class): an upper bound
NODE_NS = 2_500  # compile time per unrolled node (about 2 us measured)
_STATE_BYTES = 128  # per subject character under a repeat of a compound item (115 measured)
_HISTORY_BYTES = 256  # per subject character and capturing group inside a repeat (170 measured)

_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
_SINGLE = {_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.CATEGORY, _c.RANGE}


class PatternCost:
    """``nodes``: the compiled program's size in nodes; ``per_char``: matcher state in bytes
    per subject character (0 when no repeat keeps state)."""

    __slots__ = ("nodes", "per_char")

    def __init__(self, nodes: int, per_char: int) -> None:
        self.nodes = nodes
        self.per_char = per_char


def pattern_cost(pattern: str | bytes, flags: int) -> PatternCost:
    """The cost of ``pattern``; CPython's ``re.error`` for an invalid one, ``AmbiguousPattern``
    where CPython would warn (``_re_parser``)."""
    walk = _Walk()
    nodes = walk.items(parse(pattern, flags), False)
    per_char = (_STATE_BYTES if walk.stateful else 0) + _HISTORY_BYTES * walk.groups_in_repeats
    return PatternCost(nodes, per_char)


class _Walk:
    def __init__(self) -> None:
        self.stateful = False
        self.groups_in_repeats = 0

    def items(self, seq: Any, in_repeat: bool) -> int:
        return sum(self.item(op, av, in_repeat) for op, av in seq)

    def item(self, op: Any, av: Any, in_repeat: bool) -> int:
        if op in _REPEATS:
            low, high, sub = av
            single = len(sub) == 1 and sub[0][0] in _SINGLE
            if not single:
                self.stateful = True
            inner = self.items(sub, in_repeat or not single)
            # fixed repeats are unrolled; a variable one is its body once (plus the loop node)
            return inner * max(1, low) if low == high else inner + 1
        if op is _c.SUBPATTERN:
            group, _add, _del, sub = av
            if group is not None and in_repeat:
                self.groups_in_repeats += 1
            return 1 + self.items(sub, in_repeat)
        if op is _c.BRANCH:
            return 1 + sum(self.items(alt, in_repeat) for alt in av[1])
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            return 1 + self.items(av[1], in_repeat)
        if op is _c.GROUPREF_EXISTS:
            yes, no = av[1], av[2]
            return 1 + self.items(yes, in_repeat) + (self.items(no, in_repeat) if no else 0)
        if op is getattr(_c, "ATOMIC_GROUP", None):
            return 1 + self.items(av, in_repeat)
        return 1
