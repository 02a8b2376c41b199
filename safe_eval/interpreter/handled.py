"""The exception a suspended body is handling is parked on its frame, not in its greenlet.

A ``yield``/``await`` in an ``except`` block, or in a ``finally`` block run for an exception,
suspends the body's greenlet while the thread's exception state names the exception being
handled (CPython sets it for the host ``except``/``finally`` clause the handler runs in).
greenlet saves that state with the suspended greenlet, which the cyclic collector does not see
into (see ``suspension``): an exception leading back to the run (``raise ValueError(self)``)
kept the run's namespace resident after the host dropped everything. So the switch out of a
body takes the handled exception off the thread state onto the body's frame tail, which
``Resumable._park`` moves onto the generator object, and the resume puts it back
(``generators._switch_handling``): inside the handler, bare ``raise``, implicit ``__context__``
and a thrown-in exception's context see it as in CPython. The interpreter's own host frames
hold no reference to it across the switch (``compile_stmt``'s ``try_except_parked``,
``try_finally_parked``, ``with_parked``); a handler entered while another exception is handled,
and an ``except*`` clause, run outside any host ``except`` clause, their exception made the
handled one here (``compile_stmt._try_except_nested``, ``_try_star_parked``): a clause keeps
the exception handled before it on its frame's value stack, where no switch can take it from.

Python cannot set the thread's handled exception; the C API can (``PyErr_SetHandledException``
on 3.11+, ``PyErr_SetExcInfo`` on 3.10), through ``ctypes.pythonapi`` (the GIL is held).
ctypes is loaded at the first suspension inside a handler.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

__all__ = ["handled", "raise_as_is", "set_handled"]

handled: Callable[[], BaseException | None]
if sys.version_info >= (3, 11):
    handled = sys.exception
else:
    def handled() -> BaseException | None:
        return sys.exc_info()[1]

_setter: Callable[[BaseException | None], None] | None = None


def _unchained() -> Any:
    yield


def raise_as_is(e: BaseException) -> None:
    """Raise ``e`` leaving its ``__context__`` as it is (a ``raise`` statement would chain it to
    the exception handled now): thrown into a generator never started, which handles none."""
    _unchained().throw(e)


def set_handled(e: BaseException | None) -> None:
    """Make ``e`` the exception the running code is handling (None: none)."""
    global _setter
    if _setter is None:
        _setter = _make_setter()
    _setter(e)


def _make_setter() -> Callable[[BaseException | None], None]:
    import ctypes

    if sys.version_info >= (3, 11):
        fn: Any = ctypes.pythonapi.PyErr_SetHandledException  # takes a new reference itself
        fn.argtypes = (ctypes.py_object,)
        fn.restype = None
        return fn  # type: ignore[no-any-return]
    # 3.10: PyErr_SetExcInfo steals a reference to each of (type, value, traceback)
    set_info: Any = ctypes.pythonapi.PyErr_SetExcInfo
    set_info.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    set_info.restype = None
    incref: Any = ctypes.pythonapi.Py_IncRef
    incref.argtypes = (ctypes.py_object,)
    incref.restype = None

    def set_exc_info(e: BaseException | None) -> None:
        if e is None:
            set_info(None, None, None)
            return
        parts = (type(e), e, e.__traceback__)
        for p in parts:
            if p is not None:
                incref(p)
        set_info(*[None if p is None else id(p) for p in parts])
    return set_exc_info
