"""The exact op counts of loops, comprehensions, calls and builtins (invariant 5).

Every budget tick is pinned here: deleting the ``for`` loop's tick, the call tick or a
builtin's bulk charge makes the row named after it fail. The counts are the model: one op per
loop iteration (``for``, ``while``, comprehension and generator steps), one per call (guest
or host), and one per element a host builtin consumes (charged up front for sized builtin
containers). If a change to the interpreter moves a count on purpose, update the row and say
why in the commit.
"""

from __future__ import annotations

import pytest

from safe_eval import Evaluator

OP_COUNTS = [
    ("nothing", "None", 0),
    ("for-loop-10", "for i in range(10):\n    pass", 11),
    ("for-loop-100", "for i in range(100):\n    pass", 101),
    ("for-loop-nested-10x10", "for i in range(10):\n    for j in range(10):\n        pass", 121),
    ("while-loop-10", "i = 0\nwhile i < 10:\n    i += 1", 10),
    ("list-comprehension-10", "[i for i in range(10)]", 11),
    ("set-comprehension-10", "{i for i in range(10)}", 11),
    ("dict-comprehension-10", "{i: i for i in range(10)}", 11),
    ("generator-expression-10", "list(i for i in range(10))", 22),
    ("guest-call-10", "def f():\n    return 1\nfor i in range(10):\n    f()", 21),
    ("guest-recursion-10", "def f(n):\n    return 0 if n == 0 else f(n - 1)\nf(10)", 11),
    ("host-call-10", "for i in range(10):\n    len('a')", 21),
    ("host-method-call-10", "x = []\nfor i in range(10):\n    x.append(i)", 21),
    ("builtin-sum-1000", "sum(range(1000))", 1002),
    ("builtin-sorted-1000", "sorted(range(1000))", 1002),
    ("builtin-list-1000", "list(range(1000))", 1002),
    ("builtin-max-key-callback-100", "max(range(100), key=bytearray)", 202),
    ("str-join-100", "','.join(['a'] * 100)", 114),
    # the lazy itertools pay for the items taken, not for their whole input up front
    ("islice-3-of-a-million", "import itertools\nlist(itertools.islice(range(10**6), 3))", 9),
    ("islice-skipping-to-the-end", "import itertools\nsum(itertools.islice(range(10_000), 9_998, None))", 10_005),
    ("takewhile-3-of-a-million", "import itertools\nlist(itertools.takewhile(lambda x: x < 3, range(10**6)))", 14),
    ("chain-of-two-ranges", "import itertools\nlist(itertools.chain(range(3), range(10**6, 10**6 + 2)))", 9),
]


# what a host C loop inside a lazy itertools iterator pulls from a long input still ticks
@pytest.mark.parametrize("code", [
    "next(itertools.dropwhile(bool, range(1, 10**12)))",
    "next(itertools.filterfalse(bool, range(1, 10**12)))",
    "next(itertools.islice(range(10**12), 10**11, None))",
    "next(itertools.compress(range(10**12), itertools.repeat(0)))",
])
def test_a_lazy_itertools_search_through_a_long_input_stops_at_the_ops_limit(code):
    from safe_eval.errors import OpLimit

    with pytest.raises(OpLimit):
        Evaluator().run("import itertools\n" + code, limits={"ops": 100_000})


@pytest.mark.parametrize(("code", "ops"), [(c, n) for _, c, n in OP_COUNTS], ids=[i for i, _, _ in OP_COUNTS])
def test_op_count(code, ops):
    assert Evaluator().run(code).ops == ops
