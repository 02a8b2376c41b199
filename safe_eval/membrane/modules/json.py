"""Curated ``json``: dumps/loads and JSONDecodeError.

Guards: ``cls=`` is refused (it would instantiate a guest-chosen class with host keyword
arguments); ``indent`` and ``separators`` are repeated once per item, so their size is capped
(a huge indent times many items is a memory bomb in one C call). Guest callables given as
``default``/``object_hook``/``parse_*`` run through the interpreter as usual.
"""

from __future__ import annotations

import json
from typing import Any

MAX_INDENT = 64
MAX_SEPARATOR = 64


def _check_layout(kwargs: dict[str, Any]) -> None:
    if "cls" in kwargs:
        raise TypeError("json: the 'cls' argument is not supported in safe-eval")
    indent = kwargs.get("indent")
    if isinstance(indent, int) and not isinstance(indent, bool) and indent > MAX_INDENT:
        raise ValueError(f"json: indent must be at most {MAX_INDENT}")
    if isinstance(indent, str) and len(indent) > MAX_INDENT:
        raise ValueError(f"json: indent must be at most {MAX_INDENT} characters")
    seps = kwargs.get("separators")
    if seps is not None and any(isinstance(s, str) and len(s) > MAX_SEPARATOR for s in seps):
        raise ValueError(f"json: separators must be at most {MAX_SEPARATOR} characters")


def dumps(obj: Any, **kwargs: Any) -> str:
    _check_layout(kwargs)
    return json.dumps(obj, **kwargs)


def loads(s: Any, **kwargs: Any) -> Any:
    if "cls" in kwargs:
        raise TypeError("json: the 'cls' argument is not supported in safe-eval")
    return json.loads(s, **kwargs)


def build() -> dict[str, Any]:
    return {"dumps": dumps, "loads": loads, "JSONDecodeError": json.JSONDecodeError}
