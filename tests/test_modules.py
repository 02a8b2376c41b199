"""Curated modules: the registry, the policy gate, the wrapper object, and for every curated
module a representative use (compared with CPython) and what must stay out of reach."""

from __future__ import annotations

import ast
import inspect
import types

import pytest

from safe_eval import safe_eval
from safe_eval.errors import GuestError, LimitExceeded, PolicyViolation, SafeEvalError
from safe_eval.membrane.modules import CURATED, CuratedModule, import_module
from safe_eval.policy.model import Policy

EXPECTED = {
    "math", "cmath", "re", "json", "string", "itertools", "functools", "operator", "collections",
    "collections.abc", "heapq", "bisect", "statistics", "fractions", "decimal", "datetime", "random",
    "copy", "typing", "dataclasses", "enum", "abc", "contextlib", "textwrap", "time", "hashlib",
    "base64", "uuid", "asyncio",
}


def _aio_available() -> bool:
    try:
        import safe_eval.interpreter.aio  # noqa: F401
    except ImportError:
        return False
    return True


def _importable() -> list[str]:
    return sorted(n for n in CURATED if n != "asyncio" or _aio_available())


def cpython(code: str):
    """The value of ``code`` under plain CPython (exec, then eval of the last expression)."""
    tree = ast.parse(code)
    last = tree.body.pop()
    g: dict = {}
    exec(compile(tree, "<cpython>", "exec"), g)
    return eval(compile(ast.Expression(last.value), "<cpython>", "eval"), g)


# -- registry and policy gate -------------------------------------------------------------------

def test_curated_set_is_the_documented_one():
    assert CURATED == frozenset(EXPECTED)


@pytest.mark.parametrize("name", _importable())
def test_every_curated_module_imports_as_a_wrapper(name):
    module = import_module(name, Policy(imports=CURATED))
    assert type(module) is CuratedModule
    assert repr(module) == f"<module '{name}' (curated)>"
    assert dir(module) and all(not n.startswith("_") for n in dir(module))


@pytest.mark.parametrize("name", ["os", "sys", "os.path", "importlib", "subprocess", "ctypes", "io",
                                  "builtins", "posix", "queue", "doctest", "warnings", "pickle",
                                  "collections.foo", "re.enum", "json.decoder", "", "math.sqrt"])
def test_uncurated_module_is_refused_with_the_allowed_list(name):
    with pytest.raises(ImportError) as info:
        import_module(name, Policy(imports=frozenset({"math", "json"})))
    assert f"import of '{name}' is not allowed" in str(info.value)
    assert "allowed modules: json, math" in str(info.value)


@pytest.mark.parametrize("name", ["math", "re", "random", "collections.abc"])
def test_curated_module_outside_the_policy_is_refused(name):
    with pytest.raises(ImportError, match=f"import of '{name}' is not allowed"):
        import_module(name, Policy(imports=frozenset({"json"})))


def test_dotted_name_follows_its_parent_in_the_policy():
    module = import_module("collections.abc", Policy(imports=frozenset({"collections"})))
    assert "Mapping" in dir(module)
    top = import_module("collections", Policy(imports=frozenset({"collections"})))
    assert top.abc.Mapping is module.Mapping


def test_policy_gate_through_the_api():
    policy = Policy(imports=frozenset({"math"}))
    assert safe_eval("import math\nmath.floor(2.5)", policy=policy) == 2
    with pytest.raises(SafeEvalError, match="json"):
        safe_eval("import json\njson.dumps(1)", policy=policy)


# -- the wrapper object ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["__class__", "__dict__", "__spec__", "__loader__", "__builtins__",
                                  "_se_attrs", "_se_name", "__getattribute__", "__reduce_ex__", "nope"])
def test_wrapper_refuses_every_name_outside_its_allowlist(name):
    module = import_module("math", Policy(imports=CURATED))
    with pytest.raises(AttributeError, match="module 'math' has no attribute"):
        getattr(module, name)


