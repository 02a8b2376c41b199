"""Curated ``copy``: copy, deepcopy and copy.Error (deep copies of guest objects are fine:
they copy data, and guest ``__deepcopy__``/``__copy__`` run through the interpreter).

``deepcopy``'s memo is the one thing guest code must not hold as a plain dict: while copying
a wrapper (a proxy, a tool, a curated ``re.Pattern``...) ``copy`` stores the wrapper's private
slot state in it (the raw host object, the unguarded compiled regex), so a guest
``__deepcopy__(self, memo)`` or ``copy.deepcopy(x, my_dict)`` could read them back. The memo
is therefore an opaque ``_Memo``: it answers ``copy``'s own ``get``/``[]=`` (guest code sees
no attribute and its ``[]`` always fails), and a guest-supplied memo other than one it was
handed is refused.
"""

from __future__ import annotations

import copy
from typing import Any

from safe_eval.membrane.modules._util import pick

__all__ = ["build", "deepcopy"]


class _Memo:
    """``deepcopy``'s memo as guest code sees it: opaque (an unknown host type to the membrane,
    no iteration, ``[]`` always raises ``KeyError``), so what it holds never reaches the guest.
    ``copy`` itself only needs ``get`` and ``[]=``: its ``memo[id(x)]`` reads are cache probes
    (a miss just copies again) and its keep-alive list (``memo[id(memo)]``) is kept apart."""

    __slots__ = ("_seen", "_alive")

    def __init__(self) -> None:
        self._seen: dict[int, Any] = {}
        self._alive: list[Any] = []  # copy's keep-alive: originals must outlive the copy

    def get(self, key: int, default: Any = None) -> Any:
        return self._seen.get(key, default)

    def __getitem__(self, key: int) -> Any:
        raise KeyError(key)

    def __setitem__(self, key: int, value: Any) -> None:
        if key == id(self):
            self._alive.extend(value)
        else:
            self._seen[key] = value

    def __repr__(self) -> str:
        return "<deepcopy memo>"

    def __safe_eval_getattr__(self, name: str) -> Any:
        # guest code may only pass the memo on to copy.deepcopy: no .get() probing by id
        raise AttributeError(f"the deepcopy memo has no attribute {name!r} in safe-eval")


def deepcopy(x: Any, memo: Any = None) -> Any:
    """``copy.deepcopy`` with an opaque memo (see the module docstring)."""
    if memo is None:
        memo = _Memo()
    elif not isinstance(memo, _Memo):
        raise TypeError("copy.deepcopy(): in safe-eval the memo argument can only be the memo "
                        "a __deepcopy__ method received")
    return copy.deepcopy(x, memo)


def build() -> dict[str, Any]:
    return {**pick(copy, ["copy", "Error"]), "deepcopy": deepcopy}
