"""The ``container`` backend: Docker or Podman (gVisor's ``runsc`` as an option).

Each worker is ``docker run -i --rm`` of a locally built image (``safe-eval sandbox
build-image``: a host-copy root file system holding this machine's Python, imported with
``docker import``; image registries are not needed). The container has no network, a read-only
root, a tmpfs ``/tmp``, every capability dropped, no-new-privileges, uid 65534, pids and memory
limits; the packages the worker imports are bound read-only under ``/opt/safe-eval/lib`` and
the workspace at ``/workspace``. Killing the ``docker run`` client alone would leave the
container running, so each container is named and removed with ``docker rm -f`` on close.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from typing import Any

from safe_eval.sandbox.base import Backend, boot_argv, package_roots
from safe_eval.sandbox.lockdown import TMP_BYTES
from safe_eval.sandbox.workspace import Workspace

__all__ = ["IMAGE", "ContainerBackend", "build_image", "container_cli"]

IMAGE = "safe-eval-sandbox:local"
LIB = "/opt/safe-eval/lib"
INSTALL = ("apt-get install -y docker.io (then start dockerd) or apt-get install -y podman; "
           "then: safe-eval sandbox build-image")
START_DOCKERD = "dockerd --iptables=false --bridge=none &"
CLI_SECONDS = 10.0  # a container CLI that does not answer a question in this long is not usable


def container_cli() -> str | None:
    for name in ("docker", "podman"):
        path = shutil.which(name)
        if path is not None:
            return path
    return None


def _answers(cli: str, *args: str) -> bool:
    return _problem(cli, *args) is None


def _problem(cli: str, *args: str) -> str | None:
    """None when ``cli args`` succeeds; else what went wrong, in one short line."""
    try:
        done = subprocess.run([cli, *args], capture_output=True, timeout=CLI_SECONDS, env=dict(os.environ))
    except subprocess.TimeoutExpired:
        return f"`{os.path.basename(cli)} {' '.join(args)}` did not answer within {CLI_SECONDS:g}s"
    except OSError as exc:
        return f"`{cli}` cannot be run: {exc.strerror}"
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return (lines[0][:300] if lines else f"exit status {done.returncode}")


def _daemon_missing(cli: str) -> str | None:
    """Why the runtime behind ``cli`` does not answer (None: it does), naming what to install
    or start: the docker CLI alone (here: /usr/local/bin/docker) has no daemon to talk to."""
    why = _problem(cli, "info")
    if why is None:
        return None
    name = os.path.basename(cli)
    if name != "docker":
        return f"{name} is installed but `{name} info` fails ({why}); install it with: {INSTALL}"
    if shutil.which("dockerd") is None:
        return (f"the docker CLI ({cli}) is installed but there is no Docker daemon ({why}); "
                f"install it with: apt-get install -y docker.io, start it with: {START_DOCKERD}")
    return f"the Docker daemon does not answer ({why}); start it with: {START_DOCKERD}"


def _has_runtime(cli: str, runtime: str) -> bool:
    try:
        done = subprocess.run([cli, "info", "--format", "{{json .Runtimes}}"], capture_output=True,
                              text=True, timeout=CLI_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and f'"{runtime}"' in done.stdout


def build_image(cli: str | None = None) -> str:
    """Build the worker image from this machine's Python (a host-copy root file system)."""
    import tarfile
    import tempfile

    cli = cli or container_cli()
    if cli is None:
        raise OSError(f"no container runtime; install one: {INSTALL}")
    python = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    if not os.path.exists(python):
        raise OSError(f"{python} is needed to build the image (apt-get install -y python3-minimal)")
    stdlib = os.path.dirname(os.__file__) if os.__file__.startswith("/usr/") else \
        f"/usr/lib/python{sys.version_info.major}.{sys.version_info.minor}"
    libs = _ldd_closure([python] + [os.path.join(root, f) for root, _, files in os.walk(stdlib)
                                    for f in files if f.endswith(".so")])
    # the worker's seccomp layer: pyseccomp finds libseccomp through ldconfig and its cache
    libs |= {p for p in ("/sbin/ldconfig", "/etc/ld.so.cache") if os.path.exists(p)}
    seccomp = [p for p in ("/usr/lib/x86_64-linux-gnu/libseccomp.so.2",) if os.path.exists(p)]
    libs |= set(_ldd_closure(seccomp)) | set(seccomp)
    with tempfile.TemporaryDirectory() as tmp:
        tar_path = os.path.join(tmp, "rootfs.tar")
        with tarfile.open(tar_path, "w", dereference=True) as tar:
            tar.add(python, arcname=python.lstrip("/"))
            tar.add(python, arcname="usr/bin/python3")
            tar.add(stdlib, arcname=stdlib.lstrip("/"), filter=_skip_tests)
            for lib in libs:
                tar.add(lib, arcname=lib.lstrip("/"))
            for d in ("tmp", "workspace", "opt/safe-eval/lib", "proc", "dev", "etc"):
                info = tarfile.TarInfo(d)
                info.type, info.mode = tarfile.DIRTYPE, 0o1777 if d == "tmp" else 0o755
                tar.addfile(info)
        done = subprocess.run([cli, "import", tar_path, IMAGE], capture_output=True, text=True)
        if done.returncode != 0:
            raise OSError(f"{cli} import failed: {done.stderr.strip()}")
    return IMAGE


