"""What the worker does to itself before it reads the first request (runs inside the child).

Applied in the child rather than in a ``preexec_fn`` (which forks a threaded host unsafely),
after the worker has imported what it needs and before any guest code exists:

1. rlimits: address space, CPU seconds, file size, open files (and processes once not root);
   threads take a stack of a fixed size, not the soft stack limit inherited from the host;
2. a non-root uid/gid (65534) when started as root, with no capability left, or only
   ``CAP_DAC_READ_SEARCH`` when the interpreter lives where uid 65534 cannot read it
   (``keep_read``: pyenv under a 0700 ``/root``; Landlock then says what it reads); in every
   case an empty bounding set and ``no_new_privs``, so nothing the worker could exec regains
   a privilege;
3. Landlock (``landlockpy``, when installed and the kernel has it): read only the given paths,
   write only the workspace, no TCP, no signals or abstract sockets outside the domain;
4. seccomp (``pyseccomp``, when installed): ``socket``, ``ptrace``, ``mount``, ``bpf`` and other
   kernel surface return EPERM; so does every way to a new namespace or mount (``unshare``,
   ``setns``, ``clone`` with a ``CLONE_NEW*`` flag, the new mount API ``fsopen``/``fsmount``/
   ``move_mount``/``open_tree``...); ``clone3``, whose flags sit in memory a filter cannot
   read, returns ENOSYS, so the C library falls back to ``clone``, whose flags it can; in
   ``cpython`` mode also ``execve`` (the worker is already running, so it needs no further exec).

Each optional layer reports whether it was applied, so ``sandbox doctor`` and the host can say
what is in force. A layer that is required (``require``) and cannot be applied ends the worker
before it serves anything.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["apply", "landlock_available", "preload"]

NOBODY = 65534
# a worker's private /tmp (a tmpfs: host memory) holds at most this many bytes, and so does one
# file it writes anywhere (RLIMIT_FSIZE): its disk and memory outside the address-space limit
TMP_BYTES = 64 << 20
_DENIED_SYSCALLS = (
    "socket", "socketpair", "ptrace", "mount", "umount2", "pivot_root", "chroot", "bpf",
    "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key", "unshare", "setns",
    "kexec_load", "init_module", "finit_module", "delete_module", "process_vm_readv",
    "process_vm_writev", "open_by_handle_at", "name_to_handle_at", "io_uring_setup",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "personality",
    # the host kills the worker by its process group: no leaving it
    "setsid", "setpgid",
    # the new mount API: a mount namespace's tree changed without mount(2)
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    # hardware ports, kernel module and accounting surface an unprivileged process never needs
    "iopl", "ioperm", "kcmp", "lookup_dcookie", "uselib", "vhangup", "quotactl_fd",
)
_CAP_DAC_READ_SEARCH = 2
_CAP_LAST = 63
_PR_CAPBSET_DROP = 24
_PR_SET_KEEPCAPS = 8
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
# clone(2) flags that make a new namespace: denied whatever else is set
_CLONE_NEW = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


def apply(spec: Mapping[str, Any]) -> dict[str, bool]:
    """Lock this process down as ``spec`` says; returns which layers are in force."""
    applied: dict[str, bool] = {}
    preload()  # finding libseccomp runs ldconfig: before any layer forbids it
    _thread_stacks()
    _rlimits(spec.get("rlimits", {}))
    applied["rlimits"] = True
    applied["uid"] = _drop_root(bool(spec.get("drop_root", True)), keep_read=bool(spec.get("keep_read")))
    landlock = bool(spec.get("landlock"))
    applied["landlock"] = _landlock(spec.get("read", ()), spec.get("write", ())) if landlock else False
    applied["seccomp"] = _seccomp(bool(spec.get("block_exec"))) if spec.get("seccomp") else False
    for layer in spec.get("require", ()):
        if not applied.get(layer):
            raise SystemExit(f"safe-eval worker: required isolation layer {layer!r} is not available")
    return applied


def preload() -> None:
    """Import the optional layers' libraries (a zygote does it once for all its workers)."""
    for name in ("landlockpy", "pyseccomp"):
        try:
            __import__(name)
        except (ImportError, RuntimeError, OSError):  # not installed, or no libseccomp here
            continue


# the C stack of a thread the worker's code starts (the guest's ``threading`` in cpython mode,
# a library's): the usual default, whatever the host's soft stack limit was
THREAD_STACK = 8 << 20


def _thread_stacks() -> None:
    """Threads started from here on take ``THREAD_STACK``, not the soft stack limit the worker
    inherited: the host raises its own for the C recursion of its main-thread runs
    (``session.run_guarded``), and a thread stack that size came out of the worker's
    address-space limit (a guest's ``threading.Thread.start``: "can't start new thread")."""
    import threading

    threading.stack_size(THREAD_STACK)


