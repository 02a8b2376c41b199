"""``dir()`` with no argument: the names bound in the current scope, as CPython lists them
(dunder globals left out: no interpreter-held name is listed)."""

import pytest

from safe_eval import safe_eval

CASES = [
    ("module", "import math\nx = 1\ndir()", {"h": 2}, ["h", "math", "x"]),
    ("function", "def f(a, b=2):\n    c = 3\n    def g():\n        return a\n    return dir()\nf(1)", None,
     ["a", "b", "c", "g"]),
    ("function-unbound-local-left-out", "def f():\n    names = dir()\n    later = 1\n    return names\nf()", None, []),
    ("closure-free-variable", "def f():\n    v = 1\n    def g():\n        w = v\n        return dir()\n    return g()\nf()",
     None, ["v", "w"]),
    ("class-body", "class K:\n    y = 1\n    names = dir()\nK.names", None, ["__module__", "__qualname__", "y"]),
    ("shadowed-dir-is-called", "def dir():\n    return 'mine'\ndir()", None, "mine"),
    ("with-argument-unchanged", "sorted(n for n in dir([]) if not n.startswith('_'))[:3]", None,
     ["append", "clear", "copy"]),
]


@pytest.mark.parametrize(("code", "env", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_dir_without_argument_lists_the_current_scope(code, env, expected):
    assert safe_eval(code, env) == expected
