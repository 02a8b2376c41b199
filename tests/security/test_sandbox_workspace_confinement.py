"""Invariant: the host never reads or writes outside a session's workspace on the guest's
behalf. Plain-CPython guest code in the sandbox plants symlinks to host files in its workspace
and waits for the host to follow them with ``get``/``put``."""

from __future__ import annotations

import os

import pytest

from safe_eval.errors import SandboxError
from safe_eval.sandbox import make_backend
from safe_eval.sandbox.bwrap import BwrapBackend

pytestmark = pytest.mark.skipif(BwrapBackend.unavailable() is not None, reason=str(BwrapBackend.unavailable()))


@pytest.fixture(scope="module")
def guest():
    with make_backend("bwrap+cpython", cpython_imports={"os"}) as backend:
        yield backend


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text("host secret")
    return str(path)


PLANTS = [
    pytest.param("os.symlink({target!r}, 'leak')", "leak", id="file-symlink"),
    pytest.param("os.symlink({target_dir!r}, 'd')", "d/secret.txt", id="directory-symlink"),
    pytest.param("os.mkdir('sub')\nos.symlink({target!r}, 'sub/leak')", "sub/leak", id="nested-symlink"),
]


@pytest.mark.parametrize(("plant", "path"), PLANTS)
def test_get_does_not_follow_a_symlink_the_guest_planted(guest, secret, plant, path):
    code = "import os\n" + plant.format(target=secret, target_dir=os.path.dirname(secret))
    with guest.session() as s:
        s.run(code)
        with pytest.raises(SandboxError):
            s.get(path)


@pytest.mark.parametrize(("plant", "path"), PLANTS)
def test_put_does_not_write_through_a_symlink_the_guest_planted(guest, secret, plant, path):
    code = "import os\n" + plant.format(target=secret, target_dir=os.path.dirname(secret))
    with guest.session() as s:
        s.run(code)
        with pytest.raises(SandboxError):
            s.put(path, "overwritten by the guest")
    with open(secret) as f:
        assert f.read() == "host secret"


def test_rollback_does_not_follow_a_symlink_the_guest_planted(guest, secret):
    with guest.session() as s:
        s.put("keep.txt", "kept")
        s.run(f"import os\nos.symlink({os.path.dirname(secret)!r}, 'd')")
        s.rollback()
        assert s.files() == ["keep.txt"]
    with open(secret) as f:
        assert f.read() == "host secret"
