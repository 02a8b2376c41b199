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


# -- snapshot and rollback: the tree is copied through directory fds, never through a name ---
# A worker process still alive swaps names for symlinks while the host copies (the race a red
# team won: rollback wrote guest bytes to a host path as root, a snapshot copied /etc in). The
# copy itself is what must hold, so it is driven directly here, with the swap already made.
def test_a_rollback_refuses_a_name_the_guest_planted_as_a_symlink_meanwhile(tmp_path, secret):
    from safe_eval.sandbox.workspace import _copy_tree

    snap, live = tmp_path / "snap", tmp_path / "live"
    snap.mkdir()
    live.mkdir()
    (snap / "notes.txt").write_text("guest bytes")
    os.symlink(secret, live / "notes.txt")  # planted after the host emptied the workspace
    with pytest.raises(SandboxError):
        _copy_tree(str(snap), str(live), None)
    with open(secret) as f:
        assert f.read() == "host secret"


def test_a_snapshot_copies_a_symlinked_directory_as_a_link_never_its_contents(tmp_path, secret):
    from safe_eval.sandbox.workspace import _copy_tree

    live, snap = tmp_path / "live", tmp_path / "snap"
    live.mkdir()
    snap.mkdir()
    os.symlink(os.path.dirname(secret), live / "d")  # a directory swapped for a link to a host dir
    _copy_tree(str(live), str(snap), None)
    assert os.path.islink(snap / "d") and os.listdir(snap) == ["d"]

