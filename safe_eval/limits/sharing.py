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

What the walk can see is an allowlist (``children``): the builtin containers a C walk
descends into, by their exact type *or their builtin base* (a guest ``class T(tuple)``, a
``namedtuple``, ``Counter``/``OrderedDict``/``defaultdict`` are their base's walk, read with
the base's own C iteration so no guest code runs), the dict views, ``deque``, ``slice``
(hashed and compared by its parts) and exceptions (``repr`` walks their ``args``). Anything
else is a leaf: a guest object's own ``__hash__``/``__eq__``/``__repr__`` is guest code the
budget prices as it runs; a host type outside the allowlist (``functools.partial``'s repr of
its arguments) is the gap named in ``docs/security-model.md``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from safe_eval.limits.budget import current_or_default

__all__ = ["FLAT", "FREE_KEYS", "check_key", "check_walk", "children", "expanded_nodes", "keyed"]

# Types a walk never descends into, tested first: flat data costs one set lookup an item.
FLAT: frozenset[type] = frozenset({int, float, str, bytes, bool, type(None), complex, bytearray, range})
# keys ``keyed`` passes without a look (a slice is hashed by nothing: lists slice it); call
# sites test it inline first (``d[i]`` is the hot case)
FREE_KEYS: frozenset[type] = FLAT | {slice}
# distinct containers walked at most: past that the count is a lower bound (such a structure
# is as big in memory as it is to walk, so the memory limit bounds it)
NODE_CAP = 200_000
# walks shorter than this many nodes are free (microseconds of C work)
FREE_NODES = 1 << 16
_NS_PER_NODE = 30.0  # hash/== of a small tuple node, measured ~15-30 ns (CPython 3.11)

Children = Callable[[Any], Iterable[Any]]


def _dict_items(x: Any) -> tuple[Any, ...]:
    return (*dict.keys(x), *dict.values(x))


def _slice_parts(x: slice) -> tuple[Any, ...]:
    return (x.start, x.stop, x.step)


_ARGS = BaseException.__dict__["args"]


def _exception_args(x: BaseException) -> Any:
    return _ARGS.__get__(x, type(x))


def _itself(x: Any) -> Any:
    return x


def _pairs(x: Any) -> list[Any]:
    # the keys and values, not the pair tuples the view makes afresh per item (their ids
    # would not stay unique through the walk)
    return [part for pair in x for part in pair]


# exact type -> how its children are read (iterating these runs no guest code)
_EXACT: dict[type, Children] = {
    tuple: _itself,
    list: _itself,
    set: _itself,
    frozenset: _itself,
    dict: _dict_items,
    deque: _itself,
    type({}.keys()): _itself,
    type({}.values()): _itself,
    type({}.items()): _pairs,
    slice: _slice_parts,
}
# builtin base -> how a subclass instance's children are read: the base's C iteration, never
# the subclass's (a guest ``__iter__`` is not what ``tuple.__hash__`` walks)
_BASES: dict[type, Children] = {
    tuple: tuple.__iter__,
    list: list.__iter__,
    set: set.__iter__,
    frozenset: frozenset.__iter__,
    dict: _dict_items,
    deque: deque.__iter__,
    BaseException: _exception_args,
}


def _walker(tp: type) -> Children | None:
    fn = _EXACT.get(tp)
    if fn is not None or tp in FLAT:
        return fn
    for base in tp.__mro__[1:]:
        fn = _BASES.get(base)
        if fn is not None:
            return fn
    return None


def children(x: Any) -> Iterable[Any] | None:
    """The nodes a C walk of ``x`` visits next, or None for a leaf (see the module docstring)."""
    fn = _EXACT.get(type(x)) or _walker(type(x))
    return None if fn is None else fn(x)


def _inner(c: Any) -> bool:
    tc = type(c)
    return tc in _EXACT or (tc not in FLAT and _walker(tc) is not None)


def _flat_count(items: Iterable[Any]) -> int | None:
    """The number of ``items``, or None when one of them is a container (a nested walk)."""
    n = 0
    for c in items:
        if type(c) not in FLAT and _inner(c):
            return None
        n += 1
    return n


def expanded_nodes(obj: Any) -> int:
    """Nodes a C-level walk of ``obj`` visits, counting shared parts once per reference."""
    top = children(obj)
    if top is None:
        return 1
    flat = _flat_count(top)
    if flat is not None:
        return 1 + flat
    memo: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(obj, False)]
    while stack:
        x, done = stack.pop()
        if done:
            memo[id(x)] = 1 + sum(memo.get(id(c), 1) if _inner(c) else 1 for c in children(x) or ())
            continue
        if id(x) in memo:
            continue
        memo[id(x)] = 1  # in progress: a cycle counts once
        if len(memo) > NODE_CAP:
            return NODE_CAP
        stack.append((x, True))
        stack.extend((c, False) for c in children(x) or () if _inner(c) and id(c) not in memo)
    return memo[id(obj)]


def check_key(key: Any) -> None:
    """``check_walk`` for a key about to be hashed (a dict or set display key): a flat key
    (the common case) costs one pass over its items."""
    items = children(key)
    if items is None:
        return
    for item in items:
        if type(item) not in FLAT and _inner(item):
            check_walk(key)
            return


def keyed(key: Any) -> Any:
    """``key`` about to be hashed or compared whole in one C call by a subscript (``d[k]``,
    ``d[k] = v``, ``del d[k]``) or an ``in`` test, priced first (``check_key``): ``d[x]``
    with ``x`` a tuple nested 80 deep over shared parts hashes 2**80 nodes. Returns ``key``.
    An int, str or slice (nearly every subscript) costs one set lookup."""
    tk = type(key)
    if tk in FREE_KEYS:
        return key
    if tk is tuple and FLAT.issuperset(map(type, key)):  # a flat tuple (``memo[i, j]``): no walk
        return key
    check_key(key)
    return key


def check_walk(*objs: Any) -> None:
    """Price one C walk over ``objs`` (the shortest bounds a comparison, which stops at the
    first difference); refuse it with ``TimeLimit`` when it would outlast the run."""
    nodes = min(expanded_nodes(o) for o in objs)
    if nodes > FREE_NODES:
        current_or_default().check_work(nodes * _NS_PER_NODE)
