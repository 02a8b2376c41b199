"""Curated ``json``: dumps/loads and JSONDecodeError.

Guards: ``cls=`` is refused (it would instantiate a guest-chosen class with host keyword
arguments); ``indent`` and ``separators`` are repeated once per item, so their size is capped
(a huge indent times many items is a memory bomb in one C call). Guest callables given as
``default``/``object_hook``/``parse_*`` run through the interpreter as usual.
"""

from __future__ import annotations

import json
from typing import Any

from safe_eval.errors import RecursionLimit
from safe_eval.limits.budget import current_or_default
from safe_eval.limits.indices import as_index
from safe_eval.membrane.modules._util import check_alloc

MAX_INDENT = 64
MAX_SEPARATOR = 64


def _check_layout(kwargs: dict[str, Any]) -> None:
    if "cls" in kwargs:
        raise TypeError("json: the 'cls' argument is not supported in safe-eval")
    indent = kwargs.get("indent")
    if indent is not None and not isinstance(indent, str):
        # the encoder builds ``' ' * indent``: read once, checked, and only that value used
        indent = kwargs["indent"] = as_index(indent)
    if isinstance(indent, int) and not isinstance(indent, bool) and indent > MAX_INDENT:
        raise ValueError(f"json: indent must be at most {MAX_INDENT}")
    if isinstance(indent, str) and len(indent) > MAX_INDENT:
        raise ValueError(f"json: indent must be at most {MAX_INDENT} characters")
    seps = kwargs.get("separators")
    if seps is not None and any(isinstance(s, str) and len(s) > MAX_SEPARATOR for s in seps):
        raise ValueError(f"json: separators must be at most {MAX_SEPARATOR} characters")


# Parsed JSON takes up to ~24 bytes of objects per input character (``[[],[],...]``).
_LOADS_BYTES_PER_CHAR = 24
_CHECK_EVERY = 1 << 16  # outputs smaller than this skip the memory check


def _size(obj: Any, layout: int, depth: int, memo: dict[int, int], path: set[int], budget: Any) -> int:
    """Upper bound of the characters ``obj`` encodes to (one op per distinct node; a shared
    subtree is sized once and counted every time it repeats, as the encoder repeats it)."""
    t = type(obj)
    if t is str:
        return 2 + (len(obj) if obj.isascii() else 6 * len(obj))
    if t is int:
        return 2 + int(obj.bit_length()) // 3
    if obj is None or t is bool or t is float:
        return 24
    if not isinstance(obj, list | tuple | dict):
        return 24  # ``default=`` turns it into something else: guest code, metered as usual
    key = id(obj)
    known = memo.get(key)
    if known is not None:
        return known
    if key in path:
        return 0  # a cycle: the encoder raises ValueError itself
    budget.fuel -= 1
    if budget.fuel < 0:
        budget.refuel()
    path.add(key)
    per_item = 2 + layout * (depth + 1)
    items = list(obj.items()) if isinstance(obj, dict) else list(obj)
    total = 2 + per_item * len(items)
    for item in items:
        if isinstance(obj, dict):
            total += _size(item[0], layout, depth + 1, memo, path, budget)
            item = item[1]
        total += _size(item, layout, depth + 1, memo, path, budget)
    path.discard(key)
    memo[key] = total
    return total


def dumps(obj: Any, **kwargs: Any) -> str:
    """The C encoder builds the whole text in one uninterruptible call
    (``json.dumps([[0] * 1000] * 60000)``: seconds, 180 MB), so the output is sized first by a
    ticking walk; deep nesting ends as RecursionLimit (the walk or the encoder recurses)."""
    _check_layout(kwargs)
    indent = kwargs.get("indent")
    layout = len(indent) if isinstance(indent, str) else indent if isinstance(indent, int) else 0
    seps = kwargs.get("separators") or ()
    layout += max((len(x) for x in seps if isinstance(x, str)), default=2)
    budget = current_or_default()
    try:
        size = _size(obj, layout, 0, {}, set(), budget)
        if size > _CHECK_EVERY:
            check_alloc(4 * size)
        return json.dumps(obj, **kwargs)
    except RecursionError:
        raise RecursionLimit("data nested too deeply", value=budget.max_depth) from None


def loads(s: Any, **kwargs: Any) -> Any:
    if "cls" in kwargs:
        raise TypeError("json: the 'cls' argument is not supported in safe-eval")
    if isinstance(s, str | bytes | bytearray) and len(s) > _CHECK_EVERY:
        check_alloc(len(s) * _LOADS_BYTES_PER_CHAR)  # the C decoder builds it all in one call
    return json.loads(s, **kwargs)


def build() -> dict[str, Any]:
    return {"dumps": dumps, "loads": loads, "JSONDecodeError": json.JSONDecodeError}
