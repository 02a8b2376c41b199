"""Invariant 8 (single C calls over shared containers): a C walk over nested containers that
share parts (``x = (x, x)`` 22 times: 23 tuples, 2**23 nodes to walk) is priced before it
starts, whatever the containers' types are: the builtin containers by their exact type or
their builtin base (guest subclasses, ``Counter``/``OrderedDict``), the dict
views, ``deque``, ``slice`` and exceptions (``limits/sharing.py``, ``children``).

Each tree here is small enough that an unpriced walk finishes in a fraction of a second (so
removing the guard fails the test instead of hanging it); priced, the hash and comparison
walks cost more ops than the budget holds and the text walks more memory than the limit."""

from __future__ import annotations

import pytest

from safe_eval import safe_exec
from safe_eval.errors import MemoryLimit, OpLimit

SHARED = "x = (1,)\nfor i in range(22):\n    x = (x, x)\n"
LIMITS = {"ops": 10**6, "time": 60.0, "memory": 256 * 2**20}
TEXT_LIMITS = {"ops": 10**7, "time": 60.0, "memory": 4 * 2**20}

WALKS = [
    ("hash-of-a-guest-tuple-subclass", "class T(tuple): pass\nhash(T((x,)))"),
    ("hash-of-guest-tuple-subclasses-all-the-way-down",
     "class T(tuple): pass\nt = T((1,))\nfor i in range(22):\n    t = T((t, t))\nhash(t)"),
    ("hash-of-a-frozenset-subclass", "class F(frozenset): pass\nf = F([1])\nf.__hash__()\nhash(F([x]))"),
    ("hash-of-a-slice", "hash(slice(x, x))"),
    ("hash-slot-of-a-tuple-subclass", "class T(tuple): pass\nT((x,)).__hash__()"),
    ("eq-slot-of-list-subclasses", "class L(list): pass\nL([x]).__eq__(L([x]))"),
    ("eq-slot-of-a-tuple-holding-a-subclass", "class T(tuple): pass\n(T((x,)),).__eq__((T((x,)),))"),
    ("dict-display-key-tuple-subclass", "class T(tuple): pass\n{T((x,)): 1}"),
    ("set-display-item-tuple-subclass", "class T(tuple): pass\n{T((x,))}"),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("code", [c for _, c in WALKS], ids=[i for i, _ in WALKS])
def test_a_shared_tree_hidden_in_a_subclass_or_view_is_priced_before_hashing(code):
    with pytest.raises(OpLimit, match="too many operations"):
        safe_exec(SHARED + code, {}, limits=LIMITS)


TEXTS = [
    ("repr-of-a-dict-subclass", "class D(dict): pass\nrepr(D(a=x))"),
    ("repr-of-a-counter", "import collections\nrepr(collections.Counter({x: 1}))"),
    ("repr-of-an-ordered-dict", "import collections\nrepr(collections.OrderedDict(a=x))"),
    ("repr-of-a-keys-view", "repr({x: 1}.keys())"),
    ("repr-of-a-values-view", "repr({1: x}.values())"),
    ("repr-of-an-items-view", "repr({1: x}.items())"),
    ("repr-of-a-deque", "import collections\nrepr(collections.deque([x]))"),
    ("repr-of-an-exception", "repr(ValueError(x))"),
    ("repr-of-a-guest-exception", "class E(Exception): pass\nrepr(E(x, 1))"),
    ("str-of-a-list-subclass", "class L(list): pass\nstr(L([x]))"),
    ("fstring-of-a-list-subclass", "class L(list): pass\nf'{L([x])}'"),
    ("repr-slot-of-a-list-subclass", "class L(list): pass\nL([x]).__repr__()"),
    ("percent-format-of-a-list-subclass", "class L(list): pass\n'%s' % (L([x]),)"),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("code", [c for _, c in TEXTS], ids=[i for i, _ in TEXTS])
def test_the_text_of_a_shared_tree_hidden_in_a_subclass_or_view_is_priced_before_it_is_built(code):
    with pytest.raises(MemoryLimit, match="allocation too large"):
        safe_exec(SHARED + code, {}, limits=TEXT_LIMITS)


SAME = [
    ("hash-tuple-subclass", "class T(tuple): pass\nr = hash(T((1, (2, 3)))) == hash((1, (2, 3)))"),
    ("repr-views-and-deque",
     "import collections\nd = {1: (2, 3)}\nr = (repr(d.keys()), repr(d.values()), repr(d.items()),"
     " repr(collections.deque([(1,), [2]])), repr(ValueError((1, 2))))"),
    ("repr-subclasses",
     "import collections\nclass L(list): pass\nclass D(dict): pass\n"
     "r = (repr(L([1, (2,)])), repr(D(a=[1])), repr(collections.Counter('aab')))"),
    ("display-keys", "class T(tuple): pass\nr = sorted({T((1, (2,))): 1, (3, (4,)): 2}.values())"),
    ("self-containing-list", "a = [1]\na.append(a)\nr = repr(a)"),
    ("slice-eq", "r = slice(1, (2, 3)) == slice(1, (2, 3))"),
]


@pytest.mark.parametrize("code", [c for _, c in SAME], ids=[i for i, _ in SAME])
def test_priced_walks_give_cpythons_answers(code):
    expected: dict[str, object] = {}
    exec(code, expected)  # the reference: CPython itself
    ns: dict[str, object] = {}
    safe_exec(code, ns)
    assert ns["r"] == expected["r"]
