"""Invariant 4, nothing shared is writable: no object reachable from guest code is shared
between evaluations and writable. Writes go through ``attributes.set_attr``/``del_attr`` (and
the guarded ``object.__setattr__``), which change only objects the interpreter made for this
guest (``interpreter/identity.py``); curated module wrappers refuse writes themselves; the
budget and the run context are not reachable from any guest-visible object.

Each test is an evaluation that tries one write path, names computed at run time so the static
stage does not stop it first, then a second evaluation in the same process that must see
pristine state."""

from __future__ import annotations

import builtins
import math
import re
import sys
from typing import Any

import pytest

from safe_eval import Evaluator, expose, safe_eval
from safe_eval.errors import GuestError

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


# -- host Python methods never run with a self the guest picks ----------------------------------
# ``UserDict.__init__(X)`` as host code would write ``X.data = {}`` with host rights on a shared
# object (an ABC, ``typing.Any``, a curated module's function), for the next evaluation to read.
SHARED_TARGETS = ["abc.ABC", "collections.abc.Mapping", "typing.Any", "enum.Enum", "json.dumps",
                  "decimal.Decimal", "collections.Counter", "math"]
UNBOUND_WRITERS = [
    pytest.param("collections.UserDict.__init__({t})\ncollections.UserDict.__setitem__({t}, 'k', 1)",
                 id="userdict_init_and_setitem"),
    pytest.param("collections.UserList.__init__({t}, [1])", id="userlist_init"),
    pytest.param("collections.UserString.__init__({t}, 'planted')", id="userstring_init"),
    pytest.param("contextlib.ExitStack.__init__({t})", id="exitstack_init"),
    pytest.param("contextlib.suppress.__init__({t}, KeyError)", id="suppress_init"),
    pytest.param("contextlib.nullcontext.__init__({t}, 1)", id="nullcontext_init"),
    pytest.param("class M(collections.abc.MutableMapping):\n"
                 "    __getitem__ = __setitem__ = __delitem__ = __iter__ = __len__ = None\n"
                 "M.update({t}, {{'data': 1}})", id="mapping_mixin_update_unbound"),
]
_PLANTED = ("data", "_exit_callbacks", "_exceptions", "enter_result", "k")


@pytest.mark.parametrize("target", SHARED_TARGETS)
@pytest.mark.parametrize("writer", UNBOUND_WRITERS)
def test_a_host_class_method_called_unbound_on_a_shared_object_writes_nothing(writer: str, target: str) -> None:
    imports = "import abc, collections, collections.abc, contextlib, typing, enum, json, decimal, math\n"
    assert _attempt(imports + writer.format(t=target)) == "refused"
    probe = imports + f"[hasattr({target}, n) for n in {_PLANTED!r}]"
    assert safe_eval(probe) == [hasattr(eval(target, {"abc": __import__("abc"), "collections": __import__("collections.abc"),
                                                      "typing": __import__("typing"), "enum": __import__("enum"),
                                                      "json": __import__("json"), "decimal": __import__("decimal"),
                                                      "math": math}), n) for n in _PLANTED]


def _host_python_methods() -> list[Any]:
    """(module, class attribute, method name) for every host Python function a class-level read
    of a class a curated module offers could return (the class's own or inherited)."""
    import types

    from safe_eval.membrane.modules import CURATED, import_module

    cases = []
    for module in sorted(CURATED):
        attrs = object.__getattribute__(import_module(module), "_se_attrs")
        for attr, value in sorted(attrs.items()):
            if not isinstance(value, type):
                continue
            names = {n for k in value.__mro__ for n, raw in vars(k).items() if type(raw) is types.FunctionType}
            cases += [(module, attr, name) for name in sorted(names)]
    return cases


HOST_PYTHON_METHODS = _host_python_methods()


def test_the_sweep_covers_the_classes_curated_modules_offer() -> None:
    modules = {module for module, _, _ in HOST_PYTHON_METHODS}
    assert {"collections", "collections.abc", "enum", "string", "json", "asyncio"} <= modules


