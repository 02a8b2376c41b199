"""Invariant: a worker cannot reach kernel surface it never needs: no new namespace, no mount
(old or new API), no keys, BPF, userfaultfd, perf events, ptrace or cross-process memory.

Written as the attacker would: plain CPython guest code (``bwrap+cpython`` with ``ctypes``)
making the raw system calls. Each call is made with arguments the kernel would reject in its own
way when the call is allowed (the errno in ``UNFILTERED``), so only the seccomp filter answers
EPERM (ENOSYS for ``clone3``, whose flags a filter cannot read: the C library then falls back to
``clone``, whose flags it can).
"""

from __future__ import annotations

import errno
import platform

import pytest

from safe_eval.sandbox import make_backend
from safe_eval.sandbox.bwrap import BwrapBackend

pytestmark = [
    pytest.mark.skipif(BwrapBackend.unavailable() is not None, reason=f"bwrap: {BwrapBackend.unavailable()}"),
    pytest.mark.skipif(platform.machine() != "x86_64", reason="system call numbers are x86_64's"),
]

CLONE_SIGHAND = 0x800  # without CLONE_VM: EINVAL once the call gets past the filter
CALLS = [
    # (name, x86_64 number, arguments, the errno the kernel gives when the call is allowed)
    ("clone-newuser", 56, (0x10000000 | CLONE_SIGHAND, 0, 0, 0, 0), errno.EINVAL),
    ("clone-newns", 56, (0x00020000 | CLONE_SIGHAND, 0, 0, 0, 0), errno.EINVAL),
    ("clone-newnet", 56, (0x40000000 | CLONE_SIGHAND, 0, 0, 0, 0), errno.EINVAL),
    ("clone-newpid", 56, (0x20000000 | CLONE_SIGHAND, 0, 0, 0, 0), errno.EINVAL),
    ("clone3", 435, (0, 0), errno.EINVAL),
    ("unshare", 272, (-1,), errno.EINVAL),
    ("setns", 308, (-1, 0), errno.EBADF),
    ("open_tree", 428, (-1, b"", 0), errno.ENOENT),
    ("mount_setattr", 442, (-1, b"", -1, 0, 0), errno.EINVAL),
    ("keyctl", 250, (-1,), errno.EOPNOTSUPP),
    ("userfaultfd", 323, (-1,), errno.EINVAL),
    ("perf_event_open", 298, (0, 0, -1, -1, 0), errno.EFAULT),
    ("ptrace", 101, (-1, 0, 0, 0), errno.EIO),
    ("process_vm_readv", 310, (1, 0, 0, 0, 0, 0), 0),
    ("process_vm_writev", 311, (1, 0, 0, 0, 0, 0), 0),
    # refused by a capability check too (the worker has none): the filter is the second wall
    ("fsopen", 430, (b"tmpfs", 0), errno.EPERM),
    ("fsmount", 432, (-1, 0, 0), errno.EPERM),
    ("fspick", 433, (-1, b"", 0), errno.EPERM),
    ("move_mount", 429, (-1, b"", -1, b"", 0), errno.EPERM),
    ("mount", 165, (b"none", b"/tmp", b"tmpfs", 0, 0), errno.EPERM),
    ("pivot_root", 155, (b"/nonexistent", b"/nonexistent"), errno.EPERM),
    ("bpf", 321, (-1, 0, 0), errno.EPERM),
]
PROBE = """import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}
for name, nr, args in calls:
    ctypes.set_errno(0)
    rc = libc.syscall(ctypes.c_long(nr), *[a if isinstance(a, bytes) else ctypes.c_long(a) for a in args])
    out[name] = 0 if rc >= 0 else ctypes.get_errno()
out"""


@pytest.fixture(scope="module", params=[True, False], ids=["zygote-worker", "cold-worker"])
def answers(request):
    with make_backend("bwrap+cpython", cpython_imports={"ctypes"}, zygote=request.param) as backend:
        calls = [(name, nr, list(args)) for name, nr, args, _ in CALLS]
        return backend.run(PROBE, {"calls": calls}).value


@pytest.mark.parametrize(("name", "unfiltered"), [pytest.param(c[0], c[3], id=c[0]) for c in CALLS])
def test_the_filter_answers_the_call(answers, name, unfiltered):
    expected = errno.ENOSYS if name == "clone3" else errno.EPERM
    assert answers[name] == expected, (
        f"{name} got {errno.errorcode.get(answers[name], answers[name])} (unfiltered: "
        f"{errno.errorcode.get(unfiltered, unfiltered)})")


def test_a_worker_still_starts_threads_and_forks(answers):
    # clone3 answers ENOSYS: the C library's fallback to clone (no CLONE_NEW* flag) still works
    code = ("import threading, os\nbox = []\nt = threading.Thread(target=lambda: box.append(1))\n"
            "t.start()\nt.join()\npid = os.fork()\nif pid == 0:\n    os.kill(os.getpid(), 9)\n"
            "box + [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])]")
    with make_backend("bwrap+cpython", cpython_imports={"threading", "os"}) as backend:
        assert backend.run(code).value == [1, -9]
