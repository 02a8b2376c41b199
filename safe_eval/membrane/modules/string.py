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

from safe_eval.membrane.modules._util import check_alloc, pick
from safe_eval.membrane.snapshot import snapshot, snapshot_text

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


def _substitute(name: str) -> Any:
    """``Template.substitute``: one value per ``$`` placeholder, joined in one C call at the
    end (``Template('$a' * 10**6).substitute(a='x' * 1000)`` is a gigabyte): sized first."""
    method = getattr(string.Template, name)

    def call(self: string.Template, mapping: Any = None, /, **kws: Any) -> str:
        # one plain dict of plain values (keywords win, as in ChainMap(kws, mapping)), sized
        # on the stored text of each value, and only that dict reaches the method
        if mapping is not None and not issubclass(type(mapping), dict):
            raise TypeError(f"Template.{name}() takes a dict in safe-eval")
        values: dict[Any, Any] = {} if mapping is None else snapshot(mapping)
        values.update(snapshot(kws))
        longest = max((len(v) for v in values.values() if type(v) is str), default=0)
        template = snapshot_text(self.template)
        slots = template.count("$") if template is not None else 0
        if slots * longest > 1 << 16:
            check_alloc(4 * (len(template or "") + slots * longest))
        result: str = method(self, values)
        return result

    call.__name__ = call.__qualname__ = name
    return call


# What the guest may read on a Template (deny by default). Not ``pattern``: a raw host
# ``re.Pattern`` whose methods would run unguarded.
TEMPLATE_NAMES = ("delimiter", "idpattern", "braceidpattern", "flags", "substitute",
                  "safe_substitute", "is_valid", "get_identifiers")


def build() -> dict[str, Any]:
    from safe_eval.membrane.modules._hosttypes import allow

    allow(string.Template, [n for n in TEMPLATE_NAMES if hasattr(string.Template, n)])
    from safe_eval.membrane.attributes import register_guarded_methods

    register_guarded_methods(string.Template, {"substitute": _substitute("substitute"),
                                               "safe_substitute": _substitute("safe_substitute")})
    attrs = pick(string, CONSTANTS)
    attrs.update(capwords=capwords, Formatter=Formatter, Template=string.Template)
    return attrs
