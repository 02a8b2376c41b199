"""The work of one C walk over nested containers that share parts.

``x = (1,)`` then ``x = (x, x)`` 80 times is 81 tuples in memory, but ``hash(x)``, ``x == y``,
``repr(x)`` and ``{x: 1}`` walk it as a tree of 2**80 nodes, in one C call the interpreter
cannot interrupt. ``expanded_nodes(obj)`` counts the nodes such a walk visits (a shared part
once per reference) in time linear in the *distinct* containers (memoised by identity), so
the walk can be priced before it starts; ``check_walk(obj)`` does that. It costs a type check
for flat data (the common case) and is only called where one C call walks guest data whole:
the ``hash`` builtin, the hash/comparison/text slots of builtin containers, ``repr``/``str``
of data, and the keys of dict and set displays. Comparisons and hashing done inside other C
loops (``==`` in ``list.index``, dict keys added by a C consumer) are not seen here: see
``docs/security-model.md`` (what the process sandbox is for).
"""

from __future__ import annotations

from typing import Any

from safe_eval.limits.budget import current_or_default

__all__ = ["check_key", "check_walk", "expanded_nodes"]

_NESTED = frozenset({tuple, list, frozenset, set, dict})
# distinct containers walked at most: past that the count is a lower bound (such a structure
# is as big in memory as it is to walk, so the memory limit bounds it)
NODE_CAP = 200_000
# walks shorter than this many nodes are free (microseconds of C work)
FREE_NODES = 1 << 16
_NS_PER_NODE = 30.0  # hash/== of a small tuple node, measured ~15-30 ns (CPython 3.11)


def _children(x: Any) -> Any:
    return (*x.keys(), *x.values()) if type(x) is dict else x


def _nested(x: Any) -> bool:
    """Does container ``x`` hold a container (else a walk of it is flat and linear)?"""
    for c in _children(x):
        if type(c) in _NESTED:
            return True
    return False


def expanded_nodes(obj: Any) -> int:
    """Nodes a C-level walk of ``obj`` visits, counting shared parts once per reference."""
    if type(obj) not in _NESTED:
        return 1
    if not _nested(obj):
        return 1 + len(obj)
    memo: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(obj, False)]
    while stack:
        x, done = stack.pop()
        if done:
            memo[id(x)] = 1 + sum(memo.get(id(c), 1) if type(c) in _NESTED else 1 for c in _children(x))
            continue
        if id(x) in memo:
            continue
        memo[id(x)] = 1  # in progress: a cycle counts once
        if len(memo) > NODE_CAP:
            return NODE_CAP
        stack.append((x, True))
        stack.extend((c, False) for c in _children(x) if type(c) in _NESTED and id(c) not in memo)
    return memo[id(obj)]


def check_key(key: tuple[Any, ...] | frozenset[Any]) -> None:
    """``check_walk`` for a tuple or frozenset about to be hashed (a dict or set display key):
    a flat key (the common case) costs one pass over its items."""
    for item in key:
        if type(item) in _NESTED:
            check_walk(key)
            return


def check_walk(*objs: Any) -> None:
    """Price one C walk over ``objs`` (the shortest bounds a comparison, which stops at the
    first difference); refuse it with ``TimeLimit`` when it would outlast the run."""
    nodes = min(expanded_nodes(o) for o in objs)
    if nodes > FREE_NODES:
        current_or_default().check_work(nodes * _NS_PER_NODE)
