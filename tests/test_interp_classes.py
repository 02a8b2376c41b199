"""Guest classes: CPython behaviour for what LLM code uses; the class model stays closed."""

from __future__ import annotations

import pytest
from _interp_diff import same_outcome

from safe_eval import GuestError, PolicyViolation, safe_eval

PROGRAMS = {
    "inheritance_and_super": """
class Base:
    def __init__(self, x):
        self.x = x
    def describe(self):
        return f"Base({self.x})"
class Child(Base):
    def __init__(self, x, y):
        super().__init__(x)
        self.y = y
    def describe(self):
        return "Child:" + super().describe() + str(self.y)
Child(1, 2).describe()
""",
    "diamond_mro": """
class A:
    def who(self): return ["A"]
class B(A):
    def who(self): return ["B"] + super().who()
class C(A):
    def who(self): return ["C"] + super().who()
class D(B, C):
    def who(self): return ["D"] + super().who()
(D().who(), [k.__name__ for k in D.__mro__])
""",
    "property_classmethod_staticmethod": """
class Temp:
    scale = "C"
    def __init__(self, c): self._c = c
    @property
    def c(self): return self._c
    @c.setter
    def c(self, v):
        if v < -273.15: raise ValueError("too cold")
        self._c = v
    @classmethod
    def freezing(cls): return cls(0)
    @staticmethod
    def to_f(c): return c * 9 / 5 + 32
t = Temp.freezing(); t.c = 100
(t.c, Temp.to_f(t.c), Temp.scale)
""",
    "dunders": """
class V:
    def __init__(self, x, y): self.x, self.y = x, y
    def __add__(self, o): return V(self.x + o.x, self.y + o.y)
    def __mul__(self, k): return V(self.x * k, self.y * k)
    __rmul__ = __mul__
    def __eq__(self, o): return (self.x, self.y) == (o.x, o.y)
    def __hash__(self): return hash((self.x, self.y))
    def __lt__(self, o): return (self.x, self.y) < (o.x, o.y)
    def __len__(self): return 2
    def __iter__(self): return iter((self.x, self.y))
    def __getitem__(self, i): return (self.x, self.y)[i]
    def __bool__(self): return bool(self.x or self.y)
    def __repr__(self): return f"V({self.x}, {self.y})"
    def __contains__(self, v): return v in (self.x, self.y)
vs = sorted([V(2, 1), V(1, 5)])
(vs, V(1, 2) + V(3, 4), 2 * V(1, 1), len(V(0, 0)), list(V(7, 8)), V(3, 4)[1], bool(V(0, 0)),
 3 in V(3, 4), {V(1, 1): "a"}[V(1, 1)])
""",
    "callable_and_str": """
class Adder:
    def __init__(self, n): self.n = n
    def __call__(self, x): return x + self.n
    def __str__(self): return f"Adder+{self.n}"
a = Adder(3)
(a(4), str(a), list(map(a, [1, 2])))
""",
    "class_attributes_and_instance_shadowing": """
class K:
    count = 0
    def __init__(self):
        K.count += 1
        self.id = K.count
ks = [K() for _ in range(3)]
(K.count, [k.id for k in ks])
""",
    "dataclass": """
from dataclasses import dataclass, field
@dataclass
class P:
    x: int
    y: int = 0
    tags: list = field(default_factory=list)
p = P(1)
(p, p == P(1, 0), P(2, 3).y)
""",
    "enum": """
from enum import Enum
class Color(Enum):
    RED = 1
    GREEN = 2
(Color.RED.name, Color(2), [c.value for c in Color], Color.RED is Color["RED"])
""",
    "custom_exception_class": """
class AppError(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code
try:
    raise AppError(7, "bad")
except AppError as e:
    r = (e.code, str(e), isinstance(e, Exception))
r
""",
    "subclass_builtin_container": """
class Stack(list):
    def push(self, v): self.append(v)
    def peek(self): return self[-1]
s = Stack(); s.push(1); s.push(2)
(s.peek(), len(s), s)
""",
    "class_body_scope": """
class C:
    xs = [1, 2, 3]
    total = sum(xs)
    doubled = [x * 2 for x in xs]
(C.total, C.doubled)
""",
    "nested_class_qualname": """
def make():
    class Inner:
        def m(self): pass
    return Inner
(make().__qualname__, make().m.__qualname__)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_class_behaviour_matches_cpython(name: str) -> None:
    expected, got = same_outcome(PROGRAMS[name])
    if isinstance(expected[1], tuple):  # compare guest objects by their repr
        expected = (expected[0], repr(expected[1]), expected[2])
        got = (got[0], repr(got[1]), got[2])
    assert got == expected


def test_guest_classes_are_real_classes_the_host_can_use() -> None:
    env: dict[str, object] = {}
    safe_eval("class P:\n    def __init__(self, v): self.v = v\n    def __lt__(self, o): return self.v < o.v\n"
              "ps = [P(3), P(1), P(2)]", env)
    ordered = sorted(env["ps"])  # host sorted calls the guest __lt__ (fresh budget)
    assert [p.v for p in ordered] == [1, 2, 3]


@pytest.mark.parametrize(
    "code",
    [
        "class A(type): pass",
        "import collections\nclass A(collections.namedtuple.__class__): pass",
        "class A:\n    pass\nclass B(A, metaclass=type): pass",
        "class A:\n    def __del__(self): pass",
        "class A:\n    def __getattribute__(self, n): return 1",
        "class A:\n    __init_subclass__ = classmethod(lambda cls: None)",
    ],
)
def test_closed_class_model(code: str) -> None:
    with pytest.raises((GuestError, PolicyViolation)):
        safe_eval(code)


def test_forbidden_dunder_refused_at_run_time() -> None:
    # the static stage sees no def; the class builder still refuses the name
    with pytest.raises((GuestError, PolicyViolation)) as info:
        safe_eval("ns = {}\nclass A:\n    locals_ = 1\nsetattr(A, '__del__', lambda self: None)")
    assert "__del__" in str(info.value) or isinstance(info.value, PolicyViolation)


def test_super_cannot_reach_host_object_setattr() -> None:
    with pytest.raises((GuestError, PolicyViolation)):
        safe_eval("super(object, print).__setattr__('x', 1)")
