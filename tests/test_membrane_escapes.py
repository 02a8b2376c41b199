"""Escape attempts that get past the static stage (names built at run time, host objects in
env, format strings) and must be stopped by the membrane itself, through the public API."""

from __future__ import annotations

import functools
import json
import os
import sys
import types
from typing import Any

import pytest
from _attack_data import HOSTOBJS, TOKEN, planted_secret

from safe_eval import Evaluator, safe_eval
from safe_eval.errors import GuestError, PolicyViolation, SafeEvalError
from safe_eval.membrane import expose

D = "'_'*2"  # a dunder prefix built at run time: invisible to the static checks
ENV_NAMES = ["helper", "account", "Account", "feed", "counter", "check_key", "length", "path", "tools",
             "funcs", "get_module", "fail", "log"]


@pytest.fixture(scope="module", autouse=True)
def _init() -> Any:
    yield from planted_secret()


def d(name: str) -> str:
    """Guest code for the dunder ``__name__`` built at run time."""
    return f"({D}+'{name}'+{D})"


# (id, code, expected error type name in GuestError/PolicyViolation)
BLOCKED = [
    ("class_base_subclasses", f"getattr(getattr(getattr((), {d('class')}), {d('base')}), {d('subclasses')})()"),
    ("object_subclasses", f"getattr(object, {d('subclasses')})()"),
    ("type_mro_dynamic", "m = 'm' + 'ro'\ngetattr(type(()), m)()"),
    # type(name, bases, ns) builds guest classes: the escape is a refused dunder or a host base
    ("type_of_type_three_args", f"t = type(type(1))\nns = {{}}\nns[{d('del')}] = print\nt('X', (), ns)"),
    ("class_of_class", f"getattr(getattr(1, {d('class')}), {d('class')})('X', (type(len),), {{}})"),
    ("guest_func_globals", f"def f(): pass\ngetattr(f, {d('globals')})"),
    ("guest_func_internals", "def f(): pass\n[getattr(f, n) for n in ('code', 'globals', 'closure', 'origin')]"),
    ("guest_func_builtins", f"def f(): pass\ngetattr(f, {d('builtins')})"),
    ("bound_method_func_globals", f"class A:\n    def m(self): pass\ngetattr(getattr(A().m, {d('func')}), {d('globals')})"),
    ("generator_frame", "def g():\n    yield 1\nx = g()\nnext(x)\ngetattr(x, 'gi' + '_frame')"),
    ("coroutine_frame", "async def c():\n    return 1\nx = c()\ngetattr(x, 'cr' + '_frame')"),
    ("traceback_frame", f"try:\n    1/0\nexcept Exception as e:\n    t = getattr(e, {d('traceback')})\nt.tb_frame"),
    ("exception_obj", "try:\n    (1).nope\nexcept AttributeError as e:\n    o = getattr(e, 'o' + 'bj')\no.x"),
    ("helper_globals", f"getattr(helper, {d('globals')})['os']"),
    ("helper_code_consts", f"getattr(getattr(check_key, {d('code')}), 'co_consts')"),
    ("counter_closure", f"getattr(counter, {d('closure')})[0].cell_contents"),
    ("builtin_self_module", f"getattr(length, {d('self')}).open"),
    ("partial_func_self", f"getattr(getattr(log, 'func'), {d('self')})"),
    ("account_private_key", "getattr(account, '_' + 'api_key')"),
    ("account_class_init_globals", f"getattr(getattr(getattr(account, {d('class')}), {d('init')}), {d('globals')})"),
    ("account_type_rebuild", "type(account)(1)"),
    ("class_mro_subclasses", "getattr(Account, 'm' + 'ro')()"),
    ("namespace_module", "tools.json.codecs"),
    ("funcs_exec", "funcs[0]('1')"),
    ("module_in_env", "path.join('a', 'b')"),
    ("tool_returns_module", "get_module().join('a', 'b')"),
    ("format_globals", "('{0.' + " + D + " + 'globals' + " + D + " + '}').format(helper)"),
    ("format_map_globals", "('{f.' + " + D + " + 'globals' + " + D + " + '}').format_map({'f': helper})"),
    ("format_host_attr", "'{0.json}'.format(tools)"),
    ("format_str_subclass", "class S(str): pass\nS('{0.' + " + D + " + 'class' + " + D + " + '}').format(1)"),
    ("string_formatter", "import string\nstring.Formatter().format('{0.' + " + D + " + 'globals' + " + D + " + '}', helper)"),
    ("attrgetter_chain", f"import operator\noperator.attrgetter({d('class')} + '.' + {d('base')})(1)"),
    ("reduce_getattr", f"import functools\nfunctools.reduce(getattr, [{d('class')}, {d('base')}], ())"),
    ("map_getattr", f"list(map(getattr, [()], [{d('class')}]))[0].mro()"),
    ("object_getattribute", f"getattr(object, {d('getattribute')})((), {d('class')})"),
    ("object_setattr_host", f"getattr(object, {d('setattr')})(account, 'balance', 10**6)"),
    ("math_setattr", "import math\nsetattr(math, 'pi', 3)"),
    ("math_module_dict", f"import math\ngetattr(math, {d('dict')})"),
    ("math_sqrt_self", f"import math\ngetattr(math.sqrt, {d('self')})"),
    ("json_dumps_globals", f"import json\ngetattr(json.dumps, {d('globals')})"),
    ("guest_class_dict_token", f"class A: pass\ngetattr(A, {d('dict')})"),
    ("guest_class_set_forbidden_dunder", f"class A: pass\nsetattr(A, {d('init_subclass')}, lambda *a: 0)"),
    ("guest_object_retype", f"class A: pass\nsetattr(A(), {d('class')}, int)"),
    ("mro_last_subclasses", f"class A: pass\ngetattr(getattr(A, {d('mro')})[-1], {d('subclasses')})()"),
    ("vars_of_host_object", "vars(account)"),
    ("vars_of_scope", "vars()"),
    ("super_of_host_object", "super(int, 1)"),
    ("unicode_confusable_name", "getattr((), '\\uff3f\\uff3fclass\\uff3f\\uff3f')"),
    ("dict_view_mapping", "getattr({}.keys(), 'map' + 'ping')"),
    ("eval_dynamic_dunder", f"eval('getattr(getattr((), ' + repr({D}+'class'+{D}) + '), ' + repr({D}+'base'+{D}) + ')')"),
]


