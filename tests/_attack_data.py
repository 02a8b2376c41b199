"""The public attack data (tests/data/attacks: a copy of the shared corpus and its host
objects) for the tests that run payloads: loaded once, with one secret token per test session
planted in the host objects and the host's environment."""

from __future__ import annotations

import importlib.util
import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "attacks"
TOKEN = "tok" + secrets.token_hex(12)


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"_attacks_{name}", DATA / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


CORPUS: list[dict[str, Any]] = _load("corpus").CORPUS
HOSTOBJS = _load("hostobjs")


def planted_secret() -> Iterator[None]:
    """Body of a module-scoped fixture: plant ``TOKEN`` in the host objects and in
    ``os.environ['ATTACK_SECRET']`` for the module's tests, then restore the environment."""
    saved = os.environ.get("ATTACK_SECRET")
    HOSTOBJS.init(TOKEN)
    yield
    if saved is None:
        os.environ.pop("ATTACK_SECRET", None)
    else:
        os.environ["ATTACK_SECRET"] = saved
