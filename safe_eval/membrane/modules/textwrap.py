"""Curated ``textwrap``: wrap/fill/shorten/dedent/indent. ``indent`` repeats the prefix once
per line, so the result size is checked before the call."""

from __future__ import annotations

import textwrap
from typing import Any

from safe_eval.membrane.modules._util import charge, check_alloc
from safe_eval.membrane.snapshot import snapshot_text


def _text(value: Any) -> Any:
    # a str subclass as its stored text: the size checked is the text used (its own
    # __len__/count/splitlines never answer); anything else fails in textwrap as it would
    text = snapshot_text(value)
    return value if text is None else text


def indent(text: str, prefix: str, predicate: Any = None) -> str:
    text, prefix = _text(text), _text(prefix)
    if type(text) is str and type(prefix) is str:
        check_alloc(len(text) + len(prefix) * (text.count("\n") + 1))
    return textwrap.indent(text, prefix, predicate)


def _charged(fn: Any) -> Any:
    """wrap/fill/shorten/dedent split the whole text with one C regex call into a list of
    chunks (~50 bytes each): charged one op per character, size checked before the call."""

    def call(text: Any, *args: Any, **kwargs: Any) -> Any:
        text = _text(text)
        if type(text) is str and len(text) > 1 << 12:
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
