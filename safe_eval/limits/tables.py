"""Bulk inserts of guest data into a hash table: one C call whose time depends on collisions.

``set(xs)``, ``frozenset(xs)``, ``{*xs}``, ``dict.fromkeys(xs)``, ``dict(pairs)``,
``Counter(xs)`` and the bulk set/dict methods insert every item of ``xs`` in one C loop with
no bytecode in between, so neither the op counter nor the watchdog can stop it. Its time is
not linear in ``len(xs)``: keys that share one hash value walk one probe chain, and inserting
``n`` of them costs ``n**2 / 2`` comparisons. Such keys are cheap to make: CPython's int hash
is ``x mod (2**61 - 1)`` (every multiple of the modulus hashes to 0), ``hash(-1) ==
hash(-2)``, a Fraction or Decimal hashes as the rational it equals, and the tuple hash is an
invertible mix of its items' hashes, so pairs of small ints with one tuple hash are found by
arithmetic. 20 000 such ints (160 KB) held one ``set()`` call for 6 s.

``keyed_source(x)`` is the one price of such a bulk insert, applied by every site above to
the source after its copy was priced (``guards.prepare``, ``iteration.consume``). A source
whose items provably spread over distinct hash values goes to C as it is; anything else is
fed through a ``TickingIterator``: each insert is then its own step (one op, and a bytecode
boundary where the watchdog's ``TimeLimit`` lands), so a colliding build stops with the run's
time limit instead of running to its end. The proof is one or three C passes over the items
(about the cost of the insert itself):

- text and bytes: their hashes are keyed per process (``sys.flags.hash_randomization``);
- ints (and bools) inside ``(-(2**61 - 1), 2**61 - 1)``: each hashes to itself (-1 to -2).

Anything else ticks (floats, big ints, tuples, Decimals, guest objects): no cheaper proof for
them was found (see ``_spread``), and a ticking insert costs about twice a plain one. Sources
already hashed (``set``, ``frozenset``, ``dict`` and its keys view) and ``bytes``/``str``
(small ints, single characters) pass: copying a table that was built one op per insert costs
no more than building it did. ``range`` sources are decided on their ends.
"""

from __future__ import annotations

import sys
from typing import Any

from safe_eval.limits.estimates import known_len
from safe_eval.limits.iteration import TickingIterator

__all__ = ["keyed_pairs", "keyed_source"]

_MODULUS = sys.hash_info.modulus
# at most this many items go to C unchecked: n**2 / 2 comparisons of them is noise. The worst
# comparison is of distinct but equal long strings inside tuples made to share one hash (the
# tuple hash is invertible): 32 items of 1 MB each cost about 20 ms in one call, 256 items
# 1.3 s (measured on 3.11), so the bound stays small; sources of text or small ints pass the
# proof below at any size
_TINY = 32

_HASHED_ALREADY: frozenset[type] = frozenset({set, frozenset, dict, type({}.keys()), bytes, bytearray})
_KEYED_HASH: frozenset[type] = frozenset(
    {str, bytes, bool, type(None)} if sys.flags.hash_randomization else {bool, type(None)}
)
_INTS: frozenset[type] = frozenset({int, bool})


def keyed_source(x: Any) -> Any:
    """``x`` as a C routine inserting each of its items into a hash table may receive it."""
    tp = type(x)
    if tp in _HASHED_ALREADY or (tp is str and sys.flags.hash_randomization):
        return x
    n = known_len(x)
    if n is None or n <= _TINY:
        return x  # unsized sources already tick (``prepare``/``consume``); tiny ones are cheap
    if tp is range:
        last = x.start + (n - 1) * x.step
        return x if -_MODULUS < min(x.start, last) and max(x.start, last) < _MODULUS else TickingIterator(x)
    # (``_spread`` runs no guest code and cannot raise here: exact containers, exact types)
    return x if _spread(x) else TickingIterator(x)


def keyed_pairs(x: Any) -> Any:
    """``x`` as ``dict(pairs)``/``dict.update(pairs)`` may receive it: the keys are the first
    items of the pairs (a list or tuple each); any other shape ticks."""
    n = known_len(x)
    if n is None or n <= _TINY:
        return x
    try:
        if set(map(type, x)) <= {tuple, list} and _spread(list(map(_first, x))):
            return x
    except Exception:
        pass
    return TickingIterator(x)


def _first(pair: Any) -> Any:
    return pair[0]


def _spread(xs: Any) -> bool:
    """The items of host container ``xs`` have distinct hash values (bar ``-1``/``-2`` and a few
    singletons): one C pass for text (``map(type)``), two more for small ints (``min``/``max``).
    Anything else ticks: counting its hash values first (``Counter(map(hash, xs))``, flat tuples'
    item types checked so no guest ``__hash__`` runs twice) measured 2-4x a plain ``set(xs)``
    of 100 000 floats or pairs, more than ticking costs (about 2x)."""
    kinds = set(map(type, xs))
    if kinds <= _KEYED_HASH:
        return True
    if kinds <= _INTS:
        return bool(-_MODULUS < min(xs) and max(xs) < _MODULUS)
    return False
