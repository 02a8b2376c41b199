"""Curated ``json``: dumps/loads and JSONDecodeError.

Guards: ``cls=`` is refused (it would instantiate a guest-chosen class with host keyword
arguments); the argument and the options are snapshotted once (``membrane.snapshot``) and the
checks and the C encoder see only that copy; ``indent`` and ``separators`` are capped. Guest
callables given as ``default``/``object_hook``/``parse_*`` run through the interpreter as
usual; what ``default`` returns is snapshotted and sized too.
"""

from __future__ import annotations

import json
from typing import Any

from safe_eval.errors import RecursionLimit
from safe_eval.limits.budget import current_or_default
from safe_eval.limits.indices import as_index
from safe_eval.membrane.modules._util import check_alloc
from safe_eval.membrane.snapshot import snapshot, snapshot_items, snapshot_text

MAX_INDENT = 64
MAX_SEPARATOR = 64
_FLAGS = ("skipkeys", "ensure_ascii", "check_circular", "allow_nan", "sort_keys")


def _layout(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments as plain data, each read once (``indent``/``separators`` are
    repeated once per item, so their size is capped: a huge indent times many items is a
    memory bomb in one C call); only this copy reaches the encoder."""
    out: dict[str, Any] = {}
    for name, value in kwargs.items():
        if name == "cls":
            if value is None:  # CPython's default: the plain encoder
                continue
            raise TypeError("json: the 'cls' argument is not supported in safe-eval")
        if name in _FLAGS:
            out[name] = bool(value)
        elif name == "indent":
            out[name] = _indent(value)
        elif name == "separators":
            out[name] = None if value is None else _separators(value)
        elif name == "default":
            out[name] = value  # wrapped by dumps
        else:
            raise TypeError(f"json.dumps() got an unexpected keyword argument {name!r}")
    return out


def _indent(value: Any) -> int | str | None:
    if value is None:
        return None
    text = snapshot_text(value)
    if text is not None:
        if len(text) > MAX_INDENT:
            raise ValueError(f"json: indent must be at most {MAX_INDENT} characters")
        return text
    size = as_index(value)
    if size > MAX_INDENT:
        raise ValueError(f"json: indent must be at most {MAX_INDENT}")
    return size


def _separators(value: Any) -> tuple[str, str]:
    items = snapshot_items(value)
    if len(items) != 2:  # CPython unpacks the pair
        if len(items) > 2:
            raise ValueError("too many values to unpack (expected 2)")
        raise ValueError(f"not enough values to unpack (expected 2, got {len(items)})")
    texts = [snapshot_text(item) for item in items]
    if texts[0] is None or texts[1] is None:
        raise TypeError("json: separators must be a pair of strings")
    if any(len(t) > MAX_SEPARATOR for t in texts):  # type: ignore[arg-type]
        raise ValueError(f"json: separators must be at most {MAX_SEPARATOR} characters")
    return texts[0], texts[1]


# Parsed JSON takes up to ~24 bytes of objects per input character (``[[],[],...]``).
_LOADS_BYTES_PER_CHAR = 24
_CHECK_EVERY = 1 << 16  # outputs smaller than this skip the memory check


def _size(obj: Any, layout: int, depth: int, memo: dict[int, int], path: set[int], budget: Any) -> int:
    """Upper bound of the characters ``obj`` (a snapshot: exact builtin containers) encodes to
    (one op per distinct node; a shared subtree is sized once and counted every time it
    repeats, as the encoder repeats it)."""
    t = type(obj)
    if t is str:
        return 2 + (len(obj) if obj.isascii() else 6 * len(obj))
    if t is int:
        return 2 + int(obj.bit_length()) // 3
    if t is not list and t is not tuple and t is not dict:
        return 24  # a scalar, or a leaf ``default=`` converts (its result is sized there)
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
    items = list(obj.items()) if t is dict else obj
    total = 2 + per_item * len(items)
    for item in items:
        if t is dict:
            total += _size(item[0], layout, depth + 1, memo, path, budget)
            item = item[1]
        total += _size(item, layout, depth + 1, memo, path, budget)
    path.discard(key)
    memo[key] = total
    return total


class _Output:
    """The running size bound of one ``dumps`` call: the argument's, plus every ``default=``
    result's (each is encoded where its leaf stood, at most as deep as the whole text)."""

    def __init__(self, layout: int) -> None:
        self.layout = layout
        self.total = 0
        self.budget = current_or_default()

    def add(self, obj: Any) -> None:
        self.total += _size(obj, self.layout, 0, {}, set(), self.budget)
        if self.total > _CHECK_EVERY:
            check_alloc(4 * self.total)


def _snapshotting(default: Any, output: _Output) -> Any:
    def convert(obj: Any) -> Any:
        result = snapshot(default(obj))  # guest code; the encoder gets only the copy
        output.add(result)
        return result

    return convert


def dumps(obj: Any, **kwargs: Any) -> str:
    """The C encoder builds the whole text in one uninterruptible call
    (``json.dumps([[0] * 1000] * 60000)``: seconds, 180 MB), so the output is sized first by a
    ticking walk over a snapshot of ``obj``, and the encoder gets that snapshot; deep nesting
    ends as RecursionLimit (the copy, the walk or the encoder recurses)."""
    options = _layout(kwargs)
    indent = options.get("indent")
    layout = len(indent) if type(indent) is str else indent if type(indent) is int else 0
    seps = options.get("separators") or ()
    layout += max((len(x) for x in seps), default=2)
    output = _Output(layout)
    if options.get("default") is not None:
        options["default"] = _snapshotting(options["default"], output)
    try:
        data = snapshot(obj)
        output.add(data)
        return json.dumps(data, **options)
    except RecursionError:
        raise RecursionLimit("data nested too deeply", value=output.budget.max_depth) from None


def loads(s: Any, **kwargs: Any) -> Any:
    if kwargs.get("cls") is not None:  # None is CPython's default: the plain decoder
        raise TypeError("json: the 'cls' argument is not supported in safe-eval")
    kwargs.pop("cls", None)
    text = snapshot(s)  # a str/bytes subclass: its stored data, so len() below is the truth
    if type(text) in (str, bytes, bytearray) and len(text) > _CHECK_EVERY:
        check_alloc(len(text) * _LOADS_BYTES_PER_CHAR)  # the C decoder builds it all in one call
    if "strict" in kwargs:
        kwargs["strict"] = bool(kwargs["strict"])
    return json.loads(text, **kwargs)


def build() -> dict[str, Any]:
    return {"dumps": dumps, "loads": loads, "JSONDecodeError": json.JSONDecodeError}