def test_wrapper_is_read_only():
    module = import_module("math", Policy(imports=CURATED))
    with pytest.raises(AttributeError, match="read-only"):
        module.pi = 3
    with pytest.raises(AttributeError, match="read-only"):
        del module.pi
    assert module.pi == 3.141592653589793


_PIVOT_MODULES = {"os", "sys", "subprocess", "importlib", "builtins", "io", "codecs", "posix", "ctypes"}


@pytest.mark.parametrize("name", _importable())
def test_no_wrapper_value_is_a_module_or_a_host_pivot(name):
    module = import_module(name, Policy(imports=CURATED))
    for attr in dir(module):
        value = getattr(module, attr)
        if isinstance(value, CuratedModule):
            continue
        assert not isinstance(value, types.ModuleType), (name, attr)
        assert not isinstance(value, (types.FrameType, types.CodeType, types.TracebackType)), (name, attr)
        if isinstance(value, types.FunctionType):
            # a Python-level function of a dangerous module would hand out its globals
            assert value.__module__.split(".")[0] not in _PIVOT_MODULES, (name, attr)


# -- representative uses, compared with CPython ---------------------------------------------------

USES = {
    "math": "import math\n(math.sqrt(16), math.gcd(12, 18), math.factorial(20), math.comb(10, 3), math.isclose(0.1 + 0.2, 0.3), math.prod([1, 2, 3]), math.inf > 1)",
    "cmath": "import cmath\n(cmath.sqrt(-1), abs(cmath.exp(1j * cmath.pi) + 1) < 1e-9)",
    "json": "import json\ns = json.dumps({'a': [1, 2.5, None, True]}, sort_keys=True, indent=2)\n(s, json.loads(s), json.dumps([1, 2], separators=(',', ':')))",
    "json_error": "import json\ntry:\n    json.loads('{bad')\n    r = 'parsed'\nexcept json.JSONDecodeError as e:\n    r = (type(e).__name__, e.pos)\nr",
    "string": "import string\n(string.ascii_lowercase[:5], string.digits, string.capwords('hello world'), string.Template('$who likes $what').substitute(who='tim', what='pie'), string.Formatter().format('{0}-{name}!', 1, name='x'))",
    "itertools": "import itertools as it\n(list(it.islice(it.count(5, 2), 4)), list(it.permutations('abc', 2)), list(it.combinations(range(4), 2)), list(it.product('ab', repeat=2)), list(it.accumulate([1, 2, 3])), [(k, len(list(g))) for k, g in it.groupby('aabbbc')], list(it.chain.from_iterable([[1], [2, 3]])), list(it.zip_longest('ab', 'x', fillvalue='-')), list(it.repeat(7, 3)), list(it.islice(it.cycle('ab'), 5)), list(it.combinations_with_replacement('ab', 2)), list(it.pairwise([1, 2, 3])))",
    "functools": "import functools\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n@functools.total_ordering\nclass V:\n    def __init__(self, v): self.v = v\n    def __eq__(self, o): return self.v == o.v\n    def __lt__(self, o): return self.v < o.v\nclass C:\n    @functools.cached_property\n    def x(self): return 41 + 1\n(fib(30), functools.reduce(lambda a, b: a * b, range(1, 6)), functools.partial(int, base=2)('101'), V(1) >= V(0), sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a)), C().x)",
    "operator": "import operator\nrows = [{'a': 2, 'n': 'x'}, {'a': 1, 'n': 'y'}]\nclass P:\n    def __init__(self, x): self.x = x\n    def name(self, s): return s + str(self.x)\n(sorted(rows, key=operator.itemgetter('a')), operator.attrgetter('x')(P(3)), operator.methodcaller('name', 'p')(P(4)), operator.add(1, 2), operator.mul('ab', 3), list(map(operator.neg, [1, 2])), operator.attrgetter('real', 'imag')(3 + 4j))",
    "collections": "from collections import Counter, defaultdict, deque, OrderedDict, namedtuple, ChainMap\nc = Counter('abracadabra')\nd = defaultdict(int)\nfor ch in 'aab': d[ch] += 1\nq = deque(maxlen=2)\nq.extend([1, 2, 3])\nP = namedtuple('P', ['x', 'y'], defaults=[0])\n(c.most_common(2), dict(d), list(q), P(1), P(1)._asdict(), list(OrderedDict.fromkeys('bca')), ChainMap({'a': 1}, {'a': 2, 'b': 3})['b'], P._fields)",
    "collections.abc": "from collections.abc import Iterable, Mapping, Sequence\n(isinstance([], Iterable), isinstance({}, Mapping), isinstance('x', Sequence), isinstance(3, Iterable))",
    "heapq": "import heapq\nh = []\nfor x in [5, 1, 4, 2]: heapq.heappush(h, x)\n(heapq.heappop(h), heapq.nlargest(2, [5, 1, 4, 2]), heapq.nsmallest(1, [3, 2]), list(heapq.merge([1, 3], [2])))",
    "bisect": "import bisect\nxs = [1, 3, 5]\nbisect.insort(xs, 4)\n(bisect.bisect_left(xs, 3), bisect.bisect(xs, 3), xs)",
    "statistics": "import statistics as st\n(st.mean([1, 2, 3, 4]), st.median([3, 1, 2]), st.mode([1, 1, 2]), round(st.stdev([1, 2, 3, 4]), 6), st.multimode('aabbc'), st.NormalDist(0, 1).cdf(0))",
    "fractions": "from fractions import Fraction\n(Fraction(1, 3) + Fraction(1, 6), Fraction('0.25'), Fraction(3, 4).limit_denominator(2), str(Fraction(6, 4)))",
    "decimal": "from decimal import Decimal, getcontext, localcontext, ROUND_HALF_UP\nwith localcontext() as ctx:\n    ctx.prec = 5\n    a = Decimal(1) / Decimal(7)\n(str(a), str(Decimal('1.005').quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)), str(Decimal('0.1') + Decimal('0.2')), getcontext().prec)",
    "datetime": "from datetime import date, datetime, timedelta, timezone\nd = date(2024, 2, 28) + timedelta(days=2)\n(d.isoformat(), d.weekday(), datetime(2024, 1, 1, 12, tzinfo=timezone.utc).isoformat(), (date(2024, 3, 1) - date(2024, 1, 1)).days, datetime.strptime('2024-05-06', '%Y-%m-%d').month)",
    "random": "import random\nrandom.seed(42)\na = [random.randint(1, 100) for _ in range(3)]\nrandom.seed(42)\nb = [random.randint(1, 100) for _ in range(3)]\nr = random.Random(7)\n(a == b, len(random.sample(range(10), 3)), random.choice([5]), 0 <= r.random() < 1, sorted(random.choices('ab', k=4))[0] in 'ab')",
    "copy": "import copy\na = [[1, 2], {'k': [3]}]\nb = copy.deepcopy(a)\nb[0].append(9)\nc = copy.copy(a)\n(a, b, c[0] is a[0])",
    "typing": "from typing import List, Dict, Optional, Tuple, Any, Callable, Iterable, Union, Set, TypeVar, cast, NamedTuple\nT = TypeVar('T')\nVector = List[float]\nclass Pt(NamedTuple):\n    x: int\n    y: int = 0\ndef first(xs: Iterable[T]) -> Optional[T]:\n    return next(iter(xs), None)\n(first([3]), cast(int, '5'), Pt(1), Pt(1, 2).y, Pt._fields)",
    "dataclasses": "from dataclasses import dataclass, field, asdict, astuple, fields, replace, is_dataclass\n@dataclass\nclass A:\n    x: int\n    ys: list = field(default_factory=list)\n    def total(self): return self.x + sum(self.ys)\na = A(1, [2, 3])\n(repr(a), a.total(), asdict(a), astuple(a), [f.name for f in fields(A)], replace(a, x=5).x, is_dataclass(a), a == A(1, [2, 3]))",
    "enum": "from enum import Enum, IntEnum, auto, Flag\nclass C(Enum):\n    R = 1\n    G = 2\nclass N(IntEnum):\n    A = auto()\n    B = auto()\nclass F(Flag):\n    X = auto()\n    Y = auto()\n(C.R.name, repr(C(2)), C['G'].value, [c.name for c in C], N.B + 1, (F.X | F.Y).value, repr(C.R), C.R is C['R'], isinstance(C.R, Enum))",
    "abc": "from abc import ABC, abstractmethod\nclass Shape(ABC):\n    @abstractmethod\n    def area(self): ...\n    def twice(self): return 2 * self.area()\nclass Sq(Shape):\n    def __init__(self, s): self.s = s\n    def area(self): return self.s ** 2\ntry:\n    Shape()\n    r = 'made'\nexcept TypeError as e:\n    r = str(e)\n(Sq(3).twice(), r)",
    "contextlib": "from contextlib import contextmanager, suppress, nullcontext, ExitStack\nlog = []\n@contextmanager\ndef tag(n):\n    log.append('<' + n)\n    try:\n        yield n\n    finally:\n        log.append(n + '>')\nwith tag('a') as x:\n    log.append(x)\nwith suppress(KeyError):\n    {}['k']\ntry:\n    with tag('b'):\n        raise ValueError('boom')\nexcept ValueError as e:\n    log.append(str(e))\nwith nullcontext(5) as v:\n    log.append(v)\nwith ExitStack() as stack:\n    stack.callback(log.append, 'cb')\nlog",
    "textwrap": "import textwrap\n(textwrap.wrap('the quick brown fox jumps', 10), textwrap.dedent('  a\\n  b'), textwrap.indent('a\\nb', '> '), textwrap.shorten('hello big world', 12), textwrap.fill('a b c', 3))",
    "time": "import time\nt0 = time.perf_counter()\ntime.sleep(0.01)\n(time.perf_counter() - t0 >= 0.005, time.strftime('%Y', time.gmtime(0)), time.time() > 0, type(time.monotonic()).__name__)",
    "hashlib": "import hashlib\n(hashlib.sha256(b'abc').hexdigest(), hashlib.md5('x'.encode()).hexdigest(), hashlib.new('sha1', b'').hexdigest()[:6])",
    "base64": "import base64\ne = base64.b64encode(b'hello')\n(e, base64.b64decode(e), base64.urlsafe_b64encode(b'\\xff\\xfe'), base64.b16encode(b'A'))",
    "uuid": "import uuid\nu = uuid.UUID('12345678123456781234567812345678')\n(str(u), u.hex, uuid.uuid5(uuid.NAMESPACE_DNS, 'x.org') == uuid.uuid5(uuid.NAMESPACE_DNS, 'x.org'), len(str(uuid.uuid4())))",
    "re": "import re\np = re.compile(r'(?P<k>\\w+)=(?P<v>\\d+)')\nm = p.search('a=1, b=22')\n(m.group('k'), m.groupdict(), [x.span() for x in p.finditer('a=1 b=2')], p.sub(r'\\g<v>:\\g<k>', 'a=1'), re.split(r'\\s*,\\s*', 'a , b,c'), re.findall(r'[A-Z]', 'aBcD', re.I), re.escape('a.b'), re.subn('a', 'b', 'aa'), p.pattern, re.IGNORECASE | re.MULTILINE)",
}


