"""Invariant 8: one C call over guest data is priced before it starts where a cheap check
exists: a nested container that shares its parts (81 tuples in memory, 2**80 nodes to walk)
reaching ``hash``, a comparison slot, ``repr``/``str`` or a dict/set display key. The gaps
that remain are listed in docs/security-model.md (what the process sandbox is for)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from safe_eval import safe_eval
from safe_eval.errors import MemoryLimit, TimeLimit

SHARED = "x = (1,)\ny = (1,)\nfor i in range(80):\n    x = (x, x)\n    y = (y, y)\n"
SHARED_LIST = "x = [1]\nfor i in range(80):\n    x = [x, x]\n"

def _shared(depth: int) -> tuple[object, ...]:
    x: tuple[object, ...] = (1,)
    for _ in range(depth):
        x = (x, x)
    return x


ATTACKS = [
    ("hash-builtin", SHARED + "hash(x)", TimeLimit),
    ("hash-slot", SHARED + "x.__hash__()", TimeLimit),
    ("eq-slot", SHARED + "x.__eq__(y)", TimeLimit),
    ("lt-slot", SHARED + "x.__lt__(y)", TimeLimit),
    ("dict-display-key", SHARED + "{x: 1}", TimeLimit),
    ("set-display-item", SHARED + "{x}", TimeLimit),
    ("repr", SHARED + "repr(x)", MemoryLimit),
    ("str", SHARED + "str(x)", MemoryLimit),
    ("repr-slot", SHARED + "x.__repr__()", MemoryLimit),
    ("f-string", SHARED + "f'{x}'", MemoryLimit),
    ("list-repr", SHARED_LIST + "repr(x)", MemoryLimit),
    ("list-eq-slot", SHARED_LIST + "y = [1]\nfor i in range(80):\n    y = [y, y]\nx.__eq__(y)", TimeLimit),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("code", "limit"), [(c, lim) for _, c, lim in ATTACKS], ids=[i for i, _, _ in ATTACKS])
def test_a_walk_over_an_exponentially_shared_container_is_priced_before_it_starts(code, limit):
    with pytest.raises(limit):
        safe_eval(code, {}, limits={"time": 2.0})


@pytest.mark.parametrize(("code", "expected"), [
    ("x = (1,)\nfor i in range(10):\n    x = (x, x)\nhash(x) == hash(x)", True),
    ("x = (1,)\nfor i in range(10):\n    x = (x, x)\nlen(repr(x))", len(repr(_shared(10)))),
    ("x = (1,)\nfor i in range(10):\n    x = (x, x)\nlen({x: 1, (x, 2): 2})", 2),
    ("d = {(i, (i,)): i for i in range(1000)}\nlen({(1, (1,)), (2, (2,))}) + len(d)", 1002),
    ("x = []\nx.append(x)\nrepr(x)", "[[...]]"),
], ids=["hash-small-shared", "repr-small-shared", "dict-key-small-shared", "many-small-keys", "cycle"])
def test_ordinary_nested_data_is_not_refused(code, expected):
    assert safe_eval(code, {}) == expected


# the end of a child script with a ``session()``: run on the main thread or on another one
_ON_THREAD = """
if sys.argv[1] == "main":
    session()
else:
    worker = threading.Thread(target=session)
    worker.start()
    worker.join()
