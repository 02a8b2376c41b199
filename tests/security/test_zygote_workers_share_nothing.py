"""Workers forked by the bwrap zygote start from its pristine state and cannot reach each other.

Written as the attacker would: plain CPython guest code (``bwrap+cpython`` with ``os`` allowed)
that leaves something behind for the next job, or reaches for a sibling worker or the zygote.
"""

from __future__ import annotations

import pytest

from safe_eval.sandbox import make_backend
from safe_eval.sandbox.bwrap import BwrapBackend

pytestmark = pytest.mark.skipif(BwrapBackend.unavailable() is not None,
                                reason=f"bwrap: {BwrapBackend.unavailable()}")


@pytest.fixture(scope="module")
def bwrap():
    with make_backend("bwrap+cpython", cpython_imports={"os", "sys"}) as backend:
        yield backend


LEAKS = [
    pytest.param("import sys\nsys.modules.setdefault('leaked_module', sys)\nNone",
                 "import sys\n'leaked_module' in sys.modules", id="module-state"),
    pytest.param("import sys\nsys.path.insert(0, '/workspace/evil')",
                 "import sys\n'/workspace/evil' in sys.path", id="sys-path"),
    pytest.param("import os\nos.environ['LEAKED'] = '1'", "import os\n'LEAKED' in os.environ", id="env-var"),
    pytest.param("import os\nos.putenv('LEAKED_C', '1')",
                 "open('/proc/self/environ', 'rb').read().count(b'LEAKED_C')", id="c-level-env-var"),
    pytest.param("open('/tmp/leaked', 'w').write('x')", "import os\nos.path.exists('/tmp/leaked')",
                 id="file-in-tmp"),
    pytest.param("open('/workspace/leaked', 'w').write('x')", "import os\nos.listdir('/workspace')",
                 id="file-in-workspace"),
]


@pytest.mark.parametrize(("plant", "probe"), LEAKS)
def test_what_a_job_leaves_behind_is_invisible_to_the_next_worker(bwrap, plant, probe):
    bwrap.run(plant)
    assert bwrap.run(probe).value in (False, 0, [])


def test_a_worker_sees_no_other_workers_workspace(bwrap):
    with bwrap.session() as other:
        other.put("secret.txt", "other job's data")
        assert bwrap.run("import os\nos.listdir('/workspaces')").value == []


def test_a_worker_cannot_signal_a_sibling_worker_or_the_zygote(bwrap):
    with bwrap.session() as victim:
        pid = victim.run("import os\nos.getpid()").value
        code = ("import os\nout = []\nfor target in (pid, os.getppid()):\n"
                "    try:\n        os.kill(target, 0)\n        out.append('reached')\n"
                "    except PermissionError:\n        out.append('denied')\nout")
        assert bwrap.run(code, {"pid": pid}).value == ["denied", "denied"]
        assert victim.run("1 + 1").value == 2


def test_a_worker_cannot_read_a_sibling_workers_memory(bwrap):
    with bwrap.session() as victim:
        pid = victim.run("import os\nos.getpid()").value
        code = ("try:\n    open(f'/proc/{pid}/mem', 'rb')\n    out = 'opened'\n"
                "except OSError as exc:\n    out = type(exc).__name__\nout")
        assert bwrap.run(code, {"pid": pid}).value == "PermissionError"


def test_a_worker_keeps_no_capability_from_its_own_user_namespace(bwrap):
    code = ("lines = open('/proc/self/status').read().splitlines()\n"
            "[l.split()[1] for l in lines if l.split(':')[0] in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')]")
    assert bwrap.run(code).value == ["0000000000000000"] * 5


@pytest.mark.parametrize(
    ("code", "error"),
    [
        pytest.param("import os\nos.setsid()", "PermissionError", id="leave-its-process-group"),
        pytest.param("import os\nos.mkdir('/workspaces/x')", "OSError", id="write-the-workspaces-root"),
        pytest.param("import os\nos.setuid(0)", "OSError", id="become-root-in-its-namespace"),
    ],
)
def test_a_worker_cannot_undo_its_isolation(bwrap, code, error):
    from safe_eval.errors import GuestError

    with pytest.raises(GuestError) as info:
        bwrap.run(code)
    assert info.value.type_name == error
