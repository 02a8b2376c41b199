"""Invariant: a worker's ``/tmp`` is bounded (``lockdown.TMP_BYTES``): it is a tmpfs, host
memory outside the worker's address-space limit, so an unbounded one would let the guest fill
the host's memory with files.

Written as the attacker would: plain CPython guest code (``bwrap+cpython`` with ``os``) filling
``/tmp`` with files each under the per-file size limit.
"""

from __future__ import annotations

import pytest

from safe_eval.sandbox import make_backend
from safe_eval.sandbox.bwrap import BwrapBackend
from safe_eval.sandbox.lockdown import TMP_BYTES

pytestmark = pytest.mark.skipif(BwrapBackend.unavailable() is not None, reason=f"bwrap: {BwrapBackend.unavailable()}")


@pytest.fixture(scope="module", params=[True, False], ids=["zygote-worker", "cold-worker"])
def bwrap(request):
    with make_backend("bwrap+cpython", cpython_imports={"os"}, zygote=request.param) as backend:
        yield backend


def test_tmp_reports_a_bounded_size(bwrap):
    size = bwrap.run("import os\nst = os.statvfs('/tmp')\nst.f_blocks * st.f_frsize").value
    assert 0 < size <= TMP_BYTES


def test_filling_tmp_stops_at_its_bound(bwrap):
    code = ("import os\nchunk = b'x' * (8 << 20)\nwritten = 0\nerror = None\n"
            "for i in range(40):\n    try:\n        with open(f'/tmp/fill{i}', 'wb') as f:\n"
            "            f.write(chunk)\n        written += len(chunk)\n"
            "    except OSError as exc:\n        error = exc.errno\n        break\n[written, error]")
    written, error = bwrap.run(code, limits={"time": 20}).value
    assert error == 28  # ENOSPC
    assert written <= TMP_BYTES
