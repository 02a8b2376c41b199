"""The divergences from CPython the README lists with a reason: each is the typed refusal it
says, and the way around it the README names gives CPython's answer."""

from __future__ import annotations

import pytest

import safe_eval
from safe_eval.errors import GuestError, PolicyViolation

DATACLASS = "from dataclasses import dataclass, fields, is_dataclass\n@dataclass\nclass P:\n    x: int\n    y: int = 2\n"


def test_reading_dataclass_fields_is_refused_and_fields_gives_the_same_names() -> None:
    with pytest.raises(PolicyViolation, match="__dataclass_fields__"):
        safe_eval.safe_eval(DATACLASS + "P.__dataclass_fields__")
    assert safe_eval.safe_eval(DATACLASS + "([f.name for f in fields(P)], is_dataclass(P))") == (["x", "y"], True)


def test_assigning_default_factory_is_refused_and_a_new_defaultdict_takes_the_old_ones_items() -> None:
    code = "from collections import defaultdict\nd = defaultdict(int)\nd['a'] += 1\n"
    with pytest.raises(GuestError, match="default_factory"):
        safe_eval.safe_exec(code + "d.default_factory = list")
    assert safe_eval.safe_eval(code + "e = defaultdict(list, d)\ne['b'].append(1)\n(dict(e), e.default_factory is list)") \
        == ({"a": 1, "b": [1]}, True)