"""


def _child(script: str, arg: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``script`` run by a fresh interpreter with ``arg``: a failure there may be a segfault."""
    return subprocess.run([sys.executable, "-c", script, arg], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


# A tuple nested across several runs of one session, each run under its own memory limit: C
# routines that hash it (``tuplehash`` has no recursion check) recurse once per level on the
# run's C stack, which must outlast the nesting the whole process holds, not one run's share.
_NESTED_ACROSS_RUNS = """
import sys, threading
import safe_eval
def session():
    ev = safe_eval.Evaluator(limits={"memory": 64 * 2**20, "time": 60, "ops": 10**8})
    env = {"t": ()}
    for _ in range(4):   # 2.8 M levels, each run ~45 MB
        ev.exec("for _ in range(700_000):\\n    t = (t,)\\n", env)
    for probe in ("{}.get(t)", "hash(t)", "s = set()\\ns.add(t)\\nlen(s)", "t in {1: 2}"):
        try:
            print(repr(ev.eval(probe, env)), flush=True)
        except safe_eval.SafeEvalError as e:
            print(type(e).__name__, flush=True)
"""


@pytest.mark.timeout(300)
@pytest.mark.parametrize("thread", ["main", "other"])
def test_nesting_built_across_runs_of_a_session_never_overflows_the_c_stack(thread: str) -> None:
    p = _child(_NESTED_ACROSS_RUNS + _ON_THREAD, thread, timeout=280)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    outcomes = p.stdout.split("\n")[:4]
    # each probe answers as CPython would, or is stopped by a limit of its run: never a crash
    assert all(o in {"None", "True", "False", "1", "MemoryLimit", "RecursionLimit", "TimeLimit"}
               or o.lstrip("-").isdigit() for o in outcomes), (outcomes, p.stderr[-2000:])


# What the main thread's runs raise the soft stack limit to (``stack.stack_for``, kept for the
# process) every child process inherits as its threads' default stack size: a sandbox worker
# started afterwards must still have its address-space limit for its guest (its watchdog thread
# took 4 GiB of it: MemoryLimit, or a module half imported)
_WORKER_AFTER_MAIN_THREAD_RUNS = """
import sys
import safe_eval
from safe_eval.sandbox import make_backend
safe_eval.Evaluator(limits={"memory": 2**31}).eval("1")  # a main-thread run with a 2 GiB limit
code = "import hashlib\\nx = [i * i for i in range(10**5)]\\nlen(hashlib.sha256(b'a').hexdigest()) + len(x)"
kw = {}
if sys.argv[1].endswith("+cpython"):  # the guest's own threads
    code = ("import threading\\nbox = []\\nt = threading.Thread(target=lambda: box.append(100064))\\n"
            "t.start()\\nt.join()\\nbox[0]")
    kw = {"cpython_imports": {"threading"}}
with make_backend(sys.argv[1], **kw) as b:
    try:
        print(b.run(code, {}).value, flush=True)
    except safe_eval.SafeEvalError as e:
        print(type(e).__name__, e, flush=True)
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", ["subprocess", "bwrap", "bwrap+cpython"])
def test_a_sandbox_worker_started_after_main_thread_runs_raised_the_stack_limit_keeps_its_memory(
        backend: str) -> None:
    from safe_eval.sandbox.bwrap import BwrapBackend
    from safe_eval.sandbox.subprocess import SubprocessBackend

    why = {"subprocess": SubprocessBackend, "bwrap": BwrapBackend}[backend.split("+")[0]].unavailable()
    if why is not None:
        pytest.skip(f"{backend}: {why}")
    p = _child(_WORKER_AFTER_MAIN_THREAD_RUNS, backend, timeout=100)
    assert (p.returncode, p.stdout.strip()) == (0, "100064"), p.stderr[-2000:]


# A tool that evaluates code with limits of its own, larger than those of the run that called
# it: the nested run is sized for its own limit, not run on the caller's C stack (5 M levels,
# 240 MB, under the tool run's 1 GiB; the caller's stack was sized for 64 MiB: segfault)
_NESTED_RUN_WITH_A_LARGER_LIMIT = """
import sys, threading
import safe_eval
def python_tool(code):
    return safe_eval.safe_eval(code, {}, limits={"memory": 2**30, "time": 120, "ops": 10**9})
def session():
    code = "python_tool('t = ()\\\\nfor _ in range(5_000_000):\\\\n    t = (t,)\\\\nhash(t) == hash(t)')"
    try:
        print(repr(safe_eval.safe_eval(code, {"python_tool": python_tool},
                                       limits={"memory": 64 * 2**20, "time": 120})), flush=True)
    except safe_eval.SafeEvalError as e:
        print(type(e).__name__, flush=True)
"""


@pytest.mark.timeout(300)
@pytest.mark.parametrize("thread", ["main", "other"])
def test_a_run_nested_in_a_tool_with_a_larger_memory_limit_never_overflows_the_callers_c_stack(
        thread: str) -> None:
    p = _child(_NESTED_RUN_WITH_A_LARGER_LIMIT + _ON_THREAD, thread, timeout=280)
    assert (p.returncode, p.stdout.strip()) == (0, "True"), p.stderr[-2000:]
