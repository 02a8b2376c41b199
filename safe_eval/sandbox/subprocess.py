"""The ``subprocess`` backend: a fresh interpreter, locked down from inside.

``python -I -S`` with an empty environment, in its own session, cwd the private workspace.
Before serving, the worker sets rlimits (address space, CPU, file size, open files), drops to
uid 65534 when started as root, and applies Landlock (read only the interpreter and the
packages it needs, write only the workspace, no TCP) and seccomp (no sockets, no ptrace, no
namespaces) when ``landlockpy``/``pyseccomp`` are installed and the kernel has them. There is no
pid or network namespace: ``cpython`` mode (plain CPython) is refused here.

Started as root, the worker always becomes uid/gid 65534 with no capability, a bounding set
with at most the one below, and ``no_new_privs``: never more rights than the host user. When
what it runs lives where uid 65534 cannot read it (pyenv under a 0700 ``/root``, with no
world-readable system interpreter of the same version; imports are lazy, so it reads its
standard library after the drop), it keeps one capability, ``CAP_DAC_READ_SEARCH`` (read any
file), and Landlock limits those reads to the interpreter, its libraries and the worker's
packages (``lockdown``). Without Landlock that capability would read every file on the
machine: the backend is then unavailable (``unavailable``), and the worker itself requires the
layer (it ends before serving when it cannot apply it). A non-root host's worker keeps the
host's uid and gets the same ``no_new_privs``, rlimits, Landlock and seccomp. Its private
temporary directory is its workspace (its cwd, the one place Landlock lets it write); its
environment is empty.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import Any

from safe_eval.sandbox import lockdown
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


# where a world-readable system interpreter of this version is looked for
SYSTEM_BIN = "/usr/bin"


def sandbox_python() -> str:
    """This interpreter, or, when a non-root worker could not read it (pyenv under a 0700
    /root), the system interpreter of the same version if there is one."""
    python = python_executable()
    if os.getuid() != 0 or _world_readable(python):
        return python
    system = f"{SYSTEM_BIN}/python{sys.version_info.major}.{sys.version_info.minor}"
    return system if os.path.exists(system) and _world_readable(system) else python


def needs_read_capability(python: str, roots: list[str]) -> bool:
    """Whether a worker started by root as uid 65534 must keep CAP_DAC_READ_SEARCH to read
    its interpreter or its packages."""
    return os.getuid() == 0 and not all(_world_readable(p) for p in (python, *roots))


class SubprocessBackend(Backend):
    name = "subprocess"
    isolation = "own process group, empty environment, private working directory"
    modes = ("interpreter",)

    @classmethod
    def unavailable(cls) -> str | None:
        """Refused (deny by default) where a root host's worker would keep CAP_DAC_READ_SEARCH
        to read its interpreter and no Landlock would bound those reads: it could read every
        file on the machine (``/etc/shadow``, other users' keys)."""
        python = sandbox_python()
        if not needs_read_capability(python, list(package_roots().values())) or lockdown.landlock_available():
            return None
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        return (f"started as root, the subprocess worker could read its interpreter ({python}) only by "
                "keeping CAP_DAC_READ_SEARCH, and without Landlock that reads every file on the machine. "
                f"Fix one of: install a world-readable system python{version} in {SYSTEM_BIN} "
                f"(apt-get install python{version}); run the host as a non-root user; install Landlock "
                "support (pip install 'safe-eval[sandbox]', on a kernel with Landlock enabled); or use "
                "the bwrap backend")

    def workspace_owner(self) -> int | None:
        return NOBODY if os.getuid() == 0 else None

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
        spec["drop_root"] = True
        spec["keep_read"] = needs_read_capability(python, list(roots.values()))
        if spec["keep_read"]:
            # the worker keeps that capability only under Landlock: without it, it ends before
            # it serves anything (``lockdown.apply``), whatever the host's probe said
            spec["require"] = ["landlock"]
        config = {**config, "lockdown": spec}
        return boot_argv(python, paths, config), workspace.path
