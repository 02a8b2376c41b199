"""pydantic-monty, the Rust interpreter: one warm ``Monty`` pool of one worker subprocess and one
checked-out REPL session, with its resource limits set to safe-eval's defaults (3 s per feed,
256 MiB heap, recursion 200). Values go in through ``inputs``, env functions through
``external_lookup`` (each call is a round trip to the host), so ``max_suspensions`` is raised
above the 10 000 tool calls.

``limits=False`` checks out a session with only the pool's mandatory recursion cap.
"""

from __future__ import annotations

from typing import Any

from benchmarks.cases import Case
from benchmarks.contenders.base import Runner, missing_module, programs_only

LIMITS: dict[str, Any] = {
    "max_feed_duration_secs": 3.0,
    "max_memory": 256 * 1024 * 1024,
    "max_recursion_depth": 200,
    "max_suspensions": 1_000_000,
}
NO_LIMITS: dict[str, Any] = {"max_recursion_depth": 200, "max_suspensions": 1_000_000}


class MontyContender:
    name = "Monty"
    config = ("a warm Monty pool, one REPL session per case; limits 3 s/feed, 256 MiB, recursion 200; "
              "imports: Monty's own stdlib subset (it has no allowlist)")
    has_limits = True
    cold = (
        "import pydantic_monty\n"
        "with pydantic_monty.Monty(min_processes=1, max_processes=1) as pool:\n"
        f"    with pool.checkout(limits={LIMITS!r}) as s:\n"
        "        print(s.feed_run('x + 1', inputs={'x': 41}))"
    )

    def __init__(self) -> None:
        self._pool: Any = None
        self._sessions: list[Any] = []

    def unavailable(self) -> str | None:
        return missing_module("pydantic_monty")

    def _session(self, limits: bool) -> Any:
        import pydantic_monty

        if self._pool is None:
            self._pool = pydantic_monty.Monty(min_processes=1, max_processes=2).__enter__()
        session = self._pool.checkout(limits=LIMITS if limits else NO_LIMITS).__enter__()
        self._sessions.append(session)
        return session

    def prepare(self, case: Case, *, limits: bool = True) -> Runner:
        programs_only(case)
        session = self._session(limits)
        env = case.env()
        tools = {name: env[name] for name in case.tools}
        inputs = {k: v for k, v in env.items() if k not in case.tools}

        def run(i: int) -> Any:
            return session.feed_run(
                case.text(i), inputs=inputs or None, external_lookup=tools or None,
            )
        return run

    def worker_pid(self) -> int | None:
        """The current session's worker process (the memory probe reads its peak too)."""
        return self._sessions[-1].worker_pid if self._sessions else None

    def end_case(self) -> None:
        """A fresh REPL session per case; the pool and its workers stay warm."""
        self._release()

    def _release(self) -> None:
        while self._sessions:
            self._sessions.pop().__exit__(None, None, None)

    def close(self) -> None:
        self._release()
        if self._pool is not None:
            self._pool.__exit__(None, None, None)
            self._pool = None
