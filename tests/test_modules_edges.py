"""Curated modules at their edges: each case runs the same guest code under safe-eval and under
plain CPython and asserts the same outcome (value, or the exception's type and message caught
inside the code), so every branch of a curated module that exists to mimic CPython is checked
against CPython itself. What safe-eval refuses on purpose is asserted as its typed error below
the corpora."""

from __future__ import annotations

import ast
import copy
import pickle
import time

import pytest

from safe_eval import safe_eval
from safe_eval.errors import GuestError, TimeLimit
from safe_eval.membrane.modules import CuratedModule

# ``err(f, *args)``: f's value, or the exception's type name and message, as data
PRELUDE = """\
def err(f, *args, **kwargs):
    try:
        return f(*args, **kwargs)
    except Exception as e:
        return (type(e).__name__, str(e))
"""


def cpython(code: str) -> object:
    """The value of ``code``'s last expression under plain CPython (``__main__`` globals)."""
    tree = ast.parse(code)
    last = tree.body.pop()
    assert isinstance(last, ast.Expr)
    g: dict[str, object] = {"__name__": "__main__"}
    exec(compile(tree, "<cpython>", "exec"), g)
    return eval(compile(ast.Expression(last.value), "<cpython>", "eval"), g)


def assert_as_cpython(code: str) -> None:
    code = PRELUDE + code
    assert safe_eval(code, {}) == cpython(code)


# -- json ------------------------------------------------------------------------------------

JSON = {
    "indent-as-text": "json.dumps([1, {'a': 2}], indent='\\t')",
    "indent-none-and-int": "(json.dumps([1], indent=None), json.dumps([1, [2]], indent=3))",
    "default-converts-a-leaf": "json.dumps([{3, 1, 2}, 'x'], default=sorted)",
    "default-result-nested": "json.dumps({'k': {1}}, default=lambda o: {'set': sorted(o)}, sort_keys=True)",
    "default-raising": "err(json.dumps, [object()], default=lambda o: 1 / 0)",
    "no-default-unserializable": "err(json.dumps, {1, 2})",
    "cycle-detected": "x = []\nx.append(x)\nerr(json.dumps, x)",
    "cycle-in-dict": "d = {}\nd['d'] = d\nerr(json.dumps, d)",
    "shared-subtree-repeats": "d = [1, 'é']\njson.dumps([d, d, {'a': d}], ensure_ascii=False)",
    "many-containers-tick": "len(json.dumps([[i, str(i)] for i in range(20000)]))",
    "cls-none-is-the-default": "(json.dumps([1], cls=None), json.loads('[2]', cls=None))",
    "separators-short": "err(json.dumps, [1], separators=(',',))",
    "separators-long": "err(json.dumps, [1], separators=(',', ':', ';'))",
    "separators-none": "json.dumps([1, 2], separators=None)",
    "separators-compact": "json.dumps({'a': [1, 2]}, separators=(',', ':'))",
    "flags-read-as-truth": "json.dumps({'b': 1, 'a': float('nan')}, sort_keys=1, allow_nan=[1])",
    "allow-nan-false": "err(json.dumps, [float('inf')], allow_nan=0)",
    "skipkeys": "json.dumps({(1, 2): 1, 'a': 2}, skipkeys=True)",
    "unknown-keyword": "type(err(json.dumps, [1], nope=1)[0])",
    "loads-strict-false": "json.loads('\"a\\x01b\"', strict=0)",
    "loads-strict-true": "err(json.loads, '\"a\\x01b\"', strict=1)",
    "loads-bytes": "json.loads(b'[1, 2]')",
    "loads-hooks": "json.loads('{\"a\": 1.5, \"b\": [2]}', object_hook=dict, parse_float=str, parse_int=float)",
    "loads-long-text": "len(json.loads('[' + '1,' * 40000 + '1]'))",
}


@pytest.mark.parametrize("code", list(JSON.values()), ids=list(JSON))
def test_json_matches_cpython(code: str) -> None:
    assert_as_cpython("import json\n" + code)


@pytest.mark.parametrize(("code", "message"), [
    ("json.dumps([1], indent='x' * 65)", "indent must be at most 64 characters"),
    ("json.dumps([1], indent=65)", "indent must be at most 64"),
    ("json.dumps([1], separators=(',' * 65, ':'))", "separators must be at most 64 characters"),
    ("json.dumps([1], separators=(',', 1))", "separators must be a pair of strings"),
    ("json.dumps([1], cls=json.JSONDecodeError)", "the 'cls' argument is not supported"),
    ("json.loads('[1]', cls=json.JSONDecodeError)", "the 'cls' argument is not supported"),
])
def test_json_refuses_huge_layouts_and_guest_chosen_coders(code: str, message: str) -> None:
    with pytest.raises(GuestError, match=message):
        safe_eval("import json\n" + code, {})


