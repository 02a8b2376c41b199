"""The pre-parsed shipped policies (``safe_eval/policy/_preparsed.py``) are exactly what the DSL
parser makes of the shipped files, and the table is what the generator writes today."""

from __future__ import annotations

import pytest

from safe_eval.policy import files, parse_policy
from safe_eval.policy._preparsed import PREPARSED
from safe_eval.policy.files import SHIPPED, shipped_policy, shipped_text
from safe_eval.policy.preparse import generate, target


def test_table_is_regenerated() -> None:
    assert target().read_text(encoding="utf-8") == generate(), (
        "safe_eval/policy/_preparsed.py is stale: run `python -m safe_eval.policy.preparse`"
    )


def test_default_policy_is_preparsed() -> None:
    # the point of the table: the policy used when none is given must not need the parser
    assert "default" in PREPARSED


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_policy_equals_parsed_file(name: str) -> None:
    text = shipped_text(name)
    parsed = parse_policy(text, f"<shipped:{name}>", chain=(f"<shipped:{name}>",))
    served = shipped_policy(name)
    assert served == parsed
    assert hash(served) == hash(parsed)
    assert served.limits == parsed.limits and served.imports == parsed.imports


def test_edited_text_is_parsed_not_served_from_table(monkeypatch: pytest.MonkeyPatch) -> None:
    edited = shipped_text("default").replace("recursion 1000", "recursion 77")
    assert edited != shipped_text("default")
    monkeypatch.setattr(files, "shipped_text", lambda name: edited)
    files.shipped_policy.cache_clear()
    try:
        policy = files.shipped_policy("default")
        assert policy.limits.recursion == 77
    finally:
        monkeypatch.undo()
        files.shipped_policy.cache_clear()
    assert files.shipped_policy("default").limits.recursion == 1000
