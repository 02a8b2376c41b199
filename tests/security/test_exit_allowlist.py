"""Finding class 4, the exit check is an allowlist: every value an attribute read hands to the
guest passes ``attributes._exit``, which admits what the entry admits
(``membrane/admission.py``) and refuses the rest, whatever module it comes from. The old check
refused only what it knew to be dangerous (functions of named modules, frames ...): a host
function of any other module, a host dict holding host callables and a slot wrapper bound to
a type went out as they were.

The attack surface: a host lists one of its plain-data types (``allow_host_type``) and puts an
instance in ``env``; the guest reads the listed fields and walks what they lead to."""

from __future__ import annotations

import subprocess
import textwrap
from dataclasses import dataclass, field
from typing import Any

import pytest

from safe_eval import safe_eval
from safe_eval.errors import GuestError
from safe_eval.membrane import allow_host_type

CALLED: list[str] = []


def host_side_effect(*args: object) -> str:
    """A host function of an ordinary module: the guest must never call it raw (no policy)."""
    CALLED.append("host_side_effect")
    return "ran with host rights"


@dataclass
class Job:
    name: str = "job"
    handler: Any = host_side_effect
    registry: dict[str, Any] = field(default_factory=lambda: {"run": subprocess.run, "n": 1})
    hooks: list[Any] = field(default_factory=lambda: [textwrap.dedent])
    slot: Any = object.__subclasses__
    setter: Any = object.__setattr__
    numbers: dict[str, int] = field(default_factory=lambda: {"a": 1, "b": 2})


allow_host_type(Job)  # every public field readable: the exit check alone decides what goes out


def _run(code: str) -> Any:
    return safe_eval(code, {"job": Job()})


REFUSED_READS = [
    pytest.param("job.handler", id="host_function_of_an_ordinary_module"),
    pytest.param("job.handler()", id="calling_a_host_function_read_from_a_field"),
    pytest.param("job.registry", id="host_dict_holding_a_host_callable"),
    pytest.param("job.registry['run'](['true'])", id="host_dict_leading_to_subprocess_run"),
    pytest.param("job.hooks", id="host_list_holding_a_stdlib_function"),
    pytest.param("job.hooks[0]('  x')", id="stdlib_function_of_a_harmless_module"),
    pytest.param("job.slot", id="bound_type_hook_subclasses"),
    pytest.param("job.slot()", id="calling_subclasses_to_walk_every_class"),
    pytest.param("job.setter", id="raw_object_setattr"),
    pytest.param("getattr(job, 'hand' + 'ler')", id="getattr_builtin_same_rule"),
]


@pytest.mark.parametrize("code", REFUSED_READS)
def test_an_attribute_read_never_hands_out_a_host_value_the_entry_would_not_admit(code: str) -> None:
    CALLED.clear()
    with pytest.raises(GuestError) as info:
        _run(code)
    assert info.value.type_name == "AttributeError"
    assert "not admit" in info.value.message
    assert CALLED == []


def test_hasattr_reports_a_refused_host_value_as_missing() -> None:
    assert _run("(hasattr(job, 'handler'), hasattr(job, 'name'))") == (False, True)


ADMITTED_READS = [
    pytest.param("job.name", "job", id="plain_field"),
    pytest.param("job.numbers", {"a": 1, "b": 2}, id="dict_of_plain_data"),
    pytest.param("job.name.upper()", "JOB", id="method_bound_to_plain_data"),
    pytest.param("str.upper('a')", "A", id="unbound_method_of_a_listed_type"),
    pytest.param("(7).__add__(1)", 8, id="slot_wrapper_bound_to_data"),
    pytest.param("str.maketrans('a', 'b')", {97: 98}, id="static_method_of_a_listed_type"),
    pytest.param("dict.fromkeys('ab')", {"a": None, "b": None}, id="classmethod_of_a_listed_type"),
    pytest.param("import collections\ncollections.Counter('aab').most_common(1)", [("a", 2)],
                 id="python_method_of_a_listed_type"),
    pytest.param("import math\nf = math.sqrt\nf(9)", 3.0, id="curated_module_function"),
]


@pytest.mark.parametrize(("code", "expected"), ADMITTED_READS)
def test_reads_the_allowlist_admits_still_work(code: str, expected: Any) -> None:
    assert _run(code) == expected


# reads the run-time rules refuse on their own (names computed: the static stage does not see them)
RUNTIME_REFUSED_READS = {
    "f = staticmethod(len)\ngetattr(f, '__fu' + 'nc__')": "it leads to a host object",
    "import enum\nclass E(enum.Enum):\n    A = 1\nsetattr(E, '_miss' + 'ing_', 1)": "'_missing_' is not accessible",
    "class A:\n    def f(self):\n        return getattr(super(), '__redu' + 'ce_ex__')\nA().f()":
        "'super' object attribute '__reduce_ex__' is not accessible",
    "import collections\nclass D(collections.OrderedDict):\n    def f(self):\n        return getattr(super(), '_' + 'x')\n"
    "D().f()": "has no attribute '_x'",
    "m = 'ab'.__mul__\ngetattr(m, '__se' + 'lf__')": "'__self__' is not accessible",
}


@pytest.mark.parametrize("code", RUNTIME_REFUSED_READS, ids=range(len(RUNTIME_REFUSED_READS)))
def test_the_run_time_attribute_rules_refuse_what_the_static_stage_cannot_see(code: str) -> None:
    with pytest.raises(GuestError) as info:
        safe_eval(code)
    assert RUNTIME_REFUSED_READS[code] in str(info.value)
