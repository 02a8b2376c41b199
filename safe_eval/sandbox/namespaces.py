"""Fresh namespaces for one worker forked by the zygote (runs in the child, before any guest code).

The zygote lives inside one bwrap sandbox; every worker it forks enters namespaces of its own:
a new user namespace (mapping only its own uid/gid 65534), and in it new mount, network, ipc
and uts namespaces. In the new mount namespace it gets a private tmpfs ``/tmp``, its own
workspace bound at ``/workspace``, and an empty read-only tmpfs over the directory holding the
other workers' workspaces. Then every capability the new user namespace gave it is dropped,
``no_new_privs`` is set and the process is made non-dumpable (no sibling can open its memory).

Not per worker: the pid namespace. Workers share the zygote's (a new one needs a second fork
and a reaper per worker); ``/proc`` therefore lists the siblings, which Landlock's signal scope,
seccomp (no ptrace, no process_vm_*) and non-dumpability keep out of reach.
"""

from __future__ import annotations

import ctypes
import os
import struct

from safe_eval.sandbox.lockdown import TMP_BYTES

__all__ = ["enter", "WORKSPACE", "WORKSPACES"]

WORKSPACE = "/workspace"
WORKSPACES = "/workspaces"  # where the zygote sees every live worker's workspace

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUTS = 0x04000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_PR_CAPBSET_DROP = 24
_CAP_LAST = 63
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class IsolationError(OSError):
    """A per-worker namespace step failed: the worker must not serve."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise IsolationError(err, f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter(workspace_name: str) -> None:
    """Put this (freshly forked, single-threaded) process in namespaces of its own."""
    if not workspace_name or "/" in workspace_name or workspace_name in (".", ".."):
        raise IsolationError(0, f"bad workspace name {workspace_name!r}")
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS),
           "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mounts(libc, workspace_name)
    os.chdir(WORKSPACE)
    _drop_capabilities(libc)
    _check(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "dumpable")


def _mounts(libc: ctypes.CDLL, workspace_name: str) -> None:
    def mount(source: bytes, target: str, fstype: bytes | None, flags: int, data: bytes | None) -> None:
        _check(libc.mount(source, target.encode(), fstype, flags, data), f"mount {target}")

    mount(b"none", "/", None, _MS_REC | _MS_PRIVATE, None)
    # the zygote's /tmp is shared by every worker it forks: each gets its own
    mount(b"tmpfs", "/tmp", b"tmpfs", _MS_NOSUID | _MS_NODEV, f"size={TMP_BYTES},mode=1777".encode())
    mount(f"{WORKSPACES}/{workspace_name}".encode(), WORKSPACE, None, _MS_BIND, None)
    # the other workers' workspaces: covered (the zygote's bind stays underneath, unreachable)
    mount(b"tmpfs", WORKSPACES, b"tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
          b"size=4k,mode=0555")


def _drop_capabilities(libc: ctypes.CDLL) -> None:
    """Every capability the new user namespace granted: effective, permitted, inheritable,
    ambient and bounding (there is no exec to lose them at)."""
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(_CAP_LAST + 1):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    header = ctypes.create_string_buffer(struct.pack("Ii", _LINUX_CAPABILITY_VERSION_3, 0))
    data = ctypes.create_string_buffer(bytes(24))  # two {effective, permitted, inheritable}
    _check(libc.capset(header, data), "capset")
