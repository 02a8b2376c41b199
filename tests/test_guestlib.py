"""The guest standard library (safe_eval/guestlib) behaves as CPython's modules do: each
program's value (results and error messages) must equal plain CPython's."""

from __future__ import annotations

import ast

import pytest

from safe_eval import Evaluator, safe_eval


def cpython(code: str):
    tree = ast.parse(code)
    last = tree.body.pop()
    g: dict = {}
    exec(compile(tree, "<cpython>", "exec"), g)
    return eval(compile(ast.Expression(last.value), "<cpython>", "eval"), g)


PROGRAMS = {
    "copy_containers": (
        "import copy\nx = {'a': [1, (2, [3])], 'b': {4, 5}, 'c': (6, 7)}\ns = copy.copy(x)\nd = copy.deepcopy(x)\n"
        "(s == x, s is not x, s['a'] is x['a'], d == x, d['a'] is not x['a'], d['a'][1][1] is not x['a'][1][1],"
        " d['c'] is x['c'], copy.copy((1, 2)) == (1, 2), copy.deepcopy(frozenset({1})) == frozenset({1}))"),
    "copy_sharing_and_cycles": (
        "import copy\na = [1]\nc = [a, a, (a,)]\nd = copy.deepcopy(c)\nl = [1]\nl.append(l)\nm = copy.deepcopy(l)\n"
        "(d[0] is d[1], d[2][0] is d[0], d[0] is not a, m[1] is m, m is not l)"),
    "copy_guest_instances": (
        "import copy\nclass A:\n    def __init__(self):\n        self.v = [1, [2]]\n        self.w = 'w'\n"
        "class S:\n    __slots__ = ('p', 'q')\n    def __init__(self):\n        self.p = [1]\n        self.q = 2\n"
        "a = A()\nb = copy.copy(a)\nc = copy.deepcopy(a)\ns = copy.deepcopy(S())\n"
        "(type(b).__name__, b.v is a.v, c.v == a.v, c.v is not a.v, c.v[1] is not a.v[1], c.w, s.p, s.q)"),
    "copy_hooks": (
        "import copy\nclass H:\n    def __init__(self, n):\n        self.n = n\n"
        "    def __copy__(self):\n        return H(self.n + 1)\n    def __deepcopy__(self, memo):\n"
        "        return H(self.n + 10)\n(copy.copy(H(1)).n, copy.deepcopy(H(1)).n, copy.deepcopy([H(2)])[0].n)"),
    "copy_subclasses_and_exceptions": (
        "import copy\nclass L(list):\n    pass\nclass D(dict):\n    pass\nclass I(int):\n    pass\n"
        "class T(tuple):\n    pass\nclass E(ValueError):\n    pass\n"
        "l = copy.deepcopy(L([1, [2]]))\nd = copy.copy(D(a=1))\ni = copy.copy(I(7))\nt = copy.deepcopy(T((1, [2])))\n"
        "e = copy.deepcopy(E('m', 2))\n"
        "(type(l).__name__, l, type(d).__name__, d, type(i).__name__, i, type(t).__name__, t, type(e).__name__, e.args)"),
    "copy_namedtuple_dataclass_collections": (
        "import copy\nfrom collections import namedtuple, deque, defaultdict, Counter, OrderedDict\n"
        "from dataclasses import dataclass\nP = namedtuple('P', 'x y')\n@dataclass(frozen=True)\nclass F:\n    a: list\n"
        "p = copy.deepcopy(P(1, [2]))\nf = copy.deepcopy(F([1]))\n"
        "(p, type(p).__name__, repr(f), f == F([1]), copy.deepcopy(deque([1, [2]], 5)),"
        " copy.copy(defaultdict(list, a=[1])), copy.deepcopy(Counter('aab')), copy.copy(OrderedDict(a=1)))"),
    "total_ordering_from_lt": (
        "import functools\n@functools.total_ordering\nclass V:\n    def __init__(self, v):\n        self.v = v\n"
        "    def __eq__(self, o):\n        return self.v == o.v\n    def __lt__(self, o):\n        return self.v < o.v\n"
        "a, b = V(1), V(2)\n(a < b, a <= b, a > b, a >= b, b >= a, a <= V(1), a >= V(1), [x.v for x in sorted([b, a])])"),
    "total_ordering_from_gt_and_error": (
        "import functools\n@functools.total_ordering\nclass V:\n    def __init__(self, v):\n        self.v = v\n"
        "    def __eq__(self, o):\n        return self.v == o.v\n    def __gt__(self, o):\n        return self.v > o.v\n"
        "a, b = V(1), V(2)\ntry:\n    @functools.total_ordering\n    class N:\n        pass\n    err = 'none'\n"
        "except ValueError as e:\n    err = str(e)\n(a < b, a <= b, a >= b, b <= a, err)"),
    "wraps_and_update_wrapper": (
        "import functools\ndef deco(f):\n    @functools.wraps(f)\n    def inner(*a, **k):\n        return f(*a, **k) * 2\n"
        "    return inner\n@deco\ndef area(w, h):\n    return w * h\n"
        "def g():\n    pass\nfunctools.update_wrapper(g, area)\n"
        "(area(2, 3), area.__name__, area.__qualname__, area.__wrapped__(2, 3), g.__name__,"
        " functools.WRAPPER_ASSIGNMENTS[:4], functools.WRAPPER_UPDATES)"),
    "contextmanager_flow": (
        "from contextlib import contextmanager\nlog = []\n@contextmanager\ndef cm(tag):\n    log.append('enter ' + tag)\n"
        "    try:\n        yield tag.upper()\n    except KeyError:\n        log.append('handled')\n    finally:\n"
        "        log.append('exit ' + tag)\nwith cm('a') as v:\n    log.append(v)\nwith cm('b'):\n    raise KeyError('k')\n"
        "try:\n    with cm('c'):\n        raise ValueError('v')\nexcept ValueError as e:\n    log.append('passed ' + str(e))\n"
        "@contextmanager\ndef empty():\n    if False:\n        yield\ntry:\n    with empty():\n        pass\n"
        "except RuntimeError as e:\n    log.append(str(e))\n(log, cm.__name__)"),
    "closing": (
        "from contextlib import closing\nlog = []\nclass R:\n    def close(self):\n        log.append('closed')\n"
        "with closing(R()) as r:\n    log.append(type(r).__name__)\ntry:\n    with closing(R()):\n        raise KeyError(1)\n"
        "except KeyError:\n    log.append('raised')\nlog"),
    "dataclass_helpers": (
        "from dataclasses import dataclass, field, fields, asdict, astuple, replace, is_dataclass\n"
        "from collections import namedtuple\nNT = namedtuple('NT', 'a b')\n@dataclass\nclass In:\n    v: int\n"
        "@dataclass\nclass Out:\n    i: In\n    t: NT\n    d: dict\n    n: int = field(default=0, init=False)\n"
        "o = Out(In(1), NT(In(2), 3), {'k': In(4)})\ntry:\n    replace(o, n=1)\n    err = ''\nexcept (TypeError, ValueError) as e:\n    err = type(e).__name__ + ': ' + str(e)\n"
        "(asdict(o), astuple(o), [f.name for f in fields(Out)], is_dataclass(o), is_dataclass(Out), is_dataclass(1),"
        " replace(o, d={}).d, err, In(1) == Out(In(1), NT(1, 2), {}), In(1) != 5)"),
    "dataclass_frozen_inheritance_and_hash": (
        "from dataclasses import dataclass, FrozenInstanceError\n@dataclass(frozen=True)\nclass A:\n    x: int\n"
        "@dataclass(frozen=True)\nclass B(A):\n    y: int = 2\nb = B(1)\nout = []\ntry:\n    b.y = 5\n"
        "except FrozenInstanceError as e:\n    out.append(str(e))\n(repr(b), hash(b) == hash(B(1, 2)), b == B(1, 2), out,"
        " isinstance(FrozenInstanceError('x'), AttributeError))"),
    "dataclass_recursive_repr": (
        "from dataclasses import dataclass\n@dataclass\nclass Node:\n    v: int\n    nxt: object = None\n"
        "n = Node(1)\nn.nxt = n\nrepr(n)"),
    "statistics_plain_numbers": (
        "import statistics as s\nfrom fractions import Fraction\nfrom decimal import Decimal\n"
        "(s.mean([Fraction(1, 3), Fraction(2, 3)]), s.mean([Decimal('1.5'), Decimal('2.5')]), s.median_low(['b', 'a', 'c']),"
        " s.mode([(1, 2), (1, 2), (3,)]), s.multimode('aabbc'), s.variance([1, 2, 3, 4]), s.quantiles(range(1, 11), n=4))"),
    "statistics_refuses_what_cpython_cannot_convert": (
        "import statistics\ntry:\n    statistics.mean(['a', 'b'])\n    r = 'ran'\nexcept TypeError as e:\n    r = str(e)\nr"),
}


@pytest.mark.parametrize("code", list(PROGRAMS.values()), ids=list(PROGRAMS))
def test_program_matches_cpython(code):
    assert safe_eval(code, {}) == cpython(code)


def test_a_guest_dataclass_returned_to_the_host_works_with_the_host_dataclasses_helpers():
    import dataclasses

    ns: dict = {}
    safe_eval("from dataclasses import dataclass, field\n@dataclass\nclass P:\n    x: int\n"
              "    tags: list = field(default_factory=list)\np = P(1, ['a'])", ns)
    p = ns["p"]
    assert dataclasses.is_dataclass(p)
    assert [f.name for f in dataclasses.fields(p)] == ["x", "tags"]
    assert dataclasses.asdict(p) == {"x": 1, "tags": ["a"]}
    assert repr(dataclasses.replace(p, x=2)) == "P(x=2, tags=['a'])"


def test_the_guest_stdlib_of_one_evaluation_is_not_the_next_ones():
    ev = Evaluator()
    first = ev.eval("import copy\ncopy.deepcopy")
    second = ev.eval("import copy\ncopy.deepcopy")
    assert first is not second
    assert ev.eval("import copy\ncopy.deepcopy is copy.deepcopy") is True
