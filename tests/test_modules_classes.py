"""Guest-safe class builders: dataclasses, namedtuple / typing.NamedTuple, enum, abc.
Each program's value (results and error messages) must equal plain CPython's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from safe_eval import safe_eval
from safe_eval.errors import GuestError, PolicyViolation

CONFORMANCE = Path(__file__).parent / "data" / "conformance"


def cpython(code: str):
    tree = ast.parse(code)
    last = tree.body.pop()
    g: dict = {}
    exec(compile(tree, "<cpython>", "exec"), g)
    return eval(compile(ast.Expression(last.value), "<cpython>", "eval"), g)


def _error_of(call: str) -> str:
    # a guest expression whose value is the error text of ``call`` (CPython's messages compared)
    return f"(lambda: {call})"


PROGRAMS = {
    "dataclass_basic": "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    y: int = 2\n(repr(P(1)), P(1) == P(1, 2), P(1) != P(2), P.__hash__ is None)",
    "dataclass_frozen_hash": "from dataclasses import dataclass, FrozenInstanceError\n@dataclass(frozen=True)\nclass P:\n    x: int\n    y: int = 0\np = P(1)\nmsgs = []\nfor act in ('set', 'del'):\n    try:\n        if act == 'set':\n            p.x = 2\n        else:\n            del p.y\n    except FrozenInstanceError as e:\n        msgs.append(str(e))\n(msgs, hash(p) == hash(P(1)), len({P(1), P(1), P(2)}))",
    "dataclass_order": "from dataclasses import dataclass, field\n@dataclass(order=True)\nclass V:\n    major: int\n    minor: int = 0\n    note: str = field(default='', compare=False)\n([repr(v) for v in sorted([V(1, 2), V(0, 9), V(1, 0, 'x')])], V(1) < V(1, 1), V(2) >= V(1, 5))",
    "dataclass_post_init_and_init_false": "from dataclasses import dataclass, field\n@dataclass\nclass R:\n    w: float\n    h: float\n    area: float = field(init=False)\n    def __post_init__(self):\n        self.area = self.w * self.h\n(R(2, 3).area, repr(R(1, 1)))",
    "dataclass_repr_false_and_factory": "from dataclasses import dataclass, field\n@dataclass\nclass C:\n    items: list = field(default_factory=list)\n    secret: str = field(default='s', repr=False)\na, b = C(), C()\na.items.append(1)\n(repr(a), b.items, a.items is not b.items)",
    "dataclass_inheritance": "from dataclasses import dataclass\n@dataclass\nclass Base:\n    x: int\n    y: int = 0\n@dataclass\nclass Child(Base):\n    z: int = 5\n(repr(Child(1, 2, 3)), repr(Child(1)), Child(1) == Base(1))",
    "dataclass_kw_only": "from dataclasses import dataclass, field\n@dataclass(kw_only=True)\nclass K:\n    a: int\n    b: int = 1\n@dataclass\nclass M:\n    a: int\n    b: int = field(default=0, kw_only=True)\n(repr(K(a=1)), repr(M(1, b=2)))",
    "dataclass_user_methods_kept": "from dataclasses import dataclass\n@dataclass\nclass U:\n    x: int\n    def __repr__(self):\n        return 'U!'\n    def __eq__(self, other):\n        return True\n(repr(U(1)), U(1) == 5)",
    "dataclass_asdict_nested": "from dataclasses import dataclass, asdict, astuple, replace, fields\n@dataclass\nclass In:\n    v: int\n@dataclass\nclass Out:\n    inner: In\n    tags: list\no = Out(In(1), [In(2)])\n(asdict(o), astuple(o), repr(replace(o, tags=[])), [f.name for f in fields(o)])",
    "dataclass_unsafe_hash_and_eq_false": "from dataclasses import dataclass\n@dataclass(unsafe_hash=True)\nclass H:\n    x: int\n@dataclass(eq=False)\nclass E:\n    x: int\n(hash(H(1)) == hash(H(1)), E(1) == E(1), E.__hash__ is object.__hash__)",
    "dataclass_match_args": "from dataclasses import dataclass\n@dataclass\nclass Pt:\n    x: int\n    y: int\ndef where(p):\n    match p:\n        case Pt(0, y):\n            return f'y-axis {y}'\n        case Pt(x, 0):\n            return f'x-axis {x}'\n        case _:\n            return 'else'\n[where(Pt(0, 3)), where(Pt(2, 0)), where(Pt(1, 1))]",
    "dataclass_init_errors": "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    y: int\n    z: int = 0\nout = []\nfor args, kw in [((), {}), ((1,), {}), ((1, 2, 3, 4), {}), ((1, 2), {'q': 1}), ((1, 2), {'x': 1})]:\n    try:\n        P(*args, **kw)\n    except TypeError as e:\n        out.append(str(e))\nout",
    "dataclass_errors_at_definition": "from dataclasses import dataclass, field\nout = []\ntry:\n    @dataclass\n    class A:\n        x: list = []\nexcept ValueError as e:\n    out.append(str(e))\ntry:\n    @dataclass\n    class B:\n        x: int = 0\n        y: int\nexcept TypeError as e:\n    out.append(str(e))\ntry:\n    field(default=1, default_factory=list)\nexcept ValueError as e:\n    out.append(str(e))\nout",
    "namedtuple_factory": "from collections import namedtuple\nP = namedtuple('P', 'x, y', defaults=[0])\np = P(1)\n(p, p._replace(y=5), p._asdict(), P._make([3, 4]), P._fields, P._field_defaults, p.x, p[1], tuple(p), isinstance(p, tuple), repr(P(x=1, y=2)))",
    "namedtuple_errors": "from collections import namedtuple\nP = namedtuple('P', 'x y')\nout = []\nfor f in (lambda: P(1), lambda: P(1, 2, 3), lambda: P(1, z=2), lambda: P(1, 2)._replace(q=1), lambda: namedtuple('Q', 'a a'), lambda: namedtuple('Q', '_a'), lambda: namedtuple('Q', 'class')):\n    try:\n        f()\n    except (TypeError, ValueError) as e:\n        out.append(str(e))\nout",
    "namedtuple_rename": "from collections import namedtuple\nP = namedtuple('P', ['a', 'a', 'def', '_x'], rename=True)\nP._fields",
    "typing_namedtuple_class": "from typing import NamedTuple\nclass Emp(NamedTuple):\n    name: str\n    dept: str = 'eng'\n    def tag(self):\n        return self.name + '@' + self.dept\ne = Emp('ann')\n(e, e.tag(), e._replace(dept='ops'), Emp._fields, e == ('ann', 'eng'), sorted([Emp('b'), Emp('a')]))",
    "typing_namedtuple_functional": "from typing import NamedTuple\nP = NamedTuple('P', [('x', int), ('y', int)])\n(P(1, 2), P._fields)",
    "enum_class": "from enum import Enum\nclass Color(Enum):\n    RED = 1\n    GREEN = 2\n    BLUE = 3\n    def label(self):\n        return self.name.title()\n    @property\n    def warm(self):\n        return self is Color.RED\n(Color.RED.name, Color(2).name, [c.value for c in Color], Color.RED is Color['RED'], Color.BLUE.label(), Color.RED.warm, repr(Color.GREEN), str(Color.GREEN), len(Color), Color.RED in Color)",
    "enum_auto_int_str_flag": "from enum import Enum, IntEnum, Flag, auto, unique\n@unique\nclass Lvl(IntEnum):\n    LOW = auto()\n    HIGH = auto()\nclass Perm(Flag):\n    R = auto()\n    W = auto()\n    X = auto()\nrw = Perm.R | Perm.W\n(Lvl.HIGH > Lvl.LOW, Lvl.HIGH + 0, sorted([Lvl.HIGH, Lvl.LOW])[0].name, Perm.W in rw, Perm.X in rw, rw.value, bool(Perm(0)))",
    "enum_functional_api": "from enum import Enum\nE = Enum('E', 'a b c')\nF = Enum('F', [('x', 10), ('y', 20)])\n([e.name for e in E], E.b.value, F(20).name, F.x.value)",
    "enum_errors": "from enum import Enum\nclass C(Enum):\n    A = 1\nout = []\ntry:\n    C(5)\nexcept ValueError as e:\n    out.append(str(e))\ntry:\n    C['Z']\nexcept KeyError as e:\n    out.append(str(e))\nout",
    "enum_unique_error": "from enum import Enum, unique\ntry:\n    @unique\n    class D(Enum):\n        A = 1\n        B = 1\n    r = 'ok'\nexcept ValueError as e:\n    r = str(e)\nr",
    "abc_abstract": "from abc import ABC, abstractmethod\nclass Base(ABC):\n    @abstractmethod\n    def run(self): ...\n    @abstractmethod\n    def stop(self): ...\nclass Half(Base):\n    def run(self): return 'ran'\nclass Full(Half):\n    def stop(self): return 'stopped'\nout = []\nfor cls in (Base, Half):\n    try:\n        cls()\n    except TypeError as e:\n        out.append(str(e))\n(out, Full().run(), Full().stop(), isinstance(Full(), Base))",
    "abc_abstract_property_classmethod": "from abc import ABC, abstractmethod\nclass S(ABC):\n    @property\n    @abstractmethod\n    def size(self): ...\n    @classmethod\n    @abstractmethod\n    def make(cls): ...\nclass T(S):\n    @property\n    def size(self): return 3\n    @classmethod\n    def make(cls): return cls()\ntry:\n    S()\n    r = 'made'\nexcept TypeError as e:\n    r = str(e)\n(r, T.make().size)",
    # a guest subclass of a collections class is built with that class's own arguments
    "defaultdict_subclass": (
        "import collections\nclass D(collections.defaultdict):\n    pass\nd = D(int)\nd['a'] += 1\n"
        "e = D(list, [(1, [2])], x=[3])\ne[5].append(0)\n(dict(d), repr(e), repr(D()), repr(D(None, {1: 2})))"),
    "counter_ordereddict_deque_subclasses": (
        "import collections\nclass C(collections.Counter):\n    pass\nclass O(collections.OrderedDict):\n    pass\n"
        "class Q(collections.deque):\n    pass\n(repr(C('abca')), repr(O([(1, 2)], z=3)), repr(Q([1, 2, 3], 2)))"),
}


@pytest.mark.parametrize("code", list(PROGRAMS.values()), ids=list(PROGRAMS))
def test_program_matches_cpython(code):
    assert safe_eval(code, {}) == cpython(code)


@pytest.mark.parametrize("name", ["class__dataclass.py", "class__dataclass_frozen.py", "class__enum.py",
                                  "class__abc_abstract.py", "collection__collections_module.py",
                                  "misc__typing_annotations.py", "with__multiple_and_contextlib.py"])
def test_conformance_programs_of_these_modules(name):
    code = (CONFORMANCE / name).read_text()
    assert safe_eval(code, {}) == cpython(code)


HOSTILE = {
    # field names are dunders: a dataclass field named __class__ would let __init__ swap the class
    "dunder_field": ("from dataclasses import dataclass\n@dataclass\nclass A:\n    __class__: int = 0", None),
    "dunder_field_init": ("from dataclasses import dataclass\n@dataclass\nclass A:\n    __init__: int = 0", None),
    "field_default_is_host_function": ("from dataclasses import dataclass, field\nimport math\n@dataclass\nclass A:\n    f: object = field(default_factory=lambda: math.floor)\nA().f(2.5)", 2),
    "factory_raises": ("from dataclasses import dataclass, field\ndef bad():\n    raise ValueError('no')\n@dataclass\nclass A:\n    x: list = field(default_factory=bad)\ntry:\n    A()\n    r = 'made'\nexcept ValueError as e:\n    r = str(e)\nr", "no"),
    "decorate_a_function": ("from dataclasses import dataclass\ndef f():\n    pass\ndataclass(f)", None),
    "decorate_host_type": ("from dataclasses import dataclass\ndataclass(int)", None),
    "namedtuple_name_injection": ("from collections import namedtuple\nnamedtuple('P', ['x', 'y); import os; (z'])", None),
    "namedtuple_typename_injection": ("from collections import namedtuple\nnamedtuple('P(): pass\\nimport os\\nclass Q', 'x')", None),
    "namedtuple_module_kw_is_inert": ("from collections import namedtuple\nP = namedtuple('P', 'x', module='os')\nP(1).x", 1),
    "enum_functional_hostile_names": ("from enum import Enum\nE = Enum('E', ['__class__', 'mro'])\nlen(E)", None),
}


@pytest.mark.parametrize("code,expected", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_class_builder_input(code, expected):
    if expected is None:
        with pytest.raises((GuestError, PolicyViolation)):
            safe_eval(code, {})
    else:
        assert safe_eval(code, {}) == expected