@pytest.mark.parametrize("code", list(USES.values()), ids=list(USES))
def test_representative_use_matches_cpython(code):
    assert safe_eval(code, {}) == cpython(code)


# -- what must stay out of reach --------------------------------------------------------------------

ABUSE = {
    # module pivots (smolagents CVE-2025-5120 family)
    "re_enum_sys": "import re\nre.enum.sys",
    "re_sre_compile": "import re\nre.sre_compile",
    "re_functools": "import re\nre.functools",
    "json_codecs": "import json\njson.codecs",
    "json_decoder": "import json\njson.decoder",
    "random_os": "import random\ngetattr(random, '_' + 'os')",
    "random_inst": "import random\ngetattr(random.random, '__self__')",
    "collections_sys": "import collections\ngetattr(collections, '_' + 'sys')",
    "collections_sys_getattr": "import collections\ngetattr(collections, '_sys')",
    "functools_globals": "import functools\ngetattr(functools.wraps, '__globals__')",
    "string_formatter_vformat": "import string\ndef f():\n    pass\nstring.Formatter().vformat('{0.__glob' + 'als__}', [f], {})",
    "string_formatter_private": "import string\nclass A:\n    _s = 1\nstring.Formatter().format('{0._s}', A())",
    "string_formatter_func_name": "import string\nimport math\nstring.Formatter().format('{0.__name__}', math.floor)",
    "attrgetter_dunder_chain": "import operator\nag = operator.attrgetter\nag('__class__.__base__.__subclasses__')(())()",
    "attrgetter_globals": "import operator\ndef f():\n    pass\noperator.attrgetter('__glob' + 'als__')(f)",
    "methodcaller_subclasses": "import operator\noperator.methodcaller('__subclasses__')(object)",
    "methodcaller_reduce": "import operator\noperator.methodcaller('__reduce_ex__', 2)(1)",
    "reduce_getattr_chain": "import functools\nn = ['__cla' + 'ss__', '__ba' + 'se__', '__subcla' + 'sses__']\nfunctools.reduce(getattr, n, ())()",
    "partial_getattr": "import functools\ng = functools.partial(getattr, ())\ng('__cla' + 'ss__').__base__",
    "get_type_hints": "import typing\ndef f(x: int) -> int:\n    return x\ntyping.get_type_hints(f)",
    "module_class": "import math\nm = math\ngetattr(m, '__cla' + 'ss__')",
    "module_dict": "import math\nm = math\ngetattr(m, '__di' + 'ct__')",
    "module_write": "import math\nsetattr(math, 'pi', 3)",
    "module_error_obj": "import string\ntry:\n    string.nope\nexcept AttributeError as e:\n    o = getattr(e, 'obj')\no",
    "import_os": "import os",
    "import_os_path": "import os.path",
    "import_importlib": "import importlib",
    "dataclass_on_host_class": "import dataclasses, collections\ndataclasses.dataclass(collections.Counter)",
    "dataclass_mutable_default": "from dataclasses import dataclass\n@dataclass\nclass A:\n    x: list = []",
    "dataclass_slots": "from dataclasses import dataclass\n@dataclass(slots=True)\nclass A:\n    x: int = 0",
    "total_ordering_on_host_class": "import functools, fractions\nfunctools.total_ordering(fractions.Fraction)",
    "wraps_onto_host_function": "import functools, math\nfunctools.update_wrapper(math.floor, len)",
    "abstractmethod_on_host": "import abc, math\nabc.abstractmethod(math.floor)",
    "abc_register_host": "from abc import ABC\nABC.register(int)",
    "mapping_register_host": "from collections.abc import Mapping\nMapping.register(int)",
    "template_raw_pattern": "import string\nstring.Template('x').pattern",
    # contextmanager is guest code: what it drives is only ever called as the guest would
    "contextmanager_of_host_callable": "from contextlib import contextmanager\nimport math\nwith contextmanager(math.floor)(2.5):\n    pass",
    "json_cls": "import json\nclass E:\n    pass\njson.dumps(1, cls=E)",
    "re_debug_flag": "import re\nre.compile('a', 128)",
    "decimal_huge_prec": "import decimal\nc = decimal.getcontext()\nc.prec = 10**9",
    "decimal_localcontext_huge": "import decimal\nwith decimal.localcontext(prec=10**9):\n    pass",
    "abcmeta_not_exported": "from abc import ABCMeta",
    "enum_metaclass_not_exported": "from enum import EnumMeta",
    "typing_final_on_host_noop_runtime_checkable_host": "import typing\ntyping.runtime_checkable(typing.SupportsInt)",
    "typing_reveal_type_absent": "import typing\ntyping.reveal_type(1)",
    "namedtuple_meta_call_with_hook": "from typing import NamedTuple\nM = type(NamedTuple)\nM('X', (NamedTuple,), {'__annotations__': {}, '__del__': print})",
    "asdict_on_host_dataclass": "import dataclasses\ndataclasses.asdict(policy)",
    "fields_on_host_dataclass": "import dataclasses\ndataclasses.fields(policy)",
    "replace_on_host_dataclass": "import dataclasses\ndataclasses.replace(policy, name='x')",
    "fraction_huge_exponent_string": "from fractions import Fraction\nFraction('1e1000000000')",
    "decimal_huge_exponent_string": "from decimal import Decimal\nint(Decimal('1e99999999'))",
    "decimal_context_traps_set": "import decimal\nc = decimal.getcontext()\nc.traps = {}",
}


