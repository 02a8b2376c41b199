"""Escalation: run the checked program in an OS sandbox (another process, bubblewrap, a container).

    with safe_eval.sandbox("bwrap"):            # a handler: every evaluation in the block
        safe_eval.safe_eval("x + 1", {"x": 41})
    safe_eval.safe_eval(code, env, sandbox="subprocess")      # an argument
    SAFE_EVAL_SANDBOX=bwrap python app.py                     # the environment
    policy line ``sandbox bwrap``                              # a minimum nothing lowers

    with make_backend("bwrap") as backend, backend.session() as s:   # sessions and files
        s.put("in.txt", "data"); s.run("x = 1"); s.run("x + 1"); s.get("out.txt"); s.rollback()

See ``base.py`` (the Backend protocol and pool), ``session.py``, ``worker.py`` (inside the
sandbox), ``protocol.py``/``codec.py`` (the wire), ``subprocess.py``/``bwrap.py``/
``container.py`` (the backends), ``doctor.py`` (what works here).
"""

from __future__ import annotations

import sys
import types
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from safe_eval.sandbox.selection import get_backend, make_backend, reload_environment, sandbox, shutdown

if TYPE_CHECKING:
    from safe_eval.sandbox.base import Backend
    from safe_eval.sandbox.session import Session

__all__ = ["Backend", "Session", "get_backend", "make_backend", "reload_environment", "sandbox", "shutdown"]


class _CallableModule(types.ModuleType):
    """This package, callable: ``safe_eval.sandbox("bwrap")`` is the handler ``sandbox(...)``,
    while ``safe_eval.sandbox.Session`` and ``import safe_eval.sandbox.session`` keep working."""

    def __call__(self, name: str) -> AbstractContextManager[None]:
        return sandbox(name)


sys.modules[__name__].__class__ = _CallableModule


def __getattr__(name: str) -> Any:
    # ``import safe_eval`` imports this package for the ``sandbox`` handler: the backends,
    # the wire and the process code load only when a sandbox is first used
    if name == "Backend":
        from safe_eval.sandbox.base import Backend

        return Backend
    if name == "Session":
        from safe_eval.sandbox.session import Session

        return Session
    raise AttributeError(f"module 'safe_eval.sandbox' has no attribute {name!r}")
