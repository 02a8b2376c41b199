"""Invariant: a `subprocess` sandbox worker never has more rights than the host user, and drops
what it can: started as root it is uid/gid 65534 with no capability (or only
CAP_DAC_READ_SEARCH, bounded by Landlock, when its interpreter is where 65534 cannot read), an
empty environment, ``no_new_privs``, rlimits, and writes only its private workspace.

Written as the attacker would: arbitrary code in the worker (a CPython bug reached from guest
code) is played by a probe that runs the worker's own command line and lockdown (the
``lockdown`` spec the backend builds), then tries what a compromised worker would. Both ways a
root host starts it are covered: with a world-readable system interpreter of the same version,
and without one (pyenv under a 0700 ``/root`` in CI: this used to leave the worker uid 0 with
every capability).
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from safe_eval.sandbox import subprocess as subprocess_backend
from safe_eval.sandbox.base import BOOT
from safe_eval.sandbox.subprocess import SubprocessBackend

CAP_DAC_READ_SEARCH = 1 << 2
WORKER_MAIN = BOOT.split(";")[-2] + ";" + BOOT.split(";")[-1]  # "from ... import main;main()"
PROBE = r"""
import errno, json, os, socket, sys
from safe_eval.sandbox import lockdown
layers = lockdown.apply(json.loads(sys.argv[1])["lockdown"])

def attempt(action):
    try:
        action()
        return "ok"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))

def write(path):
    with open(path, "w") as f:
        f.write("x")

def lazy_import():
    import fractions, statistics, difflib  # not imported before the lockdown: read after it

