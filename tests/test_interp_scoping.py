"""Names: locals, cells, globals, class scopes and comprehension scopes as CPython resolves them."""

from __future__ import annotations

import pytest
from _interp_diff import same_outcome

PROGRAMS = {
    "closure_counter": """
def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    return inc
c = counter(); c(); c()
c()
""",
    "nonlocal_two_levels": """
def a():
    x = 1
    def b():
        def c():
            nonlocal x
            x = x * 10
        c()
        return x
    return b()
a()
""",
    "global_statement": """
total = 0
def add(v):
    global total
    total += v
add(3); add(4)
total
""",
    "late_binding": "[f() for f in [lambda: i for i in range(3)]]",
    "default_capture": "[f() for f in [lambda i=i: i for i in range(3)]]",
    "comprehension_does_not_leak": "x = 'outer'\n[x for x in range(3)]\nx",
    "walrus_in_comprehension_binds_outside": "[y := v * 2 for v in range(3)]\ny",
    "unbound_local": """
x = 1
def f():
    print(x)
    x = 2
f()
""",
    "free_variable_unbound": """
def f():
    def g():
        return v
    r = g
    v = 1
    del v
    return r()
f()
""",
    "class_scope_skipped_by_methods": """
x = "global"
class C:
    x = "class"
    def m(self):
        return x
C().m()
""",
    "class_body_reads_enclosing_function": """
def f():
    v = 5
    class C:
        w = v + 1
    return C.w
f()
""",
    "nested_comprehension_scopes": "[[i * j for j in range(i)] for i in range(4)]",
    "name_error_message": "undefined_name + 1",
    "del_then_use": "a = 1\ndel a\na",
    "generator_expression_first_iter_evaluated_eagerly": """
def f():
    xs = [1, 2]
    g = (x for x in xs)
    xs = [9]
    return list(g)
f()
""",
    "except_name_unbound_after_handler": """
try:
    raise ValueError()
except ValueError as err:
    pass
err
""",
    "star_unpacking_targets": "a, (b, *c), d = 1, (2, 3, 4), 5\n(a, b, c, d)",
    "unpack_errors": "a, b = [1, 2, 3]",
    "augmented_targets": "d = {'k': [1]}\nd['k'][0] += 5\nd['k'] += [2]\nd",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_scoping_matches_cpython(name: str) -> None:
    expected, got = same_outcome(PROGRAMS[name])
    assert got == expected