# -- typing ------------------------------------------------------------------------------------

TYPING = {
    "newtype-of-a-builtin": "U = typing.NewType('UserId', int)\n(U(5), repr(U))",
    "typevar-bound-builtin": "T = typing.TypeVar('T', bound=int)\n(repr(T), repr(typing.List[T]))",
    "typevar-constraints": "repr(typing.TypeVar('T', int, str))",
    "paramspec": "repr(typing.ParamSpec('P'))",
    "literal-values": "repr(typing.Literal['a', 1, None, b'x', True, ...])",
    "callable-list-params": "repr(typing.Callable[[int, str], None])",
    "builtin-generic-alias": "(repr(typing.Optional[list[int]]), repr(typing.Dict[str, tuple[int, ...]]))",
    "or-and-ror": "(repr(typing.List[int] | None), repr(int | typing.List[int]), repr(typing.Optional[int] | str))",
    "nested-forms": "repr(typing.Dict[str, typing.List[typing.Optional[int]]])",
    "instance-and-subclass-checks": "(isinstance([], typing.List), isinstance(typing.List, typing.List), issubclass(list, typing.Sequence), issubclass(int, typing.Sequence))",
    "equality-and-hash": "(typing.List[int] == typing.List[int], typing.List[int] == typing.List[str], typing.Any == 1, typing.List == typing.List, hash(typing.List[int]) == hash(typing.List[int]), typing.Optional[int] == typing.Any, typing.List == typing.Text)",
    "newtype-identity-of-a-form": "U = typing.NewType('U', object)\n(repr(U(typing.List)), U(typing.List[int]) == typing.List[int])",
    "overloads-then-implementation": "@typing.overload\ndef h(x: int) -> int: ...\n@typing.overload\ndef h(x: str) -> str: ...\ndef h(x):\n    return x * 2\n(h(2), h('a'))",
    "not-callable-form": "err(typing.Optional, 5)[0]",
    "typeddict-functional": "M = typing.TypedDict('M', {'a': int, 'b': typing.List[str]})\n(repr(M), M(a=1, b=[]))",
    "typeddict-pairs-total": "M = typing.TypedDict('M', [('a', int)], total=False)\n(repr(M), M())",
    "typeddict-bad-fields": "err(typing.TypedDict, 'M', 5)",
    "identity-decorators": "@typing.final\ndef f(): return 1\n@typing.no_type_check\ndef g(): return 2\n(f(), g())",
    "cast": "typing.cast(typing.List[int], 'x')",
    "runtime-checkable-protocol": "@typing.runtime_checkable\nclass P(typing.Protocol):\n    def m(self): ...\nclass A:\n    def m(self): return 1\n(isinstance(A(), P), isinstance(1, P))",
    "generic-subclass": "T = typing.TypeVar('T')\nclass Box(typing.Generic[T]):\n    pass\nclass IntBox(Box[int]):\n    pass\nIntBox.__name__",
    "typeddict-class": "class D(typing.TypedDict, total=False):\n    a: int\nD(a=1)",
}


@pytest.mark.parametrize("code", list(TYPING.values()), ids=list(TYPING))
def test_typing_matches_cpython(code: str) -> None:
    assert_as_cpython("import typing\n" + code)


NAMEDTUPLE = {
    "fields-defaults-methods": "class P(typing.NamedTuple):\n    x: int\n    y: int = 0\n    def s(self): return self.x + self.y\n(P(1, 2).s(), P(3), P._fields)",
    "non-default-after-default": "def f():\n    class P(typing.NamedTuple):\n        x: int = 0\n        y: int\n    return P\nerr(f)",
    "non-default-after-defaults": "def f():\n    class P(typing.NamedTuple):\n        x: int = 0\n        z: int = 0\n        y: int\n    return P\nerr(f)",
    "second-base-refused": "def f():\n    class P(typing.NamedTuple, object):\n        x: int\n    return P\nerr(f)",
    "overwrite-asdict-refused": "def f():\n    class P(typing.NamedTuple):\n        x: int\n        def _asdict(self): return 1\n    return P\nerr(f)",
    "functional-form": "P = typing.NamedTuple('P', [('x', int), ('y', str)])\n(P(1, 'a'), P._fields)",
}


