"""Curated ``string``: constants, capwords, Template and a safe ``Formatter``.

``string.Formatter`` resolves ``{0.attr[key]}`` with raw ``getattr``: the classic escape
(``'{0.__globals__[...]}'``, RestrictedPython CVE-2023-41039). ``SafeFormatter`` resolves every
attribute step through the membrane's ``get_attr`` (so ``_`` names and host internals are
refused exactly as in guest code) and formats values through the membrane's ``format_value``.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any

from safe_eval.membrane.modules._util import pick

CONSTANTS = ["ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits",
             "octdigits", "punctuation", "printable", "whitespace"]


class Formatter(string.Formatter):
    """``string.Formatter`` whose field lookups go through the membrane."""

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        from safe_eval.membrane import get_attr

        first, rest = _formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            if is_attr:
                if not isinstance(key, str) or key.startswith("_"):
                    raise AttributeError(f"format field attribute '{key}' is not allowed")
                obj = get_attr(obj, key)
            else:
                obj = obj[key]
        return obj, first

    def format_field(self, value: Any, format_spec: str) -> Any:
        from safe_eval.membrane import format_value

        return format_value(value, format_spec)


def _formatter_field_name_split(field_name: str) -> tuple[Any, Any]:
    # the C helper string.Formatter itself uses; it only parses text
    import _string

    return _string.formatter_field_name_split(field_name)  # type: ignore[no-any-return,unused-ignore]


def capwords(s: str, sep: str | None = None) -> str:
    return string.capwords(s, sep)


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow_all

    # ``Template.pattern`` is a raw host re.Pattern (its methods would run unguarded)
    allow_all([string.Template], refused=["pattern"])
    attrs = pick(string, CONSTANTS)
    attrs.update(capwords=capwords, Formatter=Formatter, Template=string.Template)
    return attrs
