"""Invariant 5, as an allowlist: every callable guest code can reach (the builtins, the methods
and slots of every host type the membrane lets it use, every curated module's exports) is
either priced in ``limits.routines`` or listed in ``limits.free_routines`` with the reason one
call of it is linear. A routine in neither fails here, by name."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from safe_eval.limits.free_routines import FREE, curated_exports, defined, free_routines, routine_of
from safe_eval.limits.routines import ROUTINES
from safe_eval.membrane.allowlists import (
    ALL_PUBLIC,
    DATA_METHOD_DUNDERS,
    HOST_TYPE_NAMES,
    ensure_stdlib_types,
)
from safe_eval.membrane.builtins import BUILTINS
from safe_eval.membrane.modules import CURATED, import_module

_DATA = (property, types.GetSetDescriptorType, types.MemberDescriptorType)


class _AllModules:
    imports = CURATED


def _load_everything() -> None:
    for name in sorted(CURATED):
        import_module(name, _AllModules())
    ensure_stdlib_types()


def _ours(cls: type) -> bool:
    """A type safe-eval itself lets the guest use: a builtin, stdlib or safe-eval class."""
    module = cls.__module__.split(".")[0]
    return module == "safe_eval" or module in sys.stdlib_module_names


def _exposed() -> dict[str, Any]:
    """``{path the guest reaches it by: routine}`` for every callable the guest can reach."""
    _load_everything()
    found: dict[str, Any] = {}
    for name, value in BUILTINS.items():
        if callable(value):
            found[f"builtins.{name}"] = routine_of(value)
    handed = {v for m in CURATED for v in curated_exports(m).values() if isinstance(v, type)}
    for cls, listed in list(HOST_TYPE_NAMES.items()):
        if not _ours(cls):  # a type a host (another test) exposed: its methods are its own
            continue
        if type(cls).__name__ == "GuardedClass" and cls not in handed:
            continue  # a stand-in of an earlier build of its module: no longer handed out
        names = {n for n in dir(cls) if not n.startswith("_")} if listed is ALL_PUBLIC else set(listed)
        names |= {n for n in DATA_METHOD_DUNDERS if hasattr(cls, n)}
        for name in sorted(names):
            try:
                routine = defined(cls, name)
            except KeyError:  # a metaclass attribute (``mro``): not the type's own
                continue
            if isinstance(routine, _DATA) or not (callable(routine) or isinstance(routine, classmethod | staticmethod)):
                continue
            found[f"{cls.__module__}.{cls.__qualname__}.{name}"] = routine
    for module in sorted(CURATED):
        for name, value in curated_exports(module).items():
            if callable(value) and not isinstance(value, type):
                found[f"{module}.{name}"] = routine_of(value)
    return found


def _decided(routine: Any, free: dict[Any, str], guards: set[int]) -> bool:
    """Priced (the routine, or the guard the guest holds in its place) or listed free; a
    class-level descriptor (``staticmethod``/``classmethod``) by itself or by its function."""
    for candidate in (routine, routine_of(routine)):
        try:
            if candidate in ROUTINES or candidate in free:
                return True
        except TypeError:  # unhashable: looked up by identity
            if id(candidate) in free:
                return True
        if id(candidate) in guards:
            return True
    return False


def test_every_callable_the_guest_can_reach_is_priced_or_listed_free_with_a_reason() -> None:
    free = free_routines()
    guards = {id(g) for g in ROUTINES.values()}
    undecided = sorted(path for path, routine in _exposed().items() if not _decided(routine, free, guards))
    assert undecided == []


def test_every_class_a_curated_module_exports_has_a_priced_constructor_or_stores_its_arguments() -> None:
    _load_everything()
    free = free_routines()
    undecided = []
    for module in sorted(CURATED):
        for name, value in curated_exports(module).items():
            if isinstance(value, type) and not (
                value in ROUTINES or value in free or issubclass(value, BaseException)
                or value.__module__.startswith("safe_eval.")
            ):
                undecided.append(f"{module}.{name}")
    assert undecided == []


@pytest.mark.parametrize("owner", sorted(FREE))
def test_every_free_entry_names_a_routine_that_exists_with_a_reason(owner: str) -> None:
    free = free_routines()
    for names, reason in FREE[owner].items():
        assert (len(names.split()) > 0, len(reason) > 10) == (True, True)
    assert len(free) > 1000
