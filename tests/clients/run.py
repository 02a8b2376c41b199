"""Run a framework's own tests against safe-eval's integration, next to the stock implementation.

    python tests/clients/run.py smolagents       [--src DIR] [--venv DIR] [--python PY]
    python tests/clients/run.py mcp-run-python   [--src DIR] [--venv DIR] [--python PY]
    ... [--tests ID ...] [--no-install]          some tests only; a virtualenv used as it is

One command on a fresh machine: it makes a virtualenv (``--venv``, default
``.venv-clients-<framework>``), installs safe-eval with the framework's extra, the pinned
framework release and what its tests import, fetches the tests of that release (``git clone``
of the tag, or ``--src`` for a checkout you already have), then runs the selected tests twice:
stock, and with the pytest plugin in this directory that swaps in safe-eval
(``patch_smolagents.py``, ``patch_mcp_run_python.py``). It prints both counts and the tests
that fail only with safe-eval. Exit status 0 when it ran (the counts are the result).

``--tests`` runs the given test ids instead of the selection below (one test re-measured);
``--no-install`` takes ``--venv`` as it is (no pip, no network: it must already hold the pinned
framework). safe-eval is imported from this checkout either way (it comes first on PYTHONPATH).

Selections (what issue 14 asks for):
- smolagents v1.26.0: ``TestLocalPythonExecutor`` (test_local_python_executor.py) and
  ``test_agents.py`` (every CodeAgent test; numpy/pandas are installed so that the files import).
- mcp-run-python v0.0.22: ``tests/test_sandbox.py``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]

FRAMEWORKS = {
    "smolagents": {
        "repo": "https://github.com/huggingface/smolagents.git",
        "tag": "v1.26.0",
        "extra": "smolagents",
        "install": ["smolagents==1.26.0", "pytest>=8", "pytest-datadir", "pytest-timeout", "numpy", "pandas",
                    "python-dotenv"],
        "tests": ["tests/test_local_python_executor.py::TestLocalPythonExecutor", "tests/test_agents.py"],
        "plugin": "patch_smolagents",
    },
    "mcp-run-python": {
        "repo": "https://github.com/pydantic/mcp-run-python.git",
        "tag": "v0.0.22",
        "extra": "mcp",
        # mcp-run-python's client code is written for the mcp 1.x client API
        "install": ["mcp-run-python==0.0.22", "mcp>=1.13.1,<2", "pytest>=8", "inline-snapshot", "anyio"],
        "tests": ["tests/test_sandbox.py"],
        "plugin": "patch_mcp_run_python",
    },
}


def sh(*cmd: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, text=True, **kwargs)  # type: ignore[call-overload, no-any-return]


def prepare_venv(venv: Path, python: str, spec: dict[str, object]) -> Path:
    py = venv / "bin" / "python"
    if not py.exists():
        sh(python, "-m", "venv", str(venv))
    sh(str(py), "-m", "pip", "install", "-q", "-e", f"{PROJECT}[{spec['extra']}]", *spec["install"])  # type: ignore[misc]
    return py


def fetch_tests(spec: dict[str, object], src: str | None) -> Path:
    if src:
        return Path(src).resolve()
    dest = Path(tempfile.mkdtemp(prefix="safe-eval-client-"))
    sh("git", "clone", "-q", "--depth", "1", "--branch", str(spec["tag"]), str(spec["repo"]), str(dest))
    return dest


def run_tests(py: Path, src: Path, tests: list[str], plugin: str | None) -> dict[str, str]:
    """{test id: outcome} from one pytest run (outcomes: passed, failed, error, skipped)."""
    report = Path(tempfile.mkdtemp()) / "report.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), str(PROJECT), str(src)]))}
    cmd = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", f"--junitxml={report}",
           "-o", "timeout=120", *tests]
    if plugin:
        cmd[3:3] = ["-p", plugin]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=src, env=env, text=True, stdout=subprocess.DEVNULL)
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        outcomes[name] = ("failed" if "failure" in kinds else "error" if "error" in kinds
                          else "skipped" if "skipped" in kinds else "passed")
    return outcomes


def counts(outcomes: dict[str, str]) -> str:
    tally = {k: sum(1 for v in outcomes.values() if v == k) for k in ("passed", "failed", "error", "skipped")}
    return f"{tally['passed']} passed, {tally['failed']} failed, {tally['error']} errors, {tally['skipped']} skipped"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("framework", choices=sorted(FRAMEWORKS))
    parser.add_argument("--src", help="a checkout of the framework at the pinned tag (default: git clone)")
    parser.add_argument("--venv", help="the virtualenv to use or make (default: .venv-clients-FRAMEWORK)")
    parser.add_argument("--python", default=sys.executable, help="the Python to make the virtualenv with")
    parser.add_argument("--tests", nargs="+", metavar="ID", help="these test ids instead of the selection")
    parser.add_argument("--no-install", action="store_true", help="use --venv as it is (no pip install)")
    args = parser.parse_args()
    spec = FRAMEWORKS[args.framework]
    venv = Path(args.venv or PROJECT / f".venv-clients-{args.framework}")
    py = venv / "bin" / "python" if args.no_install else prepare_venv(venv, args.python, spec)
    src = fetch_tests(spec, args.src)
    tests: list[str] = args.tests or spec["tests"]
    stock = run_tests(py, src, tests, None)
    ours = run_tests(py, src, tests, str(spec["plugin"]))
    print(f"\n{args.framework} {spec['tag']} ({' '.join(tests)})")
    print(f"  stock:     {counts(stock)}")
    print(f"  safe-eval: {counts(ours)}")
    lost = sorted(t for t, v in ours.items() if v in ("failed", "error") and stock.get(t) == "passed")
    if lost:
        print("  passing stock, failing with safe-eval:")
        for test in lost:
            print("    " + re.sub(r"^tests\.", "", test))
    both = sorted(t for t, v in ours.items() if v in ("failed", "error") and stock.get(t) in ("failed", "error"))
    if both:
        print("  failing stock too:")
        for test in both:
            print("    " + re.sub(r"^tests\.", "", test))
    return 0


if __name__ == "__main__":
    sys.exit(main())
