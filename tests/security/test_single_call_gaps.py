"""Invariant 8: one C call over guest data is priced before it starts where a cheap check
exists: a nested container that shares its parts (81 tuples in memory, 2**80 nodes to walk)
reaching ``hash``, a comparison slot, ``repr``/``str`` or a dict/set display key. The gaps
that remain are listed in docs/security-model.md (what the process sandbox is for)."""

from __future__ import annotations

import pytest

from safe_eval import safe_eval
from safe_eval.errors import MemoryLimit, TimeLimit

SHARED = "x = (1,)\ny = (1,)\nfor i in range(80):\n    x = (x, x)\n    y = (y, y)\n"
SHARED_LIST = "x = [1]\nfor i in range(80):\n    x = [x, x]\n"

def _shared(depth: int) -> tuple[object, ...]:
    x: tuple[object, ...] = (1,)
    for _ in range(depth):
        x = (x, x)
    return x


ATTACKS = [
    ("hash-builtin", SHARED + "hash(x)", TimeLimit),
    ("hash-slot", SHARED + "x.__hash__()", TimeLimit),
    ("eq-slot", SHARED + "x.__eq__(y)", TimeLimit),
    ("lt-slot", SHARED + "x.__lt__(y)", TimeLimit),
    ("dict-display-key", SHARED + "{x: 1}", TimeLimit),
    ("set-display-item", SHARED + "{x}", TimeLimit),
    ("repr", SHARED + "repr(x)", MemoryLimit),
    ("str", SHARED + "str(x)", MemoryLimit),
    ("repr-slot", SHARED + "x.__repr__()", MemoryLimit),
    ("f-string", SHARED + "f'{x}'", MemoryLimit),
    ("list-repr", SHARED_LIST + "repr(x)", MemoryLimit),
    ("list-eq-slot", SHARED_LIST + "y = [1]\nfor i in range(80):\n    y = [y, y]\nx.__eq__(y)", TimeLimit),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("code", "limit"), [(c, lim) for _, c, lim in ATTACKS], ids=[i for i, _, _ in ATTACKS])
def test_a_walk_over_an_exponentially_shared_container_is_priced_before_it_starts(code, limit):
    with pytest.raises(limit):
        safe_eval(code, {}, limits={"time": 2.0})


@pytest.mark.parametrize(("code", "expected"), [
    ("x = (1,)\nfor i in range(10):\n    x = (x, x)\nhash(x) == hash(x)", True),
    ("x = (1,)\nfor i in range(10):\n    x = (x, x)\nlen(repr(x))", len(repr(_shared(10)))),
    ("x = (1,)\nfor i in range(10):\n    x = (x, x)\nlen({x: 1, (x, 2): 2})", 2),
    ("d = {(i, (i,)): i for i in range(1000)}\nlen({(1, (1,)), (2, (2,))}) + len(d)", 1002),
    ("x = []\nx.append(x)\nrepr(x)", "[[...]]"),
], ids=["hash-small-shared", "repr-small-shared", "dict-key-small-shared", "many-small-keys", "cycle"])
def test_ordinary_nested_data_is_not_refused(code, expected):
    assert safe_eval(code, {}) == expected