@pytest.mark.parametrize("module", sorted({m for m, _, _ in HOST_PYTHON_METHODS}))
def test_no_class_level_read_hands_out_a_host_python_method(module: str) -> None:
    pairs = [(attr, name) for m, attr, name in HOST_PYTHON_METHODS if m == module]
    code = (f"import {module} as m\nhanded = []\nfor attr, name in pairs:\n"
            "    try:\n        f = getattr(getattr(m, attr), name)\n    except Exception:\n        continue\n"
            "    if type(f).__name__ == 'function' and not getattr(f, '__module__', '').startswith('safe_eval'):\n"
            "        handed.append((attr, name, str(f)))\nhanded")
    handed = safe_eval(code, {"pairs": pairs})
    # what was read is guest code (the guest standard library), never a host function
    assert all("<function" in text and "at 0x" not in text for _, _, text in handed), handed


# -- an object the host exposes to every run (red team rt-exit, finding 2) ------------------------
class _Catalog:
    """A long-lived host object a server exposes to each user's run, read-only."""

    def __init__(self) -> None:
        self.prices = {"apple": 1, "pear": 2}
        self.featured = ["apple"]


def test_an_object_exposed_to_every_run_keeps_what_one_run_wrote_into_its_attributes_to_itself() -> None:
    catalog = _Catalog()
    env = {"catalog": expose(catalog, attrs=["prices", "featured"])}
    ev = Evaluator()
    ev.exec("p = catalog.prices\np['apple'] = 0\nf = catalog.featured\nf[0] = 'pear'\nf.append('free')", env)
    assert ev.eval("(catalog.prices, catalog.featured)", env) == ({"apple": 1, "pear": 2}, ["apple"])
    assert (catalog.prices, catalog.featured) == ({"apple": 1, "pear": 2}, ["apple"])


# -- exceptions host code hands over (red team rt-exit, finding 3) -------------------------------
# A tool raised (or returned) the host's own exception object: a module-level instance raised on
# every miss, or one kept as a ``__cause__``. The guest wrote into it (``add_note``, a list in its
# ``args`` or ``value``), and the next run (another user's) read what it wrote; cleaning it for
# the guest also replaced the host's own ``args`` with placeholders.
class _Row:
    """A host object the exception carries: the guest sees a placeholder, the host keeps it."""


class StoreError(Exception):
    pass


def _host_env(not_found: LookupError) -> dict[str, Any]:
    """Tools and an exposed object that hand the guest the host's one ``not_found``."""

    def find(name: str) -> None:
        raise not_found

    def find_wrapped(name: str) -> None:
        raise StoreError("lookup failed") from not_found

    def last_error() -> BaseException:
        return not_found

    def rows() -> Any:
        yield 1
        raise not_found

    class Box:
        @property
        def v(self) -> int:
            return 0

        @v.setter
        def v(self, value: int) -> None:
            raise not_found

    return {"find": find, "find_wrapped": find_wrapped, "last_error": last_error, "rows": rows,
            "box": expose(Box(), writable=["v"])}


WRITES_TO_A_HOST_EXCEPTION = {
    "note_on_a_raised_exception": "try:\n    find('a')\nexcept LookupError as e:\n    e.add_note('alice: secret')",
    "list_in_its_args": "try:\n    find('a')\nexcept LookupError as e:\n    e.args[1].append('secret')",
    "note_on_its_cause": "try:\n    find_wrapped('a')\nexcept Exception as e:\n    c = e.__cause__\n"
                         "    c.add_note('alice: secret')",
    "note_on_a_returned_exception": "e = last_error()\ne.add_note('alice: secret')",
    "note_from_a_host_iterator": "try:\n    for r in rows():\n        pass\nexcept LookupError as e:\n"
                                 "    e.add_note('alice: secret')",
    "note_from_a_host_setter": "b = [box][0]\ntry:\n    b.v = 1\nexcept LookupError as e:\n"
                               "    e.add_note('alice: secret')",
}


@pytest.mark.parametrize("code", [
    pytest.param(code, id=name, marks=pytest.mark.skipif(
        "add_note" in code and sys.version_info < (3, 11), reason="BaseException.add_note is 3.11+"))
    for name, code in WRITES_TO_A_HOST_EXCEPTION.items()])