@pytest.mark.parametrize("code", list(NAMEDTUPLE.values()), ids=list(NAMEDTUPLE))
def test_typing_namedtuple_matches_cpython(code: str) -> None:
    assert_as_cpython("import typing\n" + code)


@pytest.mark.parametrize(("code", "message"), [
    ("class C: pass\ntyping.List[C()]", "not instances of C"),
    ("typing.List[3.5]", "not float"),
    ("t = int\nfor i in range(40):\n    t = (t,)\ntyping.Union[t]", "nested too deeply"),
    ("type(typing.List)(int)", "cannot create '_Form' instances"),
    ("typing.runtime_checkable(int)", "only decorate classes defined in guest code"),
    ("typing.TypedDict(5, {})", "takes a name and a dict"),
    ("class P(typing.NamedTuple):\n    x: int\n    __match_args__ = ('x',)", "may not define __match_args__"),
])
def test_typing_refuses_parameters_it_cannot_hash_safely(code: str, message: str) -> None:
    with pytest.raises(GuestError, match=message):
        safe_eval("import typing\n" + code, {})


# -- functools -----------------------------------------------------------------------------------

FUNCTOOLS = {
    "cached-property-caches": "class C:\n    n = 0\n    @functools.cached_property\n    def x(self):\n        C.n += 1\n        return [C.n]\nc = C()\n(c.x is c.x, c.x, C.n, type(C.x).__name__)",
    "cached-property-two-names": "cp = functools.cached_property(lambda self: 1)\ndef f():\n    class C:\n        a = cp\n        b = cp\n    return C\nerr(f)",
    "cached-property-same-name-twice": "cp = functools.cached_property(lambda self: 1)\nclass C:\n    a = cp\nclass D:\n    a = cp\n(C().a, D().a)",
    "cached-property-without-set-name": "cp = functools.cached_property(lambda self: 1)\nclass C: pass\nC.a = cp\nerr(lambda: C().a)",
    "partial-repr-and-call": "p = functools.partial(int, '11', base=2)\n(repr(p), p(), functools.partial(max, 3)(5))",
    "lru-cache-info": "f = functools.lru_cache(maxsize=2)(lambda x: x * 2)\n(f(1), f(1), f(2), tuple(f.cache_info()), f.cache_info().hits)",
}


@pytest.mark.parametrize("code", list(FUNCTOOLS.values()), ids=list(FUNCTOOLS))
def test_functools_matches_cpython(code: str) -> None:
    assert_as_cpython("import functools\n" + code)


# -- itertools, operator -------------------------------------------------------------------------

ITERTOOLS = {
    "cycle-argument-count": "(err(itertools.cycle), err(itertools.cycle, 'ab', 'c'))",
    "reprs": "(repr(itertools.count(1)), repr(itertools.count(2, 0.5)), repr(itertools.repeat('x', 3)), repr(itertools.repeat(None)))",
    "repeat-times": "(list(itertools.repeat('x', 3)), list(itertools.repeat(1, times=-1)), list(itertools.islice(itertools.repeat(2), 2)))",
    "combinatorics": "(len(list(itertools.product('ab', 'cd', repeat=2))), list(itertools.permutations('abc')), list(itertools.combinations('abc', 2)), list(itertools.combinations_with_replacement('ab', 2)))",
    "combinatorics-errors": "(err(itertools.combinations, 'ab', -1), err(itertools.permutations, 'ab', -1), err(itertools.product, 'a', repeat=-1))",
}


@pytest.mark.parametrize("code", list(ITERTOOLS.values()), ids=list(ITERTOOLS))
def test_itertools_matches_cpython(code: str) -> None:
    assert_as_cpython("import itertools\n" + code)


OPERATOR = {
    "attrgetter-names-must-be-text": "(err(operator.attrgetter, 1), err(operator.attrgetter, 'a', 2), err(operator.methodcaller, 1)[0])",
    "reprs": "(repr(operator.attrgetter('a', 'b.c')), repr(operator.attrgetter('x')), repr(operator.methodcaller('m', 1, 'x', k=[2])), repr(operator.methodcaller('n')))",
    "dotted-and-many": "class P:\n    def __init__(self):\n        self.a = 1\n        self.b = self\n(operator.attrgetter('a', 'b.a', 'b.b.a')(P()), operator.attrgetter('b.a')(P()))",
    "guarded-arithmetic": "(operator.mul(3, 4), operator.imul([1], 2), operator.pow(2, 10), operator.ipow(3, 2), operator.lshift(1, 3), operator.ilshift(1, 2), operator.iadd([1], [2]), operator.add('a', 'b'))",
}