@pytest.mark.parametrize("code", list(ABUSE.values()), ids=list(ABUSE))
def test_abuse_is_refused(code):
    from safe_eval.policy.model import default_policy

    with pytest.raises((GuestError, PolicyViolation)) as info:
        safe_eval(code, {"policy": default_policy()})
    if isinstance(info.value, GuestError):
        assert info.value.type_name in {"AttributeError", "TypeError", "ImportError", "ValueError",
                                        "error", "PatternError", "KeyError", "ModuleNotFoundError"}


LIMITS = {
    "factorial_huge": "import math\nmath.factorial(10**8)",
    "comb_huge": "import math\nmath.comb(10**9, 10**8)",
    "prod_huge": "import math\nmath.prod([10**5000] * 100000)",
    "product_repeat": "import itertools\nitertools.product(range(10), repeat=10**9)",
    "permutations_huge_pool": "import itertools\nitertools.permutations(range(10**9))",
    "count_consumed_in_c": "import itertools\nsum(itertools.count())",
    "cycle_consumed_in_c": "import itertools\nmax(itertools.cycle([1, 2]))",
    "repeat_consumed_in_c": "import itertools\nlist(itertools.repeat(0))",
    "getrandbits_huge": "import random\nrandom.getrandbits(10**11)",
    "choices_huge": "import random\nrandom.choices([1], k=10**10)",
    "randbytes_huge": "import random\nrandom.Random().randbytes(10**10)",
    "sleep_past_deadline": "import time\ntime.sleep(60)",
    "sub_expansion": "import re\nre.sub('', 'x' * 100000, 'y' * 100000)",
    "textwrap_indent_bomb": "import textwrap\ntextwrap.indent('\\n' * 10**6, 'x' * 10**4)",
    "operator_mul_bomb": "import operator\noperator.mul('a', 10**12)",
    "operator_pow_bomb": "import operator\noperator.pow(10, 10**10)",
}


