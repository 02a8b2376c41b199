"""Curated ``textwrap``: wrap/fill/shorten/dedent/indent. ``indent`` repeats the prefix once
per line, so the result size is checked before the call."""

from __future__ import annotations

import textwrap
from typing import Any

from safe_eval.membrane.modules._util import check_alloc, pick


def indent(text: str, prefix: str, predicate: Any = None) -> str:
    if isinstance(text, str) and isinstance(prefix, str):
        check_alloc(len(text) + len(prefix) * (text.count("\n") + 1))
    return textwrap.indent(text, prefix, predicate)


def build() -> dict[str, Any]:
    attrs = pick(textwrap, ["wrap", "fill", "shorten", "dedent"])
    attrs["indent"] = indent
    return attrs
