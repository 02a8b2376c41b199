"""The ``Backend`` protocol: how an OS sandbox starts workers, and the warm pool in front of it.

Modelled on httpx's ``BaseTransport``: a backend is an object with ``run`` (one request, one
answer) and ``close``, usable as a context manager. What differs between backends is only how a
worker process is started (``worker_argv``) and what the worker does to itself
(``lockdown``); talking to it, the pool, sessions and workspaces are shared.

A one-shot ``run`` takes a started worker from the pool, uses it once and discards it (a worker
that ran guest code is never handed to another caller), starting a replacement at once, so the
next call does not pay a process start. A ``Session`` keeps its worker: REPL state.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from safe_eval.errors import SandboxError, SandboxUnavailable
from safe_eval.sandbox.lockdown import TMP_BYTES
from safe_eval.sandbox.process import STARTUP_ALLOWANCE, WorkerProcess
from safe_eval.sandbox.workspace import Workspace

if TYPE_CHECKING:
    from safe_eval.api import Result
    from safe_eval.sandbox.session import Session

__all__ = ["MODES", "Backend", "package_roots"]

MODES = ("interpreter", "cpython")
# what the worker imports: safe-eval, its dependencies, and the optional lockdown helpers
_PACKAGES = ("safe_eval", "lark", "greenlet", "RestrictedPython", "typeguard", "typing_extensions",
             "regex", "landlockpy", "pyseccomp")
# the CPU seconds a worker may use in its life (RLIMIT_CPU: SIGXCPU kills it past them); a
# long-lived worker (a batch pool's) is replaced before its next job could cross it
WORKER_CPU_SECONDS = 600
BOOT = "import sys;sys.path[:0]={paths!r};from safe_eval.sandbox.worker import main;main()"


def package_roots() -> dict[str, str]:
    """Top-level package (or module file) of each importable worker dependency, by name."""
    import importlib.util

    roots = {}
    for name in _PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        origin = spec.origin
        roots[name] = os.path.dirname(origin) if spec.submodule_search_locations else origin
    return roots


class Backend(ABC):
    """An OS sandbox that runs checked programs in worker processes."""

    name: ClassVar[str]
    modes: ClassVar[tuple[str, ...]] = MODES
    # the boundary the backend itself sets up (the worker reports the layers it adds)
    isolation: ClassVar[str] = ""
    # whether the worker's processes live outside the process group the host starts
    outside_group: ClassVar[bool] = False

    def __init__(self, mode: str = "interpreter", *, pool_size: int = 1, memory: int = 3 << 30,
                 cpython_imports: frozenset[str] | set[str] | tuple[str, ...] = (),
                 startup: float = STARTUP_ALLOWANCE) -> None:
        if mode not in self.modes:
            raise SandboxError(f"the {self.name} backend does not offer mode {mode!r} "
                               f"(it offers: {', '.join(self.modes)})")
        why = self.unavailable()
        if why is not None:
            raise SandboxUnavailable(why)
        self.mode = mode
        self.pool_size = pool_size
        # address space of a worker (rlimit): the interpreter's own memory limit acts first, and
        # its stack guard reserves a C stack of twice that limit (256 MiB limit: 512 MiB)
        self.memory = memory
        # cpython mode only: modules the static check lets the guest import (numpy, os ...)
        self.cpython_imports = frozenset(cpython_imports)
        # seconds a run waits for a worker that has not started yet, on top of its time limit
        # (``WorkerProcess.request``)
        self.startup = float(startup)
        self._pool: list[tuple[WorkerProcess, Workspace]] = []
        self._lock = threading.Lock()
        self._closed = False

    # -- what a backend defines ------------------------------------------------------------
    @classmethod
    @abstractmethod
    def unavailable(cls) -> str | None:
        """None when this backend works here; else why not, with the command that fixes it."""

    @abstractmethod
    def worker_argv(self, workspace: Workspace, config: dict[str, Any]) -> tuple[list[str], str | None]:
        """The command that starts a worker with this JSON ``config``, and its host cwd."""

    def config(self, workspace: Workspace) -> dict[str, Any]:
        # the tag (the workspace path) marks every process of this worker on the host's
        # command lines, so the host can find and kill all of them
        return {"mode": self.mode, "tag": workspace.path}

    def workspace_owner(self) -> int | None:
        """The host uid the worker writes its workspace as (None: this process's)."""
        return None

    def lockdown(self, workspace_inside: str) -> dict[str, Any]:
        """What the worker does to itself after start-up (see ``lockdown.apply``)."""
        return {
            "rlimits": {"as": self.memory, "cpu": WORKER_CPU_SECONDS, "fsize": TMP_BYTES, "nofile": 256,
                        "core": 0},
            "drop_root": True,
            "seccomp": True,
            "block_exec": self.mode == "cpython",
        }

    # -- workers ---------------------------------------------------------------------------
    def new_workspace(self) -> Workspace:
        return Workspace(self.workspace_owner())

    def start_worker(self, workspace: Workspace) -> WorkerProcess:
        """A started worker whose workspace is ``workspace``."""
        argv, cwd = self.worker_argv(workspace, self.config(workspace))
        try:
            return WorkerProcess(argv, cwd=cwd, tag=workspace.path, outside_group=self.outside_group)
        except OSError as exc:
            raise SandboxUnavailable(f"cannot start the {self.name} worker: {exc}") from None

    def _spawn(self) -> tuple[WorkerProcess, Workspace]:
        workspace = self.new_workspace()
        try:
            return self.start_worker(workspace), workspace
        except BaseException:
            workspace.remove()
            raise

    def acquire(self) -> tuple[WorkerProcess, Workspace]:
        """A started worker and its workspace, the pool refilled behind it."""
        if self._closed:
            raise SandboxError(f"the {self.name} backend is closed")
        with self._lock:
            item = self._pool.pop(0) if self._pool else None
        if item is None:
            item = self._spawn()
        if self.pool_size:
            # starting a process takes milliseconds of fork/exec: not on the caller's path
            threading.Thread(target=self._refill, name="safe-eval-pool", daemon=True).start()
        return item

    def _refill(self) -> None:
        while True:
            with self._lock:
                if len(self._pool) >= self.pool_size or self._closed:
                    return
            item = self._spawn()
            with self._lock:
                if not self._closed and len(self._pool) < self.pool_size:
                    self._pool.append(item)
                    continue
            item[0].kill()
            item[1].remove()
            return

    def warm(self) -> None:
        """Start the pool's workers now and wait until they are ready."""
        self._refill()
        for proc, _ in list(self._pool):
            proc.wait_ready()

    # -- the transport interface -----------------------------------------------------------
    def session(self, *, snapshot: bool = True) -> Session:
        """A session: one worker kept across runs (REPL state) with a workspace."""
        from safe_eval.sandbox.session import Session

        return Session(self, snapshot=snapshot)

    def run(self, code: Any, env: Mapping[str, Any] | None = None, *, policy: Any = None,
            limits: Any = None, audit: Callable[..., Any] | None = None,
            on_print: Callable[[str], Any] | None = None, filename: str = "<safe-eval>") -> Result:
        """One evaluation in a fresh worker (taken warm from the pool, then discarded). The
        host checks the code before it takes a worker: refused code never reaches one."""
        from safe_eval.sandbox.session import prepare

        job = prepare(self, code, env, policy=policy, limits=limits, audit=audit, filename=filename)
        session = self.session(snapshot=False)
        try:
            return session.run_prepared(job, on_print=on_print)
        finally:
            session.close(wait=False)

    def close(self) -> None:
        self._closed = True
        with self._lock:
            pool, self._pool = self._pool, []
        for proc, workspace in pool:
            proc.kill()
            workspace.remove()

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} mode={self.mode}>"


def python_executable() -> str:
    """The real interpreter behind this one (a venv's python is a symlink)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def boot_argv(python: str, paths: list[str], config: dict[str, Any]) -> list[str]:
    return [python, "-I", "-S", "-c", BOOT.format(paths=paths), json.dumps(config)]