@pytest.mark.parametrize("code", list(LIMITS.values()), ids=list(LIMITS))
@pytest.mark.timeout(20)
def test_resource_abuse_stops_with_a_limit(code):
    with pytest.raises(LimitExceeded):
        safe_eval(code, {}, limits={"time": 1.0})


def test_json_layout_caps():
    with pytest.raises(GuestError, match="indent must be at most"):
        safe_eval("import json\njson.dumps([1] * 10, indent=10**9)", {})
    with pytest.raises(GuestError, match="separators must be at most"):
        safe_eval("import json\njson.dumps([1, 2], separators=(',' * 1000, ':'))", {})


def test_random_state_is_per_evaluation_and_not_the_hosts():
    import random

    random.seed(1234)
    expected = random.random()
    random.seed(1234)
    safe_eval("import random\nrandom.seed(0)\n[random.random() for _ in range(5)]", {})
    assert random.random() == expected


def test_time_sleep_raises_before_sleeping():
    import time

    t0 = time.monotonic()
    with pytest.raises(LimitExceeded, match="time.sleep"):
        safe_eval("import time\ntime.sleep(30)", {}, limits={"time": 1.0})
    assert time.monotonic() - t0 < 0.5


def test_guest_dataclass_signature_is_real():
    ns = {}
    safe_eval("from dataclasses import dataclass, field\n@dataclass\nclass A:\n    x: int\n    y: list = field(default_factory=list)\n    z: str = 'q'", ns)
    assert str(inspect.signature(ns["A"])) == "(x, y=<factory>, z='q') -> None"