def _skip_tests(info: Any) -> Any:
    parts = info.name.split("/")
    return None if {"test", "idlelib", "tkinter", "ensurepip", "__pycache__"} & set(parts) else info


def _ldd_closure(paths: list[str]) -> set[str]:
    found: set[str] = set()
    for path in paths:
        done = subprocess.run(["ldd", path], capture_output=True, text=True)
        for line in done.stdout.splitlines():
            for token in line.split():
                if token.startswith("/") and os.path.exists(token):
                    found.add(os.path.realpath(token))
                    found.add(token)
    return found


class ContainerBackend(Backend):
    name = "container"
    outside_group = True  # the daemon starts the container, not our docker client
    isolation = ("container: no network, read-only root, tmpfs, cap-drop all, no-new-privileges, "
                 "pids/memory limits")

    def __init__(self, mode: str = "interpreter", *, runtime: str | None = None, **options: Any) -> None:
        self.runtime = runtime
        super().__init__(mode, **options)
        self.cli = container_cli() or "docker"
        if runtime is not None and not _has_runtime(self.cli, runtime):
            from safe_eval.errors import SandboxUnavailable

            raise SandboxUnavailable(
                f"{runtime} is not a runtime of {os.path.basename(self.cli)}; install it (apt-get install -y "
                f"runsc) and register it in /etc/docker/daemon.json: "
                '{"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}}')
        self._names: list[str] = []

    @classmethod
    def unavailable(cls) -> str | None:
        cli = container_cli()
        if cli is None:
            return f"no Docker or Podman here; install one: {INSTALL}"
        why = _daemon_missing(cli)
        if why is not None:
            return why
        if not _answers(cli, "image", "inspect", IMAGE):
            return f"the image {IMAGE} is not built; build it with: safe-eval sandbox build-image"
        return None

    def workspace_owner(self) -> int | None:
        return 65534 if os.getuid() == 0 else None

    def worker_argv(self, workspace: Workspace, config: dict[str, Any]) -> tuple[list[str], str | None]:
        name = f"safe-eval-{uuid.uuid4().hex[:12]}"
        self._names.append(name)
        # --init: the worker must not be the container's pid 1, which the kernel shields from
        # signals it does not handle (os.abort would end in SIGSEGV, a limit kill in nothing)
        argv = [self.cli, "run", "-i", "--rm", "--init", "--name", name, "--network", "none", "--read-only",
                "--tmpfs", f"/tmp:size={TMP_BYTES}", "--user", "65534:65534", "--cap-drop", "ALL",
                "--security-opt", "no-new-privileges", "--pids-limit", "64",
                "--memory", str(self.memory), "--ulimit", "nofile=1024:1024",
                "-v", f"{workspace.path}:/workspace", "-w", "/workspace"]
        if self.runtime:
            argv += ["--runtime", self.runtime]
        for root in sorted(package_roots().values()):
            argv += ["-v", f"{root}:{LIB}/{os.path.basename(root)}:ro"]
        spec = self.lockdown("/workspace")
        spec["drop_root"] = False
        config = {**config, "lockdown": spec}
        return argv + [IMAGE] + boot_argv("/usr/bin/python3", [LIB], config), None

    def close(self) -> None:
        super().close()
        names, self._names = self._names, []
        if names:
            try:  # a daemon that does not answer must not hang the host's close
                subprocess.run([self.cli, "rm", "-f", *names], capture_output=True, timeout=CLI_SECONDS)
            except (OSError, subprocess.TimeoutExpired):
                pass