@pytest.mark.parametrize("code", list(OPERATOR.values()), ids=list(OPERATOR))
def test_operator_matches_cpython(code: str) -> None:
    assert_as_cpython("import operator\n" + code)


# -- re ---------------------------------------------------------------------------------------

RE = {
    "flags-not-int": "err(re.compile, 'a', 'x')",
    "literal-braces-in-classes": "(re.findall(r'[]{]+x{', ']{x{ ax{'), re.findall(r'[^]{]+{', 'ab{]{'))",
    "compiled-pattern-again": "p = re.compile('a')\n(re.compile(p) == p, err(re.compile, p, re.I), hash(re.compile('a')) == hash(p))",
    "pattern-not-text": "err(re.compile, 5)",
    "template-not-text": "(err(re.sub, 'a', 5, 'abc'), err(re.sub, 'a', None, 'abc'), re.sub(b'a', bytearray(b'x'), b'abc'))",
    "template-bad-group-before-subject": "(err(re.sub, 'a', r'\\1', 5), err(re.sub, '(a)', r'\\1', ['x']), err(re.sub, '(a)', r'\\1', 5))",
    "match-accessors": "m = re.compile(r'(?P<w>\\w)(\\d)?').search('xx a1 b', 2)\n(m[1], m['w'], m.start(2), m.end(), m.span(), m.string, m.pos, m.endpos, m.lastindex, m.lastgroup)",
    "lastgroup-is-lastindex-name": "[re.match(p, s).lastgroup for p, s in [(r'(?P<a>x)(?P<b>y)?', 'x'), (r'(?P<a>x)(?P<b>y)', 'xy'), ('x', 'x'), (r'(a)|(?P<n>b)', 'a'), (r'((?P<i>a))', 'a'), (r'(?P<o>(a))', 'a'), (r'(?P<w>a)(b)', 'ab')]]",
    "expand": "m = re.match('(?P<q>a)(b)?', 'a')\n(m.expand(r'\\g<q>\\1'), err(m.expand, r'\\9'), err(m.expand, r'\\g<nope>'), m.expand(r'[\\2]'))",
    "escape": "(err(re.escape, 5), re.escape(b'a.b'), re.escape('a*b'))",
    "many-patterns-one-run": "len({re.compile('x%d' % i).pattern for i in range(600)})",
}


@pytest.mark.parametrize("code", list(RE.values()), ids=list(RE))
def test_re_matches_cpython(code: str) -> None:
    assert_as_cpython("import re\n" + code)


# -- enum -----------------------------------------------------------------------------------------

ENUM = {
    "names-text": "E = enum.Enum('E', 'A, B C')\n[(m.name, m.value) for m in E]",
    "names-pairs": "E = enum.Enum('E', [('A', 5), ('B', 7)])\n[(m.name, m.value) for m in E]",
    "names-list": "E = enum.Enum('E', ['A', 'B'], start=10)\n[(m.name, m.value) for m in E]",
    "names-dict": "E = enum.Enum('E', {'A': 5, 'B': 7})\n[(m.name, m.value) for m in E]",
    "keywords-only": "E = enum.IntEnum(value='E', names='A B')\n[(m.name, m.value) for m in E]",
    "mixin-builtin": "E = enum.Enum('E', 'A B', type=int)\n[m + 1 for m in E]",
    "mixin-str": "E = enum.Enum('E', [('A', 'x')], type=str)\nE.A.upper()",
    "mixin-guest-class": "class Mix:\n    def hi(self): return 'hi'\nE = enum.Enum('E', 'A B', type=Mix)\nE.A.hi()",
    "qualname": "E = enum.Enum('E', 'A B', qualname='X.E')\nE.__qualname__",
    "pair-of-wrong-length": "[err(enum.Enum, 'E', [p]) for p in [('A', 1, 2), ('A',), ()]]",
    "name-not-text": "[err(enum.Enum, 'E', n)[0] for n in ([(1, 2)], [1])]",
    "keywords-without-names": "err(enum.Enum, 'E', module='m')",
    "value-lookup": "class C(enum.Enum):\n    R = 1\n(repr(C(1)), C['R'] is C.R, err(C, 3))",
}


