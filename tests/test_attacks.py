"""The public attack corpus (tests/data/attacks/corpus.py), run through the public API.

Each payload must end in a safe outcome: a ``SafeEvalError`` (PolicyViolation, GuestError or
LimitExceeded) or a harmless value, with the canary file not created, the secret token absent
from the value, the captured output and the error text, and the watched host state untouched
(hostobjs.tampered()). ``dos``/``crash`` payloads must also end within their time budget.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from _attack_data import CORPUS, HOSTOBJS, TOKEN, planted_secret

from safe_eval import Evaluator, Limits
from safe_eval.errors import GuestError, LimitExceeded, PolicyViolation, SafeEvalError


@pytest.fixture(scope="module", autouse=True)
def _host_objects() -> Any:
    yield from planted_secret()


def _run(payload: dict[str, Any], tmp_path: Path) -> tuple[Any, str, BaseException | None, Path, float]:
    canary = tmp_path / "canary"
    secret = tmp_path / "secret.txt"
    secret.write_text(TOKEN)
    code = payload["code"].replace("{CANARY}", str(canary)).replace("{SECRET}", str(secret))
    env = HOSTOBJS.build_env(payload.get("env"))
    HOSTOBJS.resnapshot()
    start = time.perf_counter()
    try:
        result = Evaluator().run(code, env, limits=Limits(time=2.0))
    except SafeEvalError as err:
        return None, "", err, canary, time.perf_counter() - start
    return result.value, result.stdout, None, canary, time.perf_counter() - start


@pytest.mark.parametrize("payload", CORPUS, ids=[p["id"] for p in CORPUS])
def test_payload_is_blocked(payload: dict[str, Any], tmp_path: Path) -> None:
    value, stdout, err, canary, seconds = _run(payload, tmp_path)
    assert not canary.exists(), "the payload wrote the canary file"
    assert TOKEN not in repr(value) and TOKEN not in stdout, "the secret reached the guest's result"
    if err is not None:
        assert TOKEN not in str(err) and TOKEN not in repr(err.to_dict())
    assert HOSTOBJS.tampered() == []
    if payload["category"] in ("dos", "crash"):
        assert seconds < 2.0 + 1.5
        assert err is None or isinstance(err, (LimitExceeded, PolicyViolation, GuestError))
    else:
        # every escape payload either is refused or fails inside the guest: none completes
        assert isinstance(err, (PolicyViolation, GuestError, LimitExceeded)), f"completed with {value!r}"