def test_a_host_exception_the_guest_wrote_into_is_pristine_for_the_host_and_the_next_run(code: str) -> None:
    not_found = LookupError("no such user", ["alice"], _Row())
    args = not_found.args
    env = _host_env(not_found)
    ev = Evaluator()
    ev.exec(code, env)
    seen = ev.eval("try:\n    find('b')\nexcept LookupError as e:\n    n = getattr(e, '_' + '_notes_' + '_', None) or []\n"
                   "    r = (n, e.args[:2])\nr", env)
    assert seen == ([], ("no such user", ["alice"]))
    assert not hasattr(not_found, "__notes__")
    assert not_found.args is args and args[1] == ["alice"] and type(args[2]) is _Row


class QuotaError(Exception):
    """A host exception class whose ``__init__`` takes other parameters than its ``args``."""

    def __init__(self, user: str, limit: int) -> None:
        super().__init__(f"{user} is over {limit}")
        self.limit = limit


def _raiser(kind: str) -> None:
    if kind == "os":
        raise FileNotFoundError(2, "No such file", "data.txt")
    if kind == "unicode":
        b"\xff".decode("utf-8")
    if kind == "quota":
        raise QuotaError("ann", 5)
    if kind == "chain":
        try:
            {}["k"]
        except KeyError as e:
            raise ValueError("bad key") from e
    if kind == "group":
        raise builtins.ExceptionGroup("many", [ValueError(1), TypeError(2)])  # 3.11+
    raise StopIteration(7)


SEEN_THROUGH_THE_COPY = {
    "os": ("except OSError as e:\n    r = (type(e).__name__, e.errno, e.strerror, e.filename, str(e))",
           ("FileNotFoundError", 2, "No such file", "data.txt", "[Errno 2] No such file: 'data.txt'")),
    "unicode": ("except UnicodeDecodeError as e:\n    r = (e.encoding, e.start, e.end, e.reason)",
                ("utf-8", 0, 1, "invalid start byte")),
    "quota": ("except Exception as e:\n    r = (str(e), e.limit, isinstance(e, QuotaError))",
              ("ann is over 5", 5, True)),
    "chain": ("except ValueError as e:\n    r = (str(e), type(e.__cause__).__name__, e.__cause__.args)",
              ("bad key", "KeyError", ("k",))),
    "group": ("except* ValueError as g:\n    r = [str(x) for x in g.exceptions]\nexcept* TypeError:\n    pass",
              ["1"]),
    "stop": ("except StopIteration as e:\n    r = e.value", 7),
}


@pytest.mark.parametrize("kind", [
    pytest.param(k, marks=pytest.mark.skipif(k == "group" and sys.version_info < (3, 11), reason="3.11+"))
    for k in SEEN_THROUGH_THE_COPY])
def test_the_guest_sees_all_it_saw_of_a_host_exception_in_its_copy(kind: str) -> None:
    handler, want = SEEN_THROUGH_THE_COPY[kind]
    code = f"r = None\ntry:\n    raiser({kind!r})\n{handler}\nr"
    assert safe_eval(code, {"raiser": _raiser, "QuotaError": QuotaError}) == want


def test_a_host_exception_that_cannot_be_copied_is_never_handed_over_itself() -> None:
    # the exception holds a dict keyed by the guest's object; rebuilding the dict hashes the key
    # again, and the guest's __hash__ fails on its second call: the guest gets a RuntimeError
    # naming the type, not the host's object (which it could write into)
    raised: list[BaseException] = []

    def boom(key: Any) -> None:
        error = LookupError({key: ["host"]})
        raised.append(error)
        raise error

    code = ("class K:\n    calls = 0\n    def __hash__(self):\n        K.calls += 1\n"
            "        if K.calls > 1:\n            raise ValueError('second hash')\n        return 1\n"
            "try:\n    boom(K())\nexcept Exception as e:\n    r = (type(e).__name__, str(e))\nr")
    assert safe_eval(code, {"boom": boom}) == (
        "RuntimeError", "host code raised LookupError, which cannot be handed to guest code")
    assert not hasattr(raised[0], "__notes__") and list(raised[0].args[0].values()) == [["host"]]


