"""Guest subclasses of host containers inherit constructors and methods that loop in C over
their arguments (no guest code, no bytecode per element): every such call pays for its
arguments, whether the guest calls the class, ``super().__init__`` or ``super().update``.
Found by red-teaming the `classes` x `dos` families; each payload ran unbounded before."""

from __future__ import annotations

import pytest

from safe_eval import Limits, safe_eval
from safe_eval.errors import LimitExceeded, OpLimit

PAYLOADS = {
    "list_subclass": "class L(list):\n    pass\nL(range(10**9))",
    "tuple_subclass": "class T(tuple):\n    pass\nT(range(10**9))",
    "set_subclass": "class S(set):\n    pass\nS(range(10**9))",
    "counter_subclass": "import collections\nclass C(collections.Counter):\n    pass\nC(range(10**9))",
    "deque_subclass_maxlen0": "import collections\nclass Q(collections.deque):\n    pass\nQ(range(10**18), maxlen=0)",
    "super_init": "class L(list):\n    def __init__(self, it):\n        super().__init__(it)\nL(range(10**9))",
    "super_update": (
        "import collections\nclass C(collections.Counter):\n    def update(self, it):\n"
        "        super().update(it)\nc = C()\nc.update(range(10**9))"
    ),
    "starred_args": "class L(list):\n    pass\nL(*[range(10**9)])",
    "endless_iterator": "class L(list):\n    pass\nL(iter(int, 1))",
}


@pytest.mark.timeout(20)
@pytest.mark.parametrize("code", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_inherited_host_loops_hit_a_limit(code: str) -> None:
    with pytest.raises(LimitExceeded):
        safe_eval(code, limits=Limits(time=1.0))


LEGIT = {
    "list_subclass": ("class L(list):\n    def total(self):\n        return sum(self)\nL(range(5)).total()", 10),
    "super_init": (
        "class L(list):\n    def __init__(self, it):\n        super().__init__(x * 2 for x in it)\nL(range(3))",
        [0, 2, 4],
    ),
    "counter_subclass": (
        "import collections\nclass C(collections.Counter):\n    pass\nC('abca').most_common(1)",
        [("a", 2)],
    ),
    "dict_subclass_missing": (
        "class D(dict):\n    def __missing__(self, k):\n        return k * 2\nd = D(a=1)\n(d['a'], d[3])",
        (1, 6),
    ),
}


@pytest.mark.parametrize(("code", "expected"), LEGIT.values(), ids=LEGIT.keys())
def test_ordinary_subclasses_still_work(code: str, expected: object) -> None:
    assert safe_eval(code) == expected


def test_a_guest_defaultdict_subclass_pays_for_the_pairs_after_its_factory() -> None:
    # the factory goes in as it is; the pairs are priced as dict's constructor prices them
    # (a list of pairs C would insert whole: a generator would tick per item on its own)
    code = ("import collections\nclass D(collections.defaultdict):\n    pass\n"
            "pairs = [(1, 1)] * 10**6\nlen(D(int, pairs))")
    with pytest.raises(OpLimit):
        safe_eval(code, {}, limits={"ops": 10**5})
