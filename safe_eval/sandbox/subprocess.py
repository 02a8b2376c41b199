"""The ``subprocess`` backend: a fresh interpreter, locked down from inside.

``python -I -S`` with an empty environment, in its own session, cwd the private workspace.
Before serving, the worker sets rlimits (address space, CPU, file size, open files), drops to
uid 65534 when started as root, and applies Landlock (read only the interpreter and the
packages it needs, write only the workspace, no TCP) and seccomp (no sockets, no ptrace, no
namespaces) when ``landlockpy``/``pyseccomp`` are installed and the kernel has them. There is no
pid or network namespace: ``cpython`` mode (plain CPython) is refused here.

Started as root with an interpreter that uid 65534 cannot read (pyenv under a 0700 ``/root``,
with no system interpreter of the same version), the worker keeps uid 0: after the drop it
could not read the rest of its own standard library (imports are lazy), nor ``libpythonX.Y.so``.
The root worker is still confined by Landlock (read only the interpreter and packages, write
only the workspace), seccomp and the rlimits; the layers it reports say ``uid: false``.
Not done yet: a hard-linked copy of the interpreter tree in a world-readable directory made at
first use (same file system only) would let it drop root as well.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from safe_eval.sandbox.base import Backend, boot_argv, package_roots, python_executable
from safe_eval.sandbox.workspace import Workspace

__all__ = ["SubprocessBackend"]

NOBODY = 65534


def _world_readable(path: str) -> bool:
    """Whether uid 65534 can reach ``path`` (every parent searchable, the file readable)."""
    path = os.path.realpath(path)
    parts = path.split("/")
    for i in range(2, len(parts)):
        if not os.stat("/".join(parts[:i])).st_mode & stat.S_IXOTH:
            return False
    return bool(os.stat(path).st_mode & stat.S_IROTH)


def sandbox_python() -> str:
    """This interpreter, or, when a non-root worker could not read it (pyenv under a 0700
    /root), the system interpreter of the same version."""
    python = python_executable()
    if os.getuid() != 0 or _world_readable(python):
        return python
    import sys

    system = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    return system if os.path.exists(system) and _world_readable(system) else python


class SubprocessBackend(Backend):
    name = "subprocess"
    isolation = "own process group, empty environment, private working directory"
    modes = ("interpreter",)

    @classmethod
    def unavailable(cls) -> str | None:
        return None

    def workspace_owner(self) -> int | None:
        return NOBODY if os.getuid() == 0 and _world_readable(sandbox_python()) else None

    def worker_argv(self, workspace: Workspace, config: dict[str, Any]) -> tuple[list[str], str | None]:
        python = sandbox_python()
        roots = package_roots()
        paths = sorted({os.path.dirname(p) for p in roots.values()})
        prefix = os.path.dirname(os.path.dirname(python))  # /usr or <pyenv version dir>
        spec = self.lockdown(workspace.path)
        spec["landlock"] = True
        spec["read"] = [prefix, "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/etc/ld.so.cache",
                        "/dev/null", "/dev/urandom", *roots.values()]
        spec["write"] = [workspace.path]
        spec["drop_root"] = _world_readable(python)
        config = {**config, "lockdown": spec}
        return boot_argv(python, paths, config), workspace.path
