"""Invariant 4, nothing shared is writable: no object reachable from guest code is shared
between evaluations and writable. Writes go through ``attributes.set_attr``/``del_attr`` (and
the guarded ``object.__setattr__``), which change only objects the interpreter made for this
guest (``interpreter/identity.py``); curated module wrappers refuse writes themselves; the
budget and the run context are not reachable from any guest-visible object.

Each test is an evaluation that tries one write path, names computed at run time so the static
stage does not stop it first, then a second evaluation in the same process that must see
pristine state."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from safe_eval import safe_eval

# Evaluation 2: the state every write path below tries to change.
PROBE = (
    "import math, collections, fractions, re, string, json, hashlib\n"
    "(math.pi, math.sqrt(16.0), (5).bit_length(), len([1, 2]), collections.Counter('aab').most_common(1),\n"
    " fractions.Fraction(1, 2) + 1, hasattr(collections.Counter, 'hijacked'), hasattr(math, 'hijacked'),\n"
    " re.compile('a+').match('aa').group(), string.ascii_lowercase[:3], json.dumps([1]),\n"
    " type(3).__name__, str(type), hasattr(type, 'hijacked'), hasattr(len, 'hijacked'),\n"
    " 'hijacked' in hashlib.algorithms_available, 'hijacked' in hashlib.algorithms_guaranteed)"
)
PRISTINE = (
    math.pi, 4.0, 3, 2, [("a", 2)], __import__("fractions").Fraction(3, 2), False, False, "aa", "abc",
    "[1]", "int", "<class 'type'>", False, False, False, False,
)

# Evaluation 1: one write path each, with its target reached through an alias and the
# attribute name computed (``'p' + 'i'``). Every one must be refused with a guest error.
WRITE_PATHS = [
    pytest.param("import math\nm = math\nsetattr(m, 'p' + 'i', 3)", id="setattr_curated_module"),
    pytest.param("import math\nm = math\nsetattr(m, 'hijacked', 1)", id="setattr_new_name_on_module"),
    pytest.param("import math\nm = math\ndelattr(m, 'p' + 'i')", id="delattr_curated_module"),
    pytest.param("import math\nobject.__setattr__(math, 'p' + 'i', 3)", id="object_setattr_module"),
    pytest.param("import math\nobject.__delattr__(math, 'p' + 'i')", id="object_delattr_module"),
    pytest.param("import math\ngetattr(math, '__di' + 'ct__')['pi'] = 3", id="module_dict_item"),
    pytest.param("import math\nvars(math)['pi'] = 3", id="vars_module"),
    pytest.param("import math\nsetattr(math.sqrt, 'hijacked', 1)", id="setattr_curated_function"),
    pytest.param("import math\nsetattr(type(math), 'hijacked', 1)", id="setattr_module_wrapper_class"),
    pytest.param("import math\nobject.__setattr__(type(math), 'hijacked', 1)", id="object_setattr_wrapper_class"),
    pytest.param("t = type(3)\nsetattr(t, 'bit' + '_length', lambda s: 99)", id="setattr_builtin_type"),
    pytest.param("object.__setattr__(type(3), 'bit_length', 1)", id="object_setattr_builtin_type"),
    pytest.param("import collections\nC = collections.Counter\nsetattr(C, 'most' + '_common', len)",
                 id="setattr_stdlib_class_method"),
    pytest.param("import collections\nsetattr(collections.Counter, 'hijacked', 1)", id="setattr_stdlib_class_new"),
    pytest.param("import collections\ndelattr(collections.Counter, 'most_common')", id="delattr_stdlib_class"),
    pytest.param("import collections\nsetattr(collections.Counter(), 'hijacked', 1)", id="setattr_stdlib_instance"),
    pytest.param("import fractions\nsetattr(fractions.Fraction, '__add__', 1)", id="setattr_guarded_stand_in"),
    pytest.param("setattr(type, 'hijacked', 1)", id="setattr_type_stand_in"),
    pytest.param("setattr(type, '_re' + 'al', int)", id="setattr_type_stand_in_slot"),
    pytest.param("object.__setattr__(type, '_real', int)", id="object_setattr_type_stand_in"),
    pytest.param("l = len\nsetattr(l, 'hijacked', 1)", id="setattr_builtin_function"),
    pytest.param("p = print\nsetattr(p, '__na' + 'me__', 'x')", id="setattr_guest_builtin_name"),
    pytest.param("s = sorted\nsetattr(s, 'hijacked', 1)", id="setattr_guarded_builtin"),
    pytest.param("import re\nsetattr(re, 'com' + 'pile', len)", id="setattr_curated_re"),
    pytest.param("import re\nsetattr(re.compile('a'), 'match', len)", id="setattr_curated_pattern"),
    pytest.param("import string\nsetattr(string, 'ascii_' + 'lowercase', 'zzz')", id="setattr_module_constant"),
    pytest.param("import json\nsetattr(json, 'dumps', len)", id="setattr_json"),
    pytest.param("setattr(str, 'upper', len)", id="setattr_str_method"),
    pytest.param("setattr(ValueError, 'hijacked', 1)", id="setattr_exception_class"),
    pytest.param("import hashlib\nhashlib.algorithms_available.add('hijacked')", id="mutate_module_level_set"),
]


def _computed_names(code: str) -> str:
    """Every quoted name split in two (``'pi'`` -> ``('p' + 'i')``): the static stage sees no
    constant attribute name, so only the run-time guard stands."""
    return re.sub(r"'([A-Za-z_]{2,})'", lambda m: f"('{m[1][:1]}' + '{m[1][1:]}')", code)


def _attempt(code: str) -> str:
    code = _computed_names(code)
    wrapped = "try:\n" + "".join(f"    {line}\n" for line in code.splitlines())
    wrapped += "    r = 'written'\nexcept (AttributeError, TypeError):\n    r = 'refused'\nr"
    result: str = safe_eval(wrapped)
    return result


@pytest.mark.parametrize("code", WRITE_PATHS)
def test_a_write_to_shared_state_is_refused_and_the_next_evaluation_sees_it_pristine(code: str) -> None:
    assert _attempt(code) == "refused"
    assert safe_eval(PROBE) == PRISTINE


# -- the budget and the run context are never reachable -----------------------------------------
INTERNAL_NAMES = ["origin", "code", "globals", "closure", "run", "run1", "body1", "defaults", "budget",
                  "gi_frame", "gi_code", "_frame", "_ctx", "ctx", "limits", "policy"]
HOLDERS = [
    pytest.param("def f():\n    pass\nobj = f", id="guest_function"),
    pytest.param("def g():\n    yield 1\nobj = g()", id="guest_generator"),
    pytest.param("class K:\n    def m(self):\n        pass\nobj = K().m", id="bound_method"),
    pytest.param("obj = lambda: 0", id="lambda"),
]


@pytest.mark.parametrize("holder", HOLDERS)
@pytest.mark.parametrize("name", INTERNAL_NAMES)
def test_no_interpreter_object_leads_to_the_budget_or_the_run_context(holder: str, name: str) -> None:
    code = holder + f"\ntry:\n    getattr(obj, {name[:2]!r} + {name[2:]!r})\n    r = 'reached'\n" \
                    "except AttributeError:\n    r = 'refused'\nr"
    assert safe_eval(code) == "refused"


def test_a_guest_function_keeps_its_public_attributes_per_object() -> None:
    # writable interpreter objects are the evaluation's own: a later evaluation has new ones
    first: Any = safe_eval("def f():\n    pass\nf.calls = 1\nf")
    second: Any = safe_eval("def f():\n    pass\nhasattr(f, 'calls')")
    assert first.calls == 1 and second is False
