"""The scrub stage: annotations inert or kept aside, docstrings dropped, tree still compiles."""

from __future__ import annotations

import ast
import gzip
import json
import re
from pathlib import Path

import pytest
from _corpus import corpus_params

from safe_eval.pipeline.program import build_program

DATA = Path(__file__).parent / "data"
CONFORMANCE = sorted((DATA / "conformance").glob("*.py"))


def _humaneval() -> list[tuple[str, str]]:
    with gzip.open(DATA / "humaneval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as handle:
        problems = [json.loads(line) for line in handle]
    return [(p["task_id"], p["prompt"] + p["canonical_solution"]) for p in problems]


def env_names(code: str) -> tuple[str, ...]:
    """Names from a conformance file's ``# env: a=..., b=...`` header."""
    first = code.split("\n", 1)[0]
    return tuple(re.findall(r"(?:^# env: |,\s*)(\w+)=", first)) if first.startswith("# env:") else ()


CORPUS = corpus_params(lambda path: path.read_text(encoding="utf-8"))
CORPUS += [pytest.param(code, id=task) for task, code in _humaneval()]


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


@pytest.mark.parametrize("code", CORPUS)
def test_scrubbed_tree_has_no_live_annotation_and_compiles(code: str) -> None:
    program = build_program(code, env_names=env_names(code))
    tree = program.tree
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            assert node.annotation is None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.returns is None
            body = node.body
            assert not (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                        and isinstance(body[0].value.value, str)), "docstring left"
        if isinstance(node, ast.AnnAssign):
            assert isinstance(node.annotation, ast.Constant) and isinstance(node.annotation.value, str)
    compile(tree, program.filename, "exec")
    assert ast.unparse(tree)


def test_function_annotations_are_kept_aside() -> None:
    program = build_program("def f(a: int, /, b: 'list[str]' = [], *c: float, d: bool, **e: dict) -> str:\n    return ''")
    (fn,) = _functions(program.tree)
    kept = program.annotations[id(fn)]
    assert sorted(kept) == ["a", "b", "c", "d", "e", "return"]
    assert ast.unparse(kept["a"]) == "int"
    assert ast.unparse(kept["return"]) == "str"
    assert all(a.annotation is None for a in ast.walk(fn.args) if isinstance(a, ast.arg))


def test_function_without_annotations_has_no_entry() -> None:
    program = build_program("def f(a, b=1):\n    return a\n")
    assert program.annotations == {}


def test_class_fields_stay_ann_assign_in_order_with_inert_text() -> None:
    program = build_program("class P:\n    x: int = 0\n    y: 'list[str]'\n    z: dict[str, int] = {}\n")
    cls = program.tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    fields = [(s.target.id, s.annotation.value) for s in cls.body if isinstance(s, ast.AnnAssign)
              and isinstance(s.target, ast.Name) and isinstance(s.annotation, ast.Constant)]
    assert fields == [("x", "int"), ("y", "'list[str]'"), ("z", "dict[str, int]")]
    assert sorted(program.annotations[id(cls)]) == ["x", "y", "z"]


def test_module_level_annotated_assignment_keeps_value_and_loses_annotation() -> None:
    program = build_program("x: dict[str, 'Foo'] = 5\nx")
    stmt = program.tree.body[0]
    assert isinstance(stmt, ast.AnnAssign)
    assert isinstance(stmt.annotation, ast.Constant) and stmt.annotation.value == "dict[str, 'Foo']"
    assert isinstance(stmt.value, ast.Constant) and stmt.value.value == 5


def test_annotation_text_of_non_ascii_and_multi_line_annotations() -> None:
    program = build_program("class C:\n    é: 'naïve' = 1\n    m: dict[\n        str, int\n    ] = {}\n")
    cls = program.tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    texts = [s.annotation.value for s in cls.body if isinstance(s, ast.AnnAssign)
             and isinstance(s.annotation, ast.Constant)]
    assert texts == ["'naïve'", "dict[str, int]"]


def test_docstrings_are_dropped() -> None:
    code = '"""module doc"""\nclass A:\n    """class doc"""\n    x = 1\ndef f():\n    """only a docstring"""\nA.x'
    program = build_program(code)
    body = program.tree.body
    assert isinstance(body[0], ast.ClassDef) and isinstance(body[0].body[0], ast.Assign)
    assert isinstance(body[1], ast.FunctionDef) and isinstance(body[1].body[0], ast.Pass)
    assert "doc" not in ast.unparse(program.tree)


def test_a_lone_string_is_the_value_not_a_docstring() -> None:
    program = build_program("'hello'")
    (stmt,) = program.tree.body
    assert isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt.value.value == "hello"


def test_nested_functions_in_blocks_are_scrubbed() -> None:
    code = ("if True:\n    def f(x: int) -> int:\n        '''doc'''\n        return x\n"
            "try:\n    pass\nexcept Exception:\n    def g(y: str):\n        return y\n"
            "match 1:\n    case 1:\n        def h(z: bytes):\n            return z\n")
    program = build_program(code)
    fns = _functions(program.tree)
    assert len(fns) == 3
    assert all(id(fn) in program.annotations for fn in fns)
    assert all(fn.returns is None for fn in fns)