@pytest.mark.parametrize("code", list(ENUM.values()), ids=list(ENUM))
def test_enum_functional_api_matches_cpython(code: str) -> None:
    assert_as_cpython("import enum\n" + code)


@pytest.mark.parametrize(("code", "message"), [
    ("enum.Enum('E', '_A B')", "member name '_A' is not allowed"),
    ("enum.Enum('E', {'__init__': 1})", "member name '__init__' is not allowed"),
    ("enum.Enum('E', 'A', type=list)", "enum type= must be"),
    ("enum.Enum('E', 'A', module=1)", "enum module= must be a str"),
    ("enum.Flag('E', 'A', boundary=1)", "enum boundary= must be an enum.FlagBoundary"),
])
def test_enum_functional_api_refuses_what_would_reach_the_class_builder(code: str, message: str) -> None:
    with pytest.raises(GuestError, match=message):
        safe_eval("import enum\n" + code, {})


# -- decimal, fractions, statistics ------------------------------------------------------------

DECIMAL = {
    "context-copy-is-independent": "c = decimal.Context(prec=7)\nd = c.copy()\nd.prec = 3\n(c.prec, d.prec, str(c.divide(1, 3)), str(d.divide(1, 3)), str(c.power(2, 10)))",
    "getcontext-copy": "c = decimal.getcontext().copy()\nc.prec = 4\n(decimal.getcontext().prec, c.prec)",
    "localcontext-from-context": "with decimal.localcontext(decimal.Context(prec=3)):\n    r = str(decimal.Decimal(1) / 3)\n(r, str(decimal.Decimal(1) / 3))",
    "localcontext-not-a-context": "def f():\n    with decimal.localcontext(5):\n        pass\nerr(f)[0]",
    "localcontext-bad-keyword": "def f():\n    with decimal.localcontext(bogus=5):\n        pass\nerr(f)",
    "new-context-repr": "repr(decimal.Context(prec=5, Emax=99))",
    "decimal-from-a-long-int": "str(decimal.Decimal(10**5000 + 1))[:5]",
    "settable-fields": "c = decimal.Context()\nc.prec = 10\nc.rounding = decimal.ROUND_UP\nc.Emax = 999\nc.Emin = -999\n(c.prec, c.rounding, c.Emax, c.Emin)",
}


@pytest.mark.parametrize("code", list(DECIMAL.values()), ids=list(DECIMAL))
def test_decimal_contexts_match_cpython(code: str) -> None:
    assert_as_cpython("import decimal\n" + code)


@pytest.mark.parametrize(("code", "message"), [
    ("c = decimal.getcontext()\nc.prec = 5000", "precision is limited to 4000 digits"),
    ("c = decimal.getcontext()\nc.Emax = 10**10", "exponent limits are capped"),
    ("decimal.Context(Emin=-10**10)", "exponent limits are capped"),
    ("decimal.getcontext().flags", "'flags' is not accessible"),
    ("decimal.getcontext().traps", "'traps' is not accessible"),
    ("c = decimal.getcontext()\nc.nope = 1", "cannot be set in safe-eval"),
])
def test_decimal_context_refuses_uncapped_precision_and_host_signal_dicts(code: str, message: str) -> None:
    with pytest.raises(GuestError, match=message):
        safe_eval("import decimal\n" + code, {})


STATS_AND_FRACTIONS = {
    "fraction-class-checks": "from fractions import Fraction\n(isinstance(Fraction(1, 2), Fraction), isinstance(0.5, Fraction), issubclass(bool, Fraction), issubclass(Fraction, Fraction), repr(Fraction))",
    "decimal-class-checks": "from decimal import Decimal\n(isinstance(Decimal(1), Decimal), repr(Decimal), issubclass(int, Decimal))",
    "statistics-not-iterable": "import statistics\nerr(statistics.mean, object())[0]",
    "statistics-item-not-a-number": "import statistics\n(err(statistics.mean, [1, 'a']), err(statistics.median, [1, None])[0], statistics.mode([None, None, 1]))",
    "base64-long-data": "import base64\nlen(base64.b64encode(b'x' * 70000))",
    "normal-dist": "import statistics\nd = statistics.NormalDist(1, 2)\n(d.mean, d.stdev, round(d.cdf(1), 6), repr(statistics.NormalDist))",
    "random-randbytes": "import random\nrandom.Random(5).randbytes(4)",
}