INTERPRETER_WRITES = {
    "def f():\n    pass\nsetattr(f, '_' + 'x', 1)": "it belongs to the interpreter",
    "def f():\n    pass\nsetattr(f, '__ca' + 'll__', 1)": "it belongs to the interpreter",
    "def g():\n    yield 1\nsetattr(g(), 'se' + 'nd', 1)": "it belongs to the interpreter",
}


@pytest.mark.parametrize("code", INTERPRETER_WRITES, ids=range(len(INTERPRETER_WRITES)))
def test_an_interpreter_object_refuses_writes_to_its_own_names(code: str) -> None:
    # a guest function keeps public attributes of its own (``f.calls = 0``), never the
    # interpreter's: its slots, its dunders, a generator's methods
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert INTERPRETER_WRITES[code] in str(info.value)


class _Shapes:
    """An exposed object whose attributes hold nested, shared and cyclic builtin containers."""

    def __init__(self) -> None:
        shared = [1]
        self.rows = {"rows": [[1, 2], shared, shared], "pairs": {(1, (2, 3))}, "nested": [{"a": [1]}],
                     "frozen": ([1],), "raw": bytearray(b"ab")}


def test_an_exposed_attributes_nested_and_shared_containers_are_the_guests_own_copy() -> None:
    shapes = _Shapes()
    env = {"o": expose(shapes, attrs=["rows"])}
    code = ("r = o.rows\nsame = r['rows'][1] is r['rows'][2]\nr['rows'][0].append(3)\nr['rows'][1].append(9)\n"
            "r['nested'][0]['a'].append(2)\nr['frozen'][0].append(5)\nr['raw'].append(99)\nr['pairs'].add(7)\nsame")
    assert safe_eval(code, env) is True
    assert shapes.rows == {"rows": [[1, 2], [1], [1]], "pairs": {(1, (2, 3))}, "nested": [{"a": [1]}],
                           "frozen": ([1],), "raw": bytearray(b"ab")}


def _raising(exc: BaseException) -> Any:
    def tool() -> None:
        raise exc

    return tool


def _chain(n: int) -> BaseException:
    exc: BaseException = ValueError(0)
    for i in range(1, n):
        nxt = ValueError(i)
        nxt.__cause__ = exc
        exc = nxt
    return exc


@pytest.mark.skipif(sys.version_info < (3, 11), reason="ExceptionGroup is 3.11+")
def test_a_host_exception_group_too_large_to_copy_reaches_the_guest_as_a_stand_in() -> None:
    group = builtins.ExceptionGroup("many", [ValueError(i) for i in range(40)])
    code = "try:\n    t()\nexcept RuntimeError as e:\n    r = str(e)\nr"
    assert "which cannot be handed to guest code" in safe_eval(code, {"t": _raising(group)})


def test_a_host_exception_chain_longer_than_copied_is_cut() -> None:
    code = ("try:\n    t()\nexcept ValueError as e:\n    n = 0\n    while e is not None:\n"
            "        n += 1\n        e = e.__cause__\nn")
    assert safe_eval(code, {"t": _raising(_chain(40))}) == 32


@pytest.mark.skipif(sys.version_info < (3, 11), reason="BaseException.add_note is new in 3.11")
def test_an_exception_in_a_host_exceptions_args_is_the_guests_copy_too() -> None:
    inner = KeyError("k")
    code = "try:\n    t()\nexcept ValueError as e:\n    e.args[0].add_note('x')\n    r = repr(e.args[0])\nr"
    assert safe_eval(code, {"t": _raising(ValueError(inner))}) == "KeyError('k')"
    assert not hasattr(inner, "__notes__")


def test_exceptions_past_the_copy_bound_in_a_host_exceptions_args_are_placeholders() -> None:
    many = ValueError(*[_chain(2) for _ in range(20)])  # 41 exceptions: the last args are placeholders
    got = safe_eval("try:\n    t()\nexcept ValueError as e:\n    r = [type(a).__name__ for a in e.args]\nr",
                    {"t": _raising(many)})
    assert got[0] == "ValueError" and got[-1] == "str"


def test_a_limit_reached_while_copying_a_host_exception_ends_the_run() -> None:
    from safe_eval.errors import OpLimit

    with pytest.raises(OpLimit):
        safe_eval("t()", {"t": _raising(ValueError(list(range(10**6))))}, limits={"ops": 10_000})
