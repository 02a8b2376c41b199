"""A host callable in ``env`` is a tool under its env key: policy rules and denials name the
key, whatever the function's own ``__name__`` is (a lambda, a private helper, a bound method)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from safe_eval import PolicyViolation, safe_eval
from safe_eval.policy import parse_policy

POLICY = parse_policy("policy p\nallow lookup(q: str)\n")


class _Service:
    def find(self, q: str) -> str:
        return q.upper()


def _private_lookup(q: str) -> str:
    return q.upper()


CALLABLES: list[tuple[str, Callable[..., Any]]] = [
    ("private_function", _private_lookup),
    ("lambda", lambda q: q.upper()),
    ("bound_method", _Service().find),
]


@pytest.mark.parametrize(("kind", "fn"), CALLABLES, ids=[c[0] for c in CALLABLES])
def test_rules_match_the_env_key(kind: str, fn: Callable[..., Any]) -> None:
    assert safe_eval("lookup('a')", {"lookup": fn}, policy=POLICY) == "A"


@pytest.mark.parametrize(("kind", "fn"), CALLABLES, ids=[c[0] for c in CALLABLES])
def test_same_callable_under_another_key_is_denied_and_not_called(kind: str, fn: Callable[..., Any]) -> None:
    calls: list[str] = []

    def recording(q: str) -> str:
        calls.append(q)
        return str(fn(q))

    with pytest.raises(PolicyViolation) as info:
        safe_eval("x = 'a'\nother(x)", {"other": recording}, policy=POLICY)
    assert "`other` is not an allowed tool" in str(info.value)
    assert calls == []
