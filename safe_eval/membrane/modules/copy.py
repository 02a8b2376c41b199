"""Curated ``copy``: copy, deepcopy and copy.Error (deep copies of guest objects are fine:
they copy data, and guest ``__deepcopy__``/``__copy__`` run through the interpreter)."""

from __future__ import annotations

import copy
from typing import Any

from safe_eval.membrane.modules._util import pick


def build() -> dict[str, Any]:
    return pick(copy, ["copy", "deepcopy", "Error"])
