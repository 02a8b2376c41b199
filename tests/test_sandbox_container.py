"""The container backend where no container runtime runs (these machines: a docker CLI, no
daemon): a typed error naming what is missing and the command that installs or starts it, and
the exact command it would run a worker with.

The runtime is played by fake ``docker``/``podman`` scripts on ``PATH`` that answer the
questions the backend asks (``info``, ``image inspect``, ``info --format``) as a real one would
in each situation. The contract suite (``tests/sandbox/test_contract.py``) runs the backend
itself where Docker or Podman answers.
"""

from __future__ import annotations

import json
import os
import stat

import pytest

import safe_eval
from safe_eval.errors import SandboxUnavailable
from safe_eval.sandbox import make_backend
from safe_eval.sandbox.base import package_roots
from safe_eval.sandbox.container import IMAGE, LIB, ContainerBackend
from safe_eval.sandbox.lockdown import TMP_BYTES

NO_DAEMON = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"


def _fake_cli(directory, name: str, *, info: bool = True, image: bool = True, runtimes: str = '{"runc":{}}'):
    """A ``name`` CLI in ``directory`` that answers as told; every other command succeeds."""
    script = f"""#!/bin/sh
if [ "$1" = info ] && [ "$2" = --format ]; then
    {'echo ' + repr(runtimes) if info else 'echo ' + repr(NO_DAEMON) + ' >&2; exit 1'}
    exit 0
fi
if [ "$1" = info ]; then
    {'exit 0' if info else 'echo ' + repr(NO_DAEMON) + ' >&2; exit 1'}
fi
if [ "$1" = image ]; then
    {'exit 0' if image else 'echo "Error: No such image: ' + IMAGE + '" >&2; exit 1'}
fi
exit 0
"""
    path = directory / name
    path.write_text(script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


@pytest.fixture
def bin_dir(tmp_path, monkeypatch):
    """An otherwise empty PATH: only the fakes a test puts there are found; the shared backends
    an earlier test made (with a real daemon, where there is one) are closed first, so
    ``sandbox="container"`` probes the fakes."""
    from safe_eval.sandbox.selection import shutdown

    shutdown()
    directory = tmp_path / "bin"
    directory.mkdir()
    monkeypatch.setenv("PATH", str(directory))
    return directory


def test_no_runtime_at_all_names_what_to_install(bin_dir):
    with pytest.raises(SandboxUnavailable) as info:
        make_backend("container")
    assert "no Docker or Podman" in str(info.value)
    assert "apt-get install -y docker.io" in str(info.value)


def test_a_docker_cli_without_a_daemon_names_the_daemon_and_how_to_get_it(bin_dir):
    cli = _fake_cli(bin_dir, "docker", info=False)
    with pytest.raises(SandboxUnavailable) as info:
        safe_eval.safe_eval("1 + 1", sandbox="container")
    message = str(info.value)
    assert cli in message and "no Docker daemon" in message
    assert NO_DAEMON in message  # the runtime's own words
    assert "apt-get install -y docker.io" in message and "dockerd" in message


def test_a_stopped_daemon_says_how_to_start_it(bin_dir):
    _fake_cli(bin_dir, "docker", info=False)
    _fake_cli(bin_dir, "dockerd")  # installed, not running
    with pytest.raises(SandboxUnavailable, match="start it with: dockerd"):
        make_backend("container")


def test_podman_that_does_not_answer_says_so(bin_dir):
    _fake_cli(bin_dir, "podman", info=False)
    with pytest.raises(SandboxUnavailable, match="podman is installed but `podman info` fails"):
        make_backend("container")


def test_a_missing_image_names_the_command_that_builds_it(bin_dir):
    _fake_cli(bin_dir, "docker", image=False)
    with pytest.raises(SandboxUnavailable, match=f"{IMAGE} is not built.*safe-eval sandbox build-image"):
        make_backend("container")


def test_a_missing_gvisor_runtime_says_how_to_register_it(bin_dir):
    _fake_cli(bin_dir, "docker")
    with pytest.raises(SandboxUnavailable, match="runsc is not a runtime of docker.*daemon.json"):
        make_backend("container:runsc")


def test_a_runtime_that_does_not_answer_in_time_is_unavailable_not_a_hang(bin_dir, monkeypatch):
    from safe_eval.sandbox import container

    monkeypatch.setattr(container, "CLI_SECONDS", 0.5)
    hang = bin_dir / "docker"
    hang.write_text("#!/bin/sh\nexec /bin/sleep 30\n")
    hang.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match="did not answer within 0.5s"):
        make_backend("container")


