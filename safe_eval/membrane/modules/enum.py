"""Curated ``enum``: the enum base classes (registered as subclassable) and helpers.

A guest ``class Color(Enum)`` is built by the host ``EnumType`` from a body the interpreter
ran; guest methods in the body stay guest functions. The functional API
(``Enum('Color', 'RED GREEN')``) builds the class from names only, without exec.
"""

from __future__ import annotations

import enum
from typing import Any

from safe_eval.membrane.modules._util import pick

NAMES = ["Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "auto", "unique", "EnumMeta", "EnumType",
         "ReprEnum", "verify", "UNIQUE", "CONTINUOUS", "NAMED_FLAGS", "member", "nonmember"]


def build() -> dict[str, Any]:
    return pick(enum, [n for n in NAMES if hasattr(enum, n)])