@pytest.mark.parametrize(("case", "code"), BLOCKED, ids=[c for c, _ in BLOCKED])
def test_dynamic_escape_is_blocked(case: str, code: str) -> None:
    env = HOSTOBJS.build_env(ENV_NAMES)
    HOSTOBJS.resnapshot()
    with pytest.raises((GuestError, PolicyViolation)) as info:
        safe_eval(code, env)
    assert TOKEN not in str(info.value)
    assert HOSTOBJS.tampered() == []


def test_dir_of_the_scope_lists_only_names_the_code_can_already_load() -> None:
    env = HOSTOBJS.build_env(ENV_NAMES)
    names = safe_eval("x = 1\ndir()", env)
    assert names == sorted([*ENV_NAMES, "x"])
    assert TOKEN not in repr(names)


def test_allowed_introspection_still_works() -> None:
    code = (
        "class K:\n    pass\n"
        "def f(x=1): return x\n"
        "class A(K):\n    def __init__(self): self._p = 1\n"
        "a = A()\n"
        "(f.__name__, K.__name__, type(K()).__name__, type(3).__name__, callable(f),"
        " [k.__name__ for k in A.__mro__], vars(a), a._p, hasattr(a, '_p'), getattr(a, 'zz', 0),"
        " isinstance(K, type), getattr(f, '_'*2 + 'defaults' + '_'*2), '{0:>4}|{1[0]}|{2.real}'.format(7, [8], 9))"
    )
    value = safe_eval(code)
    assert value == ("f", "K", "K", "int", True, ["A", "K", "object"], {"_p": 1}, 1, True, 0, True, (1,),
                     "   7|8|9")


def test_tools_run_and_results_cross_back() -> None:
    env = HOSTOBJS.build_env(["helper", "Account", "fail"])
    assert safe_eval("helper(21)", env) == 42
    value = safe_eval(
        "try:\n    fail(1)\nexcept ValueError as e:\n    r = (e.args, e.__context__, e.__cause__)\nr", env
    )
    assert value == (("bad input 1",), None, None)
    assert repr(safe_eval("Account('bob')", env)) == "<Account object>"


def test_exposed_object_through_the_api() -> None:
    account = HOSTOBJS.Account("carol")
    env = {"acct": expose(account, attrs=["owner", "balance"], methods=["deposit"])}
    assert safe_eval("acct.deposit(5)\n(acct.owner, acct.balance)", env) == ("carol", 5)
    with pytest.raises(GuestError):
        safe_eval("getattr(acct, '_' + 'api_key')", {"acct": expose(account, attrs=["owner"])})
    with pytest.raises((GuestError, PolicyViolation)):
        safe_eval("acct.owner = 'mallory'", {"acct": expose(account, attrs=["owner"])})
    assert account.owner == "carol"


class Declared:
    __safe_eval_expose__ = ("name", "greet")

    def __init__(self) -> None:
        self.name = "d"
        self.secret = TOKEN

    def greet(self) -> str:
        return "hi " + self.name


def test_class_level_declaration() -> None:
    assert safe_eval("(obj.name, obj.greet())", {"obj": Declared()}) == ("d", "hi d")
    with pytest.raises(GuestError) as info:
        safe_eval("obj.secret", {"obj": Declared()})
    assert TOKEN not in str(info.value)


@pytest.mark.parametrize(
    "value",
    [exec, eval, compile, open, os.system, os, sys, types.FunctionType, functools.partial(eval, "1"),
     json.codecs if hasattr(json, "codecs") else os.path],
    ids=lambda v: getattr(v, "__name__", type(v).__name__),
)
def test_dangerous_env_values_cannot_be_used(value: Any) -> None:
    with pytest.raises(SafeEvalError):
        safe_eval("x('1')", {"x": value})
    with pytest.raises(SafeEvalError):
        safe_eval("x.anything", {"x": value})


def test_guest_eval_runs_through_safe_eval() -> None:
    assert safe_eval("eval('1 + 2')") == 3
    with pytest.raises((GuestError, PolicyViolation)):
        safe_eval("eval(\"__import__('os')\")")
    assert Evaluator().run("exec('print(5)')").stdout == "5\n"
