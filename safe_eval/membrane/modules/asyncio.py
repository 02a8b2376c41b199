"""Curated ``asyncio``: the interpreter's own event loop (``safe_eval.interpreter.aio``), never
the host's. Exposes whichever of run/gather/sleep/create_task/wait_for/... it provides."""

from __future__ import annotations

from typing import Any

NAMES = ["run", "gather", "sleep", "create_task", "wait_for", "wait", "as_completed", "Queue",
         "Event", "Lock", "Semaphore", "TimeoutError", "CancelledError", "Task", "Future",
         "iscoroutine", "iscoroutinefunction", "timeout", "shield", "ALL_COMPLETED",
         "FIRST_COMPLETED", "FIRST_EXCEPTION", "QueueEmpty", "QueueFull"]


def build() -> dict[str, Any]:
    from safe_eval.interpreter import aio

    return {name: getattr(aio, name) for name in NAMES if hasattr(aio, name)}