def _rlimits(limits: Mapping[str, int]) -> None:
    for name, value in limits.items():
        which = getattr(resource, f"RLIMIT_{name.upper()}")
        soft, hard = resource.getrlimit(which)
        value = int(value)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        # CPU: the soft limit sends SIGXCPU, the hard one a second later SIGKILL
        hard_value = value + 1 if name == "cpu" else value
        if hard != resource.RLIM_INFINITY:
            hard_value = min(hard_value, hard)
        resource.setrlimit(which, (value, hard_value))


def _drop_root(wanted: bool, *, keep_read: bool = False) -> bool:
    """uid/gid 65534 when root (``wanted``), with no capability, or only CAP_DAC_READ_SEARCH
    (``keep_read``); in every case no_new_privs. True when the worker is not root."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    root = os.getuid() == 0
    if root and wanted:
        keep = 1 << _CAP_DAC_READ_SEARCH if keep_read else 0
        # the bounding set needs CAP_SETPCAP to shrink: before the uid changes
        for cap in range(_CAP_LAST + 1):
            if not keep >> cap & 1 and libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                break  # past the last capability this kernel knows
        if keep:  # the permitted set survives the uid change only with keep-caps
            _prctl(libc, _PR_SET_KEEPCAPS, 1, "keep-caps")
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
        if keep:
            _capset(libc, keep)
            _prctl(libc, _PR_SET_KEEPCAPS, 0, "keep-caps")
        # processes are counted per uid once we are not root: no fork bombs
        resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    _prctl(libc, _PR_SET_NO_NEW_PRIVS, 1, "no_new_privs")
    return not root or wanted


def _prctl(libc: Any, option: int, value: int, what: str) -> None:
    if libc.prctl(option, value, 0, 0, 0) != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, f"prctl {what}: {os.strerror(err)}")


def _capset(libc: Any, caps: int) -> None:
    """Effective and permitted sets = ``caps`` (capabilities 0-31), inheritable empty."""
    import ctypes
    import struct

    header = ctypes.create_string_buffer(struct.pack("Ii", _LINUX_CAPABILITY_VERSION_3, 0))
    data = ctypes.create_string_buffer(struct.pack("6I", caps, caps, 0, 0, 0, 0))
    if libc.capset(header, data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")


def landlock_available() -> bool:
    """Whether Landlock can be applied here (``landlockpy`` installed, the kernel has it): the
    host asks before it starts a worker that needs it (``SubprocessBackend.unavailable``)."""
    try:
        import landlockpy as ll
    except ImportError:
        return False
    return bool(ll.supported())


def _landlock(read: Iterable[str], write: Iterable[str]) -> bool:
    if not landlock_available():
        return False
    import landlockpy as ll

    fs = ll.AccessFS
    file_read = fs.READ_FILE | fs.EXECUTE
    dir_read = file_read | fs.READ_DIR
    ruleset = ll.Ruleset(scoped=ll.Scope.ABSTRACT_UNIX_SOCKET | ll.Scope.SIGNAL)
    # MAKE_SYM: a symlink in the workspace is the guest's own business (every open resolves it,
    # under these rules); the host never follows one (``Workspace``)
    write_rights = (fs.WRITE_FILE | fs.REMOVE_DIR | fs.REMOVE_FILE | fs.MAKE_DIR | fs.MAKE_REG | fs.MAKE_SYM
                    | fs.TRUNCATE)
    for path in read:
        if os.path.exists(path):
            ruleset.allow_path(path, dir_read if os.path.isdir(path) else file_read)
    for path in write:
        if os.path.isdir(path):
            ruleset.allow_path(path, dir_read | write_rights)
    ruleset.restrict()
    ruleset.close()
    return True


def _seccomp(block_exec: bool) -> bool:
    try:
        import errno

        import pyseccomp as sc
    except (ImportError, RuntimeError, OSError):
        return False
    try:
        filt = sc.SyscallFilter(sc.ALLOW)
        names = _DENIED_SYSCALLS + (("execve", "execveat") if block_exec else ())
        for name in names:
            _rule(filt, sc.ERRNO(errno.EPERM), name)
        for flag in _CLONE_NEW:
            _rule(filt, sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        _rule(filt, sc.ERRNO(errno.ENOSYS), "clone3")
        filt.load()
    except (OSError, RuntimeError):
        return False
    return True


def _rule(filt: Any, action: Any, name: str, *args: Any) -> None:
    try:
        filt.add_rule(action, name, *args)
    except (ValueError, OSError):  # a syscall this architecture (or libseccomp) does not know
        pass
