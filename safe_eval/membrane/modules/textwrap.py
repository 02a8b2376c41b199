"""Curated ``textwrap``: wrap/fill/shorten/dedent/indent. ``indent`` repeats the prefix once
per line, so the result size is checked before the call."""

from __future__ import annotations

import textwrap
from typing import Any

from safe_eval.membrane.modules._util import charge, check_alloc


def indent(text: str, prefix: str, predicate: Any = None) -> str:
    if isinstance(text, str) and isinstance(prefix, str):
        check_alloc(len(text) + len(prefix) * (text.count("\n") + 1))
    return textwrap.indent(text, prefix, predicate)


def _charged(fn: Any) -> Any:
    """wrap/fill/shorten/dedent split the whole text with one C regex call into a list of
    chunks (~50 bytes each): charged one op per character, size checked before the call."""

    def call(text: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(text, str) and len(text) > 1 << 12:
            charge(len(text))
            check_alloc(16 * len(text))
        return fn(text, *args, **kwargs)

    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def build() -> dict[str, Any]:
    attrs = {name: _charged(getattr(textwrap, name)) for name in ["wrap", "fill", "shorten", "dedent"]}
    attrs["indent"] = indent
    return attrs
