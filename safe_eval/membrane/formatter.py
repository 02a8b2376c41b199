"""``str.format`` / ``str.format_map`` for guest code.

CPython's formatter resolves ``{0.attr}`` and ``{0[key]}`` with raw ``getattr`` and
``__getitem__``: ``'{0.__globals__[os]}'.format(f)`` walks into host modules. This formatter
resolves every field itself:

- a name starting with ``_`` (attribute or index key) is refused outright;
- ``.attr`` goes through the membrane's ``get_attr`` on guest-made objects and plain data only;
- ``[key]`` indexes plain containers (dict, list, tuple, str) and guest-made objects only;
- each value is rendered with ``format_value`` (width limits, no guest ``__format__``).
"""

from __future__ import annotations

import _string  # the C helpers behind string.Formatter: parsing only, no attribute access
import string
from collections.abc import Mapping, Sequence
from typing import Any

from safe_eval.interpreter.identity import is_guest_object

__all__ = ["SafeFormatter", "safe_format", "safe_format_map"]

_INDEXABLE = (dict, list, tuple, str)
_PLAIN_ATTR_TYPES = (int, float, complex, str, bytes, bool)


def _guest_made(obj: object) -> bool:
    return is_guest_object(obj)


class SafeFormatter(string.Formatter):
    """A ``string.Formatter`` whose field lookups obey the membrane."""

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[Any, Any]:
        first, rest = _string.formatter_field_name_split(field_name)
        if isinstance(first, str) and first.startswith("_"):
            raise ValueError(f"format field '{first}' is not allowed in safe-eval ('_' names are refused)")
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            obj = _attribute(obj, key) if is_attr else _index(obj, key)
        return obj, first

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        # ``{x!r}``/``{x!a}``/``{x!s}`` are priced like the builtins (escaping grows text)
        from safe_eval.limits.guards import g_ascii, g_repr, g_text

        if conversion is None:
            return value
        conv = {"r": g_repr, "a": g_ascii, "s": g_text}.get(conversion)
        if conv is None:
            raise ValueError(f"Unknown conversion specifier {conversion}")
        return conv(value)

    def format_field(self, value: Any, format_spec: str) -> str:
        from safe_eval.membrane.crossing import format_value

        return format_value(value, format_spec)


def _attribute(obj: Any, name: str) -> Any:
    if name.startswith("_"):
        raise ValueError(
            f"format field attribute '{name}' is not allowed in safe-eval ('_' names are refused)"
        )
    if not (_guest_made(obj) or isinstance(obj, _PLAIN_ATTR_TYPES)):
        raise ValueError(
            f"format fields may not read attributes of host objects ('{type(obj).__name__}.{name}')"
        )
    from safe_eval.membrane.attributes import get_attr

    return get_attr(obj, name)


def _index(obj: Any, key: Any) -> Any:
    if isinstance(key, str) and key.startswith("_"):
        raise ValueError(f"format field key '{key}' is not allowed in safe-eval ('_' names are refused)")
    if not (type(obj) in _INDEXABLE or _guest_made(obj)):
        raise ValueError(f"format fields may not index host objects ('{type(obj).__name__}')")
    return obj[key]


_FORMATTER = SafeFormatter()


def safe_format(text: str, /, *args: Any, **kwargs: Any) -> str:
    """``text.format(*args, **kwargs)`` under the membrane's rules."""
    return _FORMATTER.vformat(text, args, kwargs)


def safe_format_map(text: str, mapping: Mapping[str, Any], /) -> str:
    """``text.format_map(mapping)`` under the membrane's rules."""
    return _FORMATTER.vformat(text, (), mapping)
