"""Scope resolution agrees with CPython's ``symtable`` for every function and class of the
conformance corpus and of the scoping programs below: a name the interpreter resolves as a
global is global for CPython, a free variable is free, a local is local."""

from __future__ import annotations

import symtable
from pathlib import Path

import pytest
from _corpus import runs_here

from safe_eval.interpreter.scopes import CELL, CLASSDEREF, FAST, GLOBAL, NAME, Scope, analyse_scopes
from safe_eval.pipeline.program import analyse

CORPUS = Path(__file__).parent / "data" / "conformance"

SCOPING = {
    "global_in_middle_function": (
        "g = 'module'\ndef outer():\n    g = 1\n    def mid():\n        global g\n"
        "        def inner():\n            return g\n        return inner()\n    return mid()\n"),
    "global_in_class_body_does_not_reach_methods": (
        "g = 'module'\ndef outer():\n    g = 1\n    class C:\n        global g\n"
        "        def m(self):\n            return g\n    return C().m()\n"),
    "nonlocal_through_two_levels": (
        "def a():\n    x = 0\n    def b():\n        def c():\n            nonlocal x\n            x += 1\n"
        "        c()\n    b()\n    return x\n"),
    "class_body_reads_enclosing_local": (
        "def f():\n    v = 1\n    class C:\n        w = v\n        v = 2\n    return C\n"),
}
SOURCES = {p.stem: p.read_text() for p in sorted(CORPUS.glob("*.py"))} | SCOPING


def _expected(sym: symtable.Symbol) -> set[str]:
    if sym.is_global():
        return {GLOBAL}
    if sym.is_free():
        return {CELL, CLASSDEREF}
    return {FAST, CELL}


def _pairs(ours: Scope, table: symtable.SymbolTable) -> list[tuple[Scope, symtable.SymbolTable]]:
    """Our function/class scopes matched with symtable's by kind, name and line."""
    out = []
    children: dict[tuple[str, str, int], list[symtable.SymbolTable]] = {}
    for t in table.get_children():  # several lambdas may share a line: keep their order
        children.setdefault((str(t.get_type()).rsplit(".", 1)[-1].lower(), t.get_name(), t.get_lineno()),
                            []).append(t)
    for child in ours.children:
        if child.is_comprehension:
            continue
        kind = "class" if child.kind == "class" else "function"
        name = "lambda" if child.name == "<lambda>" else child.name
        key = (kind, name, getattr(child.node, "lineno", 0))
        assert children.get(key), key
        match = children[key].pop(0)
        out.append((child, match))
        out += _pairs(child, match)
    return out


def _comprehension_names(scope: Scope) -> set[str]:
    """Names bound in comprehensions directly inside ``scope``: 3.12 inlines comprehensions
    (PEP 709), so symtable lists them as the function's own locals; we keep their scope."""
    names: set[str] = set()
    for child in scope.children:
        if child.is_comprehension:
            names |= child.assigned | _comprehension_names(child)
    return names


@pytest.mark.parametrize("source", [s for s in SOURCES.values() if runs_here(s)],
                         ids=[k for k, s in SOURCES.items() if runs_here(s)])
def test_every_name_resolves_as_symtable_says(source: str) -> None:
    program, _ = analyse(source)
    assert program is not None
    scopes = analyse_scopes(program.tree)
    module = scopes[id(program.tree)]
    for ours, table in _pairs(module, symtable.symtable(source, "<conformance>", "exec")):
        for sym in table.get_symbols():
            name = sym.get_name()
            if not (sym.is_referenced() or sym.is_assigned()) or name.startswith("."):
                continue
            if sym.is_annotated() and not sym.is_referenced() and not sym.is_assigned():
                continue
            kind = ours.kind_of(name)
            if sym.is_local() and name in _comprehension_names(ours) and name not in ours.locals_():
                continue
            if ours.kind == "class":
                assert kind in ({GLOBAL} if sym.is_declared_global() else {NAME, CLASSDEREF, GLOBAL}), name
            else:
                assert kind in _expected(sym), (ours, name, kind)
