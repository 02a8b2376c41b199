"""Curated ``json``: dumps/loads and JSONDecodeError.

Guards: ``cls=`` is refused (it would instantiate a guest-chosen class with host keyword
arguments); ``indent`` and ``separators`` are repeated once per item, so their size is capped
(a huge indent times many items is a memory bomb in one C call). Guest callables given as
``default``/``object_hook``/``parse_*`` run through the interpreter as usual.
"""

from __future__ import annotations

import json
from typing import Any

from safe_eval.limits.iteration import TickingIterator
from safe_eval.membrane.modules._util import check_alloc

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


# Parsed JSON takes up to ~24 bytes of objects per input character (``[[],[],...]``).
_LOADS_BYTES_PER_CHAR = 24
_CHECK_EVERY = 1 << 16  # output characters between two size checks while encoding


def dumps(obj: Any, **kwargs: Any) -> str:
    """The pure-Python encoder, chunk by chunk: the C one-shot encoder builds the whole text in
    one uninterruptible call (``json.dumps([[0] * 1000] * 60000)``: seconds, 180 MB); here
    every chunk ticks and the growing size is checked against the memory limit."""
    _check_layout(kwargs)
    skipkeys = kwargs.pop("skipkeys", False)
    ensure_ascii = kwargs.pop("ensure_ascii", True)
    check_circular = kwargs.pop("check_circular", True)
    allow_nan = kwargs.pop("allow_nan", True)
    encoder = json.JSONEncoder(skipkeys=skipkeys, ensure_ascii=ensure_ascii,
                               check_circular=check_circular, allow_nan=allow_nan, **kwargs)
    parts: list[str] = []
    size = checked = 0
    for chunk in TickingIterator(encoder.iterencode(obj, _one_shot=False)):
        parts.append(chunk)
        size += len(chunk)
        if size - checked > _CHECK_EVERY:
            check_alloc(4 * size)
            checked = size
    return "".join(parts)


def loads(s: Any, **kwargs: Any) -> Any:
    if "cls" in kwargs:
        raise TypeError("json: the 'cls' argument is not supported in safe-eval")
    if isinstance(s, str | bytes | bytearray) and len(s) > _CHECK_EVERY:
        check_alloc(len(s) * _LOADS_BYTES_PER_CHAR)  # the C decoder builds it all in one call
    return json.loads(s, **kwargs)


def build() -> dict[str, Any]:
    return {"dumps": dumps, "loads": loads, "JSONDecodeError": json.JSONDecodeError}
