"""Invariant: every process a sandboxed run starts ends with the run, and a run cannot start
more than ``cgroup.MAX_PROCESSES`` of them.

Written as the attacker would: plain CPython guest code (``bwrap+cpython`` with ``os``) that
forks a process meant to outlive the run (into the session's next run, or a batch pool's next
job), orphans one, or forks without end. Under bubblewrap started by root, uid 65534 inside is
host root, for which RLIMIT_NPROC does not count: the bound is the worker's pids cgroup.
"""

from __future__ import annotations

import errno
import os

import pytest

from safe_eval.sandbox import make_backend
from safe_eval.sandbox.bwrap import BwrapBackend
from safe_eval.sandbox.cgroup import MAX_PROCESSES, ROOT

pytestmark = pytest.mark.skipif(BwrapBackend.unavailable() is not None, reason=f"bwrap: {BwrapBackend.unavailable()}")


@pytest.fixture(scope="module", params=[True, False], ids=["zygote-worker", "cold-worker"])
def bwrap(request):
    with make_backend("bwrap+cpython", cpython_imports={"os", "time"}, zygote=request.param) as backend:
        yield backend


ALIVE = "import os\nalive = []\nfor p in pids:\n    try:\n        os.kill(p, 0)\n        alive.append(p)\n    except OSError:\n        pass\nalive"


def test_a_forked_process_ends_with_the_run(bwrap):
    code = "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(60)\npid"
    with bwrap.session() as s:
        pid = s.run(code).value
        assert s.run(ALIVE, {"pids": [pid]}).value == []


def test_an_orphaned_grandchild_ends_with_the_run(bwrap):
    code = ("import os, time\nr, w = os.pipe()\npid = os.fork()\nif pid == 0:\n    g = os.fork()\n"
            "    if g == 0:\n        time.sleep(60)\n    os.write(w, str(g).encode())\n    os.kill(os.getpid(), 9)\n"
            "os.waitpid(pid, 0)\nint(os.read(r, 32))")
    with bwrap.session() as s:
        grandchild = s.run(code).value
        assert grandchild > 0
        assert s.run(ALIVE, {"pids": [grandchild]}).value == []


def test_a_forked_process_never_answers_for_the_worker(bwrap):
    # the child returns from the guest code first: only the worker's own answer reaches the host
    code = "import os, time\npid = os.fork()\nif pid != 0:\n    time.sleep(0.3)\n'child' if pid == 0 else 'worker'"
    with bwrap.session() as s:
        assert s.run(code).value == "worker"
        assert s.run("1 + 1").value == 2


@pytest.mark.skipif(os.getuid() == 0 and not os.access(ROOT, os.W_OK),
                    reason="host root without a writable pids cgroup controller: nothing bounds the count")
def test_the_number_of_processes_is_bounded(bwrap):
    code = ("import os, time\nkids = []\nerr = None\nfor _ in range(500):\n    try:\n        pid = os.fork()\n"
            "    except OSError as exc:\n        err = exc.errno\n        break\n    if pid == 0:\n"
            "        time.sleep(60)\n    kids.append(pid)\n[len(kids), err]")
    with bwrap.session() as s:
        forked, err = s.run(code, limits={"time": 30}).value
        assert err == errno.EAGAIN
        assert forked < MAX_PROCESSES
        assert s.run("1 + 1").value == 2  # the worker itself goes on


# -- enforced in the guest's own process -------------------------------------------------------
# In cpython mode the guest is the worker process: what ends a run's processes
# (``processes.end_descendants``, called from ``Worker.serve``) is module state the guest can
# reach (``os.sys.modules``) and replace, and a thread is not a process at all. Only the host,
# which the guest cannot reach, can check that nothing of a run is left once it answered (its
# process group: seccomp keeps every process in it; ``/proc/<pid>/task`` for threads).

def test_a_forked_process_ends_with_the_run_even_if_the_guest_disables_the_workers_sweep(bwrap):
    # the static check is a lint here: it refuses the attribute write on a module it can see, not
    # on a name bound to one
    code = ("import os, time\nsweep = os.sys.modules['safe_eval.sandbox.processes']\n"
            "sweep.end_descendants = lambda: None\n"
            "pid = os.fork()\nif pid == 0:\n    while True:\n        time.sleep(1)\npid")
    with bwrap.session() as s:
        pid = s.run(code).value
        assert s.run(ALIVE, {"pids": [pid]}).value == []


def test_a_guest_thread_ends_with_the_run():
    code = ("import threading, time\ndef spin():\n    while True:\n        time.sleep(0.01)\n"
            "threading.Thread(target=spin, daemon=True).start()\n'started'")
    with make_backend("bwrap+cpython", cpython_imports={"threading", "time"}) as backend, backend.session() as s:
        assert s.run(code).value == "started"
        assert s.run("import threading\nthreading.active_count()").value == 1
