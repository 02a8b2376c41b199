"""The restrict stage: every statically visible violation, with its rule and span; the tree
handed on is the original one; every node type of the running Python is reviewed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from _attack_data import CORPUS
from _corpus import corpus_params

from safe_eval.checking import check
from safe_eval.membrane.dunders import DEFINABLE_DUNDERS, FORBIDDEN_DUNDERS
from safe_eval.pipeline.parse import parse
from safe_eval.pipeline.restrict import DENIED_NODES, SafeEvalRules, restrict
from safe_eval.pipeline.scrub import scrub

DATA = Path(__file__).parent / "data"


ATTACKS = {entry["id"]: entry for entry in CORPUS}

# Payloads the static stages catch, with the P/R rules they break. Every other payload is left
# to the policy check (T0xx), the membrane and the limits: the last test pins that boundary.
STATIC: dict[str, set[str]] = {
    "subcls_wrap_close_system": {"R003"},
    "subcls_popen_via_repr": {"R003"},
    "subcls_mro_method": {"R003", "R004"},
    "subcls_kaboom_rehost_code": {"R002", "R003"},
    "bi_open_write": {"R001"},
    "bi_open_read": {"R001"},
    "bi_eval_string": {"R009"},
    "bi_compile_exec": {"R001"},
    "bi_builtins_dict_get": {"R002"},
    "bi_breakpoint_pdb": {"R001"},
    "frame_gen_gi_frame_f_back": {"R004"},
    "frame_genexpr_gi_frame": {"R004"},
    "frame_sys_getframe": {"R004", "R005"},
    "frame_coroutine_cr_frame": {"R004"},
    "frame_async_gen_ag_frame": {"R004"},
    "frame_walk_to_host_module": {"R003", "R004"},
    "fmt_string_formatter_vformat": {"R003"},
    "fmt_attributeerror_obj": {"R003"},
    "fmt_fstring_spec_asteval": {"R003"},
    "fmt_fstring_expression": {"R003"},
    "imp_random_private_os": {"R005"},
    "imp_queue_threading_os": {"R005"},
    "imp_collections_private_sys": {"R005"},
    "imp_loader_load_module": {"R002"},
    "obf_unicode_exec": {"R009"},
    "obf_unicode_dunder_attrs": {"R003"},
    "obf_unicode_import": {"R002"},
    "obf_functools_reduce_getattr": {"R003"},
    "obf_object_getattribute": {"R003"},
    "obf_augassign_dunder_read": {"R003"},
    "obf_function_annotation": {"R002"},
    "obf_match_class_pattern": {"R003"},
    "cls_metaclass_new": {"R002", "R007"},
    "cls_init_subclass": {"R002", "R006"},
    "cls_decorator": {"R002"},
    "cls_decorator_expression": {"R002"},
    "cls_type_three_arg": {"R002"},  # __getitem__ is definable: type() builds a guest class
    "cls_class_getitem": {"R002", "R006"},
    "cls_index_hook_in_builtin": {"R002"},
    "cls_repr_called_by_host": {"R002"},
    "cls_exception_str_called_by_host": {"R002"},
    "tamper_rp_positional_only_write_guard": {"R013"},
    "tamper_builtins_override": {"R002"},
    "tamper_host_class_method": {"R013"},
    "host_func_globals_os": {"R003"},
    "host_instance_init_globals": {"R003"},
    "host_builtin_self_module": {"R003"},
    "host_coroutine_cr_frame": {"R004"},
    "host_class_mro_subclasses": {"R003", "R004"},
    "host_partial_func_self": {"R003"},
    "host_private_attr_read": {"R005"},
    "host_format_map_func_globals": {"R003"},
    "dos_parser_plus_chain": {"P005"},
    "dos_nested_lists_190": {"P007"},
    "crash_faulthandler_sigsegv": {"R005"},
    "crash_os_exit": {"R005"},
}


def _check_attack(entry: dict):
    return check(entry["code"], env={name: None for name in entry.get("env", ())})


def _static_codes(entry: dict) -> set[str]:
    return {d.code for d in _check_attack(entry).diagnostics if d.code[0] in "PR"}


def test_expected_ids_exist() -> None:
    assert set(STATIC) <= set(ATTACKS)


@pytest.mark.parametrize("attack_id", sorted(STATIC))
def test_static_payload_is_caught(attack_id: str) -> None:
    report = _check_attack(ATTACKS[attack_id])
    assert not report.ok
    assert {d.code for d in report.diagnostics if d.code[0] in "PR"} == STATIC[attack_id]
    lines = ATTACKS[attack_id]["code"].split("\n")
    for d in report.diagnostics:
        assert 1 <= d.line <= len(lines) and d.col >= 1 and d.hint


@pytest.mark.parametrize("attack_id", sorted(set(ATTACKS) - set(STATIC)))
def test_dynamic_payload_is_left_to_the_runtime(attack_id: str) -> None:
    assert _static_codes(ATTACKS[attack_id]) == set()


@pytest.mark.parametrize(
    ("attack_id", "code", "line", "col", "end_col"),
    [
        ("subcls_wrap_close_system", "R003", 1, 23, 31),  # ().__class__.__base__: `__base__`
        ("bi_open_write", "R001", 1, 1, 5),
        ("obf_unicode_dunder_attrs", "R003", 1, 23, 31),  # fullwidth `_＿base_＿`, in characters
        ("host_private_attr_read", "R005", 1, 9, 17),
        ("cls_init_subclass", "R006", 2, 5, 26),  # `def __init_subclass__`
        ("cls_metaclass_new", "R007", 5, 9, 20),  # `metaclass=M`
        ("tamper_rp_positional_only_write_guard", "R013", 6, 10, 12),  # math.`pi` = 3
    ],
)
def test_positions(attack_id: str, code: str, line: int, col: int, end_col: int) -> None:
    report = _check_attack(ATTACKS[attack_id])
    spans = [(d.line, d.col, d.end_col) for d in report.diagnostics if d.code == code]
    assert spans[0] == (line, col, end_col)


def _env_names(code: str) -> dict[str, None]:
    first = code.split("\n", 1)[0]
    if not first.startswith("# env:"):
        return {}
    return dict.fromkeys(re.findall(r"(?:^# env: |,\s*)(\w+)=", first))


@pytest.mark.parametrize("path", corpus_params())
def test_conformance_programs_are_clean(path: Path) -> None:
    code = path.read_text(encoding="utf-8")
    report = check(code, env=_env_names(code), filename=path.name)
    assert report.ok, report.render()


def _rules(code: str) -> list[str]:
    parsed, diagnostics = parse(code)
    assert parsed is not None, diagnostics
    return [d.code for d in restrict(parsed.nodes, parsed.source)]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("open('f')", ["R001"]),
        ("globals()['x']", ["R001"]),
        ("f = compile", ["R001"]),
        ("__import__('os')", ["R002"]),
        ("__builtins__", ["R002"]),
        ("__name__ = 'x'", ["R002"]),
        ("def __getattr__(name):\n    return 1", ["R002"]),
        ("for __x__ in []:\n    pass", ["R002"]),
        ("import math as __m__", ["R002"]),
        ("x = 1\nx.__globals__", ["R003"]),
        ("x = 1\nx.__class__ = int", ["R003"]),
        ("x = 1\ngetattr(x, '__subclasses__')", ["R003"]),
        ("x = 1\nsetattr(x, '__class__', int)", ["R003"]),
        ("import operator\noperator.attrgetter('a.__dict__.__globals__')", ["R003"]),
        ("'{0.__class__.__base__}'.format(1)", ["R003"]),
        ("'{x:{y.__globals__}}'.format(x=1, y=2)", ["R003"]),
        ("def g():\n    yield 1\ng().gi_frame", ["R004"]),
        ("class A:\n    pass\nA.mro()", ["R004"]),
        ("import random\nrandom._inst", ["R005"]),
        ("data._secret", ["R005"]),
        ("class A:\n    def __del__(self):\n        pass", ["R006"]),
        ("class A:\n    def __fspath__(self):\n        return ''", ["R006"]),
        ("class A:\n    __class_getitem__ = classmethod(lambda c, i: c)", ["R006"]),
        ("class A(metaclass=type):\n    pass", ["R007"]),
        ("class A(flag=True):\n    pass", ["R007"]),
        ("type('T', (), {'__get__': len})", ["R008"]),
        ("exec('x = ().__class__.__base__')", ["R009"]),
        ("eval(\"eval('__import__(1)')\")", ["R009"]),
        ("from math import *", ["R011"]),
        ("import _thread", ["R012"]),
        ("from os import _exit", ["R012"]),
        ("import math\nmath.pi = 3", ["R013"]),
        ("del env_thing.attr", ["R013"]),
        ("open('a')\nx = 1\nx.__code__\nimport _x", ["R001", "R003", "R012"]),
    ],
)
def test_each_rule(code: str, expected: list[str]) -> None:
    assert _rules(code) == expected


@pytest.mark.parametrize(
    "code",
    [
        "class A:\n    def __init__(self):\n        self._x = 1\n    def get(self):\n        return self._x",
        "class B(Exception):\n    def __init__(self, m):\n        super().__init__(m)\n",
        "x = 1\n(type(x).__name__, x.__class__.__name__, x.__class__.__qualname__)",
        "def f():\n    pass\nf.__name__, f.__doc__, f.__module__",
        "if __name__ == '__main__':\n    pass",
        "class V:\n    __slots__ = ('a',)\n    __hash__ = None\n    def __add__(self, o):\n        return self\n"
        "    __radd__ = __add__",
        "from __future__ import annotations\nimport math",
        "_private = 1\n_ = 2\ndef _helper(_a):\n    return _a",
        "def f(input, open=None):\n    return input",
        "print('hi')\neval('1 + 1')\nexec('y = 2')",
        "async def f():\n    await g()\n    async for x in y:\n        pass\n    async with z:\n        pass",
        "def outer():\n    n = 0\n    def inner():\n        nonlocal n\n        n += 1\n    return inner",
        "match p:\n    case {'k': v, **rest}:\n        pass\n    case [1, *others]:\n        pass\n    case P(x=0):\n        pass",
        "x: int = 5\nif (n := 10) > 5:\n    pass",
        "from collections import namedtuple\nP = namedtuple('P', 'x y')\np = P(1, 2)\np._replace(x=3)._asdict()",
        "def deco(fn):\n    def wrapper(*a, **k):\n        return fn(*a, **k)\n    wrapper.__name__ = fn.__name__\n"
        "    wrapper.__wrapped__ = fn\n    return wrapper",
        "class C:\n    pass\nC.__mro__",
        "try:\n    pass\nexcept ValueError as e:\n    e.__cause__, e.__context__",
        "'{0} {name!r:>10}'.format(1, name='x')\nf'{1:{2}}'",
        "getattr(1, 'real'), hasattr(1, 'imag')",
        "class A:\n    pass\na = A()\na.x = 1\nobj = {}\nobj['k'] = 1",
    ],
)
def test_allowed_code_is_clean(code: str) -> None:
    assert _rules(code) == []


def test_every_violation_is_reported_not_just_the_first() -> None:
    code = "open('a')\nx = ().__class__.__base__\ny = x.__subclasses__()\nimport _thread\n"
    assert _rules(code) == ["R001", "R003", "R003", "R012"]


def test_check_does_not_rewrite_the_tree() -> None:
    code = (DATA / "conformance" / "class__dunder_ops.py").read_text(encoding="utf-8")
    parsed, _ = parse(code)
    assert parsed is not None
    scrub(parsed.tree, parsed.source)
    before = ast.dump(parsed.tree, include_attributes=True)
    restrict(parsed.nodes, parsed.source)
    SafeEvalRules(parsed.source).visit(parsed.tree)
    assert ast.dump(parsed.tree, include_attributes=True) == before


def _ast_node_types() -> list[type[ast.AST]]:
    found: list[type[ast.AST]] = []
    todo: list[type[ast.AST]] = [ast.AST]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found and sub.__module__ == "ast":
                found.append(sub)
                todo.append(sub)
    return found


@pytest.mark.parametrize("node_type", _ast_node_types(), ids=lambda t: t.__name__)
def test_every_node_type_is_reviewed(node_type: type[ast.AST]) -> None:
    """Fails on a Python whose AST has a node type we neither handle nor deny."""
    handled = node_type in SafeEvalRules._table
    denied = node_type.__name__ in DENIED_NODES
    abstract = node_type in (ast.mod, ast.stmt, ast.expr, ast.expr_context, ast.boolop, ast.operator,
                             ast.unaryop, ast.cmpop, ast.excepthandler, ast.pattern, ast.type_ignore,
                             ast.slice)
    assert handled or denied or abstract, f"{node_type.__name__} is neither handled nor denied"
    assert not (handled and denied)


def test_dunder_allowlists_come_from_the_membrane() -> None:
    for name in FORBIDDEN_DUNDERS:
        assert _rules(f"class A:\n    def {name}(self):\n        pass") == ["R006"]
    for name in sorted(DEFINABLE_DUNDERS):
        assert _rules(f"class A:\n    def {name}(self):\n        pass") == []


def test_code_string_diagnostic_points_at_the_string() -> None:
    parsed, _ = parse("x = 1\nexec('import _thread')")
    assert parsed is not None
    (diag,) = restrict(parsed.nodes, parsed.source)
    assert (diag.code, diag.line, diag.col) == ("R009", 2, 6)
    assert "R012" in diag.message