# -- the command a worker would be started with ------------------------------------------------

@pytest.fixture(params=[None, "runsc"], ids=["runc", "runsc"])
def command(request, bin_dir):
    cli = _fake_cli(bin_dir, "docker", runtimes='{"runc":{},"runsc":{}}')
    backend = ContainerBackend(runtime=request.param, pool_size=0)
    workspace = backend.new_workspace()
    try:
        argv, cwd = backend.worker_argv(workspace, backend.config(workspace))
        yield {"argv": argv, "cwd": cwd, "cli": cli, "workspace": workspace.path, "backend": backend,
               "runtime": request.param}
    finally:
        workspace.remove()
        backend.close()


def _options(argv):
    """Each option of ``docker run`` (up to the image) with its values, in order."""
    head = argv[2:argv.index(IMAGE)]
    pairs, i = [], 0
    while i < len(head):
        if head[i] in ("-i", "--rm", "--init", "--read-only"):
            pairs.append((head[i], None))
            i += 1
        else:
            pairs.append((head[i], head[i + 1]))
            i += 2
    return pairs


def test_the_worker_runs_in_a_locked_down_container(command):
    argv = command["argv"]
    assert argv[:2] == [command["cli"], "run"]
    options = _options(argv)
    flags = {name for name, _ in options}
    values = {(name, value) for name, value in options}
    assert {"-i", "--rm", "--init", "--read-only"} <= flags
    assert {("--network", "none"), ("--user", "65534:65534"), ("--cap-drop", "ALL"),
            ("--security-opt", "no-new-privileges"), ("--pids-limit", "64"),
            ("--tmpfs", f"/tmp:size={TMP_BYTES}"), ("--memory", str(command["backend"].memory)),
            ("-w", "/workspace")} <= values
    # nothing that would widen it: no host namespaces, devices, privileges or environment
    for name, value in options:
        assert name not in ("--privileged", "--cap-add", "--device", "-e", "--env", "--env-file",
                            "--pid", "--ipc", "--uts", "--userns", "-p", "--publish")
        assert not (name == "--network" and value != "none")
        assert not (name == "--security-opt" and "unconfined" in value)
    assert (("--runtime", "runsc") in values) == (command["runtime"] == "runsc")


def test_only_the_workspace_is_writable_and_the_packages_are_read_only(command):
    mounts = [value for name, value in _options(command["argv"]) if name == "-v"]
    assert f"{command['workspace']}:/workspace" in mounts
    others = [m for m in mounts if not m.startswith(command["workspace"] + ":")]
    assert others and all(m.endswith(":ro") for m in others)
    expected = {f"{root}:{LIB}/{os.path.basename(root)}:ro" for root in package_roots().values()}
    assert set(others) == expected
    assert not any(m.startswith(("/var/run/docker.sock", "/run/docker.sock", "/:")) for m in mounts)


def test_the_worker_command_inside_is_the_locked_down_worker(command):
    argv = command["argv"]
    inside = argv[argv.index(IMAGE) + 1:]
    assert inside[:3] == ["/usr/bin/python3", "-I", "-S"]
    config = json.loads(inside[-1])
    spec = config["lockdown"]
    assert spec["seccomp"] is True and spec["drop_root"] is False  # --user makes it 65534 already
    assert spec["rlimits"]["as"] == command["backend"].memory and spec["rlimits"]["nofile"] == 256
    assert config["tag"] == command["workspace"]
    assert command["cwd"] is None