@pytest.mark.parametrize("code", list(STATS_AND_FRACTIONS.values()), ids=list(STATS_AND_FRACTIONS))
def test_guarded_classes_and_statistics_match_cpython(code: str) -> None:
    assert_as_cpython(code)


def test_normal_dist_takes_only_plain_numbers() -> None:
    # CPython's float('a') ValueError is a TypeError here: the parameters are read as data only
    with pytest.raises(GuestError, match="TypeError: can't convert type 'str'"):
        safe_eval("import statistics\nstatistics.NormalDist('a', 1)", {})


# -- string, textwrap, time -----------------------------------------------------------------------

STRING = {
    "formatter-index-and-key": "string.Formatter().format('{0[1]}-{1[k]}-{0[0]:>3}', [5, 6], {'k': 7})",
    "formatter-attribute": "class P:\n    x = 4\nstring.Formatter().format('{0.x}{p.x}', P(), p=P())",
    "template-mapping-and-keywords": "t = string.Template('$a $b')\n(t.substitute({'a': 1, 'b': 2}, b=3), t.safe_substitute(a='x'))",
    "textwrap-indent-not-text": "import textwrap\nerr(textwrap.indent, 5, 'x')",
    "textwrap-long-text": "import textwrap\n(len(textwrap.wrap('ab ' * 2000, 50)), len(textwrap.fill('ab ' * 2000, 50)))",
    "template-many-long-values": "len(string.Template('$a ' * 100).substitute(a='x' * 1000))",
    "textwrap-indent-predicate": "import textwrap\ntextwrap.indent('a\\n\\nb', '> ', lambda line: True)",
}


@pytest.mark.parametrize("code", list(STRING.values()), ids=list(STRING))
def test_string_and_textwrap_match_cpython(code: str) -> None:
    assert_as_cpython("import string\n" + code)


def test_template_substitute_takes_a_dict() -> None:
    with pytest.raises(GuestError, match=r"Template.substitute\(\) takes a dict"):
        safe_eval("import string, collections\nstring.Template('$a').substitute(collections.ChainMap({'a': 1}))", {})


def test_time_sleep_reads_its_argument_as_cpython_does() -> None:
    assert_as_cpython("import time\nclass I:\n    def __index__(self): return 0\n"
                      "[err(time.sleep, v) for v in ['1', None, -1, -0.5, I(), False, 0.001, 2j]]")


def test_time_sleep_past_the_deadline_ends_the_run_at_once() -> None:
    start = time.monotonic()
    with pytest.raises(TimeLimit, match="time.sleep would pass the deadline"):
        safe_eval("import time\ntry:\n    time.sleep(30)\nexcept Exception:\n    pass\ntime.sleep(0)", {},
                  limits={"time": 1})
    assert time.monotonic() - start < 1


# -- outside a run: what the host calls after the evaluation returned ---------------------------

def test_curated_callables_handed_back_to_the_host_run_without_a_budget() -> None:
    sleep, count, indent = safe_eval("import time, itertools, textwrap\n(time.sleep, itertools.count, textwrap.indent)", {})
    assert sleep(0) is None
    assert indent("a\nb", "> ") == "> a\n> b"
    counter = count(3)
    assert (next(counter), next(counter), repr(counter)) == (3, 4, "count(5)")
    # a host-side call is still sized: 1.1 MB of text times a 1 KB prefix is refused before C runs
    with pytest.raises(MemoryError, match="allocation of about"):
        indent("\n" * 1_100_000, "x" * 1000)


# -- the wrapper object -------------------------------------------------------------------------

def test_wrapper_freezes_mutable_module_values() -> None:
    module = CuratedModule("m", {"s": {1}, "l": [1, 2], "b": bytearray(b"ab"), "t": (1,)})
    assert (module.s, module.l, module.b, module.t) == (frozenset({1}), (1, 2), b"ab", (1,))
    assert type(module.s) is frozenset and type(module.b) is bytes
    with pytest.raises(TypeError, match="exports a mutable dict 'd'"):
        CuratedModule("m", {"d": {}})


@pytest.mark.parametrize(("copier", "error"), [
    (copy.copy, copy.Error), (copy.deepcopy, copy.Error), (pickle.dumps, pickle.PicklingError)])
def test_wrapper_cannot_be_pickled_or_copied_by_the_host(copier, error) -> None:
    # copy and pickle read ``__reduce_ex__`` on the instance: refused like every other name
    module = safe_eval("import math\nmath", {})
    with pytest.raises(error, match="CuratedModule"):
        copier(module)
