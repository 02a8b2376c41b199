"""Curated ``base64``: encoders and decoders (output is a constant factor of the input)."""

from __future__ import annotations

import base64
from typing import Any

from safe_eval.membrane.modules._util import check_alloc, pick
from safe_eval.membrane.snapshot import snapshot


def _sized(fn: Any, factor: int) -> Any:
    """The output is at most ``factor`` times the input: checked before the one C call."""

    def call(data: Any, *args: Any, **kwargs: Any) -> Any:
        data = snapshot(data)  # a str/bytes subclass as its stored data: its __len__ never answers
        if type(data) in (str, bytes, bytearray) and len(data) > 1 << 16:
            check_alloc(factor * len(data))
        return fn(data, *args, **kwargs)

    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def build() -> dict[str, Any]:
    attrs = pick(base64, ["b64encode", "b64decode", "standard_b64encode", "standard_b64decode",
                         "urlsafe_b64encode", "urlsafe_b64decode", "b32encode", "b32decode",
                         "b32hexencode", "b32hexdecode", "b16encode", "b16decode", "b85encode",
                         "b85decode", "a85encode", "a85decode", "encodebytes", "decodebytes"])
    # encoders grow the data (b16: x2, b64: x4/3 plus newlines), decoders shrink it
    return {name: _sized(fn, 2 if "encode" in name else 1) for name, fn in attrs.items()}
