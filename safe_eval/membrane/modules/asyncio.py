"""Curated ``asyncio``: the interpreter's own event loop (``safe_eval.interpreter.aio``), never
the host's. Exposes whichever of run/gather/sleep/create_task/wait_for/... it provides; while the
interpreter has no ``aio`` module, ``import asyncio`` raises a clear ImportError."""

from __future__ import annotations

import importlib
from typing import Any

NAMES = ["run", "gather", "sleep", "create_task", "wait_for", "wait", "as_completed", "Queue",
         "Event", "Lock", "Semaphore", "TimeoutError", "CancelledError", "Task", "Future",
         "iscoroutine", "iscoroutinefunction", "timeout", "shield", "ALL_COMPLETED",
         "FIRST_COMPLETED", "FIRST_EXCEPTION", "QueueEmpty", "QueueFull"]


def build() -> dict[str, Any]:
    try:
        aio = importlib.import_module("safe_eval.interpreter.aio")
    except ImportError:
        raise ImportError("import of 'asyncio' is not available: the interpreter has no "
                          "event loop yet") from None
    return {name: getattr(aio, name) for name in NAMES if hasattr(aio, name)}