out = {
    "layers": layers,
    "read /etc/shadow": attempt(lambda: open("/etc/shadow", "rb").read(1)),
    "list /root": attempt(lambda: os.listdir("/root")),
    "list /": attempt(lambda: os.listdir("/")),
    "write /tmp": attempt(lambda: write(f"/tmp/safe-eval-probe-{os.getpid()}")),
    "write /etc": attempt(lambda: write("/etc/safe-eval-probe")),
    "write workspace": attempt(lambda: write("probe.txt")),
    "chown to root": attempt(lambda: os.chown("probe.txt", 0, 0)),
    "setuid 0": attempt(lambda: os.setuid(0)),
    "signal pid 1": attempt(lambda: os.kill(1, 0)),
    "socket": attempt(lambda: socket.socket().close()),
    "import lazily": attempt(lazy_import),
}
sys.stdout.write(json.dumps(out) + "\n")
sys.stdout.flush()
sys.stdin.read()  # the host reads /proc/PID/status meanwhile
"""


@pytest.fixture(params=["system-interpreter", "no-system-interpreter"])
def interpreter(request, monkeypatch):
    if request.param == "no-system-interpreter":
        monkeypatch.setattr(subprocess_backend, "SYSTEM_BIN", "/nonexistent")
    return request.param


@pytest.fixture(params=["all-layers", "no-optional-layers"])
def probe(request, interpreter):
    """What the probe saw, and the host's view of its process (status, environment). Without
    the optional layers (no `sandbox` extra: neither landlockpy nor pyseccomp), the rights the
    uid and capabilities leave must still be the host's at most."""
    backend = SubprocessBackend(pool_size=0)
    workspace = backend.new_workspace()
    try:
        argv, cwd = backend.worker_argv(workspace, backend.config(workspace))
        assert argv[4].endswith(WORKER_MAIN)
        argv[4] = argv[4][: -len(WORKER_MAIN)] + PROBE
        config = json.loads(argv[-1])
        spec = config["lockdown"]
        if request.param == "no-optional-layers":
            if spec.get("keep_read"):
                pytest.skip("a worker that keeps CAP_DAC_READ_SEARCH never serves without Landlock: "
                            "test_a_worker_that_would_keep_the_read_capability_never_serves_without_landlock")
            spec.update(landlock=False, seccomp=False)
            argv[-1] = json.dumps(config)
        proc = subprocess.Popen(argv, cwd=cwd, env={}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            line = proc.stdout.readline()
            assert line, proc.stderr.read().decode()
            seen = json.loads(line)
            with open(f"/proc/{proc.pid}/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
            with open(f"/proc/{proc.pid}/environ", "rb") as f:
                environ = f.read()
        finally:
            proc.stdin.close()
            proc.wait(30)
        yield {"seen": seen, "status": {k: v.strip() for k, v in status.items()}, "environ": environ,
               "spec": spec, "workspace": workspace.path}
    finally:
        workspace.remove()
        backend.close()


def _hex(status, field):
    return int(status[field], 16)


def test_a_root_hosts_worker_is_uid_65534_with_at_most_one_read_capability(probe):
    status = probe["status"]
    if os.getuid() != 0:
        assert status["Uid"].split() == [str(os.getuid())] * 4
        assert _hex(status, "CapEff") == _hex(status, "CapPrm") == 0
    else:
        assert status["Uid"].split() == ["65534"] * 4
        assert status["Gid"].split() == ["65534"] * 4
        assert status["Groups"] == ""
        keep = CAP_DAC_READ_SEARCH if probe["spec"].get("keep_read") else 0
        assert _hex(status, "CapEff") == _hex(status, "CapPrm") == keep
        assert _hex(status, "CapBnd") & ~CAP_DAC_READ_SEARCH == 0
    assert _hex(status, "CapInh") == _hex(status, "CapAmb") == 0
    assert status["NoNewPrivs"] == "1"
    assert probe["seen"]["layers"]["uid"] is True


def test_the_worker_environment_is_empty(probe):
    assert probe["environ"] == b""


def test_the_worker_still_reads_its_own_interpreter_after_the_drop(probe):
    assert probe["seen"]["import lazily"] == "ok"


def test_the_worker_writes_only_its_workspace(probe):
    seen = probe["seen"]
    assert seen["write workspace"] == "ok"
    assert os.path.exists(os.path.join(probe["workspace"], "probe.txt"))
    assert seen["write /etc"] in ("EACCES", "EPERM")
    if seen["layers"]["landlock"]:  # without Landlock, /tmp is writable as for any user
        assert seen["write /tmp"] in ("EACCES", "EPERM")


def test_the_worker_cannot_act_as_root(probe):
    seen = probe["seen"]
    assert seen["setuid 0"] == "EPERM"
    assert seen["signal pid 1"] == "EPERM"
    if os.getuid() == 0:
        assert seen["chown to root"] == "EPERM"


def test_the_worker_reads_nothing_of_the_host_outside_what_it_runs(probe):
    seen = probe["seen"]
    if not seen["layers"]["landlock"]:
        pytest.skip("no Landlock here: reads are bounded by the uid alone")
    assert seen["read /etc/shadow"] == "EACCES"
    assert seen["list /root"] == "EACCES"
    assert seen["list /"] == "EACCES"
    assert seen["socket"] in ("EPERM", "EACCES")


# -- root without Landlock: the read capability is refused, not kept unbounded ------------------

@pytest.fixture
def no_landlock(monkeypatch):
    """A host where Landlock cannot be applied (no landlockpy, or a kernel without it)."""
    from safe_eval.sandbox import lockdown

    monkeypatch.setattr(lockdown, "landlock_available", lambda: False)


def test_a_root_host_without_landlock_refuses_a_worker_that_would_keep_the_read_capability(
        monkeypatch, no_landlock):
    # the worker kept CAP_DAC_READ_SEARCH to read a pyenv interpreter under a 0700 /root, and
    # without Landlock read every file on the machine (/etc/shadow, /root/.ssh)
    if os.getuid() != 0:
        pytest.skip("only a root host's worker keeps a capability")
    from safe_eval.errors import SandboxUnavailable
    from safe_eval.sandbox import make_backend
    from safe_eval.sandbox.doctor import diagnose

    monkeypatch.setattr(subprocess_backend, "SYSTEM_BIN", "/nonexistent")
    if not subprocess_backend.needs_read_capability(subprocess_backend.sandbox_python(), []):
        pytest.skip("this interpreter is world-readable: no capability is needed")
    with pytest.raises(SandboxUnavailable) as info:
        make_backend("subprocess", pool_size=0)
    message = str(info.value)
    assert "CAP_DAC_READ_SEARCH" in message and "apt-get install python" in message
    row = diagnose(("subprocess",))[0]
    assert row["usable"] is False and "CAP_DAC_READ_SEARCH" in row["why"]


def test_a_root_host_without_landlock_still_runs_a_worker_that_needs_no_capability(no_landlock):
    # with a world-readable system interpreter the worker drops every capability: uid 65534
    # bounds its reads, Landlock is not required
    if os.getuid() == 0 and subprocess_backend.needs_read_capability(subprocess_backend.sandbox_python(), [
            *__import__("safe_eval.sandbox.base", fromlist=["x"]).package_roots().values()]):
        pytest.skip("no world-readable system interpreter here")
    from safe_eval.sandbox import make_backend

    with make_backend("subprocess", pool_size=0) as backend:
        assert backend.run("1 + 1").value == 2


def test_a_worker_that_would_keep_the_read_capability_never_serves_without_landlock(monkeypatch):
    # whatever the host's probe said: the worker's own lockdown ends it before it reads a request
    if os.getuid() != 0:
        pytest.skip("only a root host's worker keeps a capability")
    monkeypatch.setattr(subprocess_backend, "SYSTEM_BIN", "/nonexistent")
    backend = SubprocessBackend(pool_size=0)
    workspace = backend.new_workspace()
    try:
        argv, cwd = backend.worker_argv(workspace, backend.config(workspace))
        config = json.loads(argv[-1])
        if not config["lockdown"].get("keep_read"):
            pytest.skip("this interpreter is world-readable: no capability is needed")
        config["lockdown"]["landlock"] = False  # what a kernel without Landlock gives
        argv[-1] = json.dumps(config)
        proc = subprocess.run(argv, cwd=cwd, env={}, input=b"", capture_output=True, timeout=60)
        assert proc.returncode != 0 and proc.stdout == b""  # never said ready
        assert b"required isolation layer 'landlock'" in proc.stderr
    finally:
        workspace.remove()
        backend.close()
