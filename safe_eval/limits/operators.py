"""Guarded binary operators (PLACEHOLDER: the limits issue fills these in with size estimates).

guarded_binop(op_type, inplace) -> a two-argument function that estimates the size of the
result before computing it (raising MemoryLimit), or None when the plain ``operator`` function
is safe for that operator.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any


def guarded_binop(op_type: type[ast.operator], inplace: bool = False) -> Callable[[Any, Any], Any] | None:
    return None
