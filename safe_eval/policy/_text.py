"""Literals of the policy DSL: reading them from tokens and writing them back.

Strings are Python string literals (``"a"``, ``'a'``, ``r"\\d+"``), decoded with
``ast.literal_eval`` (a literal parser, never an evaluator). An escape Python does not know
(``"\\d"``) is an error rather than a silent backslash: a regex belongs in a raw string.
"""

from __future__ import annotations

import ast
import math
from typing import Any

__all__ = ["Literal", "decode_number", "decode_string", "quote", "render_literal", "render_number"]

# The values a policy may compare arguments with.
Literal = str | int | float | bool | None


def decode_string(token: str) -> str:
    """The value of a STRING token; ``ValueError`` (with advice) for a bad escape."""
    bad = _bad_escape(token)
    try:
        if bad is not None:
            raise ValueError(f"invalid {'octal ' if len(bad) > 2 else ''}escape sequence '{bad}'")
        value = ast.literal_eval(token)
    except (SyntaxError, ValueError) as exc:
        raise ValueError(
            f"invalid string {token}: {getattr(exc, 'msg', exc)}; "
            f'write regular expressions as raw strings, e.g. r"\\d+"'
        ) from None
    if not isinstance(value, str):  # pragma: no cover - the grammar only lets strings through
        raise ValueError(f"expected a string, got {token}")
    return value


# what may follow a backslash in a str literal (an octal escape is at most \377)
_ESCAPES = frozenset("\n\\'\"abfnrtvxNuU01234567")


def _bad_escape(token: str) -> str | None:
    """The first escape CPython would warn about in a non-raw string token (an unknown one:
    ``"\\d"``; an octal one past ``\\377``), else None. Found by reading the token, not
    by turning the warning into an error: the warning filters are one list for the whole
    process, shared with every thread and run."""
    quote_at = next((i for i, ch in enumerate(token) if ch in "'\""), 0)
    if "r" in token[:quote_at].lower():
        return None
    i, n = quote_at, len(token)
    while True:
        i = token.find("\\", i)
        if i < 0 or i + 1 >= n:
            return None
        c = token[i + 1]
        if c not in _ESCAPES:
            return token[i:i + 2]
        if c in "01234567":
            j = i + 1
            while j < n and j < i + 4 and token[j] in "01234567":
                j += 1
            if int(token[i + 1:j], 8) > 0o377:
                return token[i:j]
        i += 2


def decode_number(text: str, negative: bool = False) -> int | float:
    """The value of a NUMBER token (``10_000``, ``2.5``, ``1e3``)."""
    clean = text.replace("_", "")
    value: int | float = float(clean) if any(c in clean for c in ".eE") else int(clean)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"number {text} is out of range")
    return -value if negative else value


def quote(text: str) -> str:
    """A STRING token for ``text``: plain double quotes when nothing needs escaping, a raw
    string for regexes with backslashes, ``repr`` otherwise."""
    printable = text.isprintable()
    if printable and '"' not in text and "\\" not in text:
        return f'"{text}"'
    if printable and '"' not in text and not text.endswith("\\"):
        return f'r"{text}"'
    return repr(text)


def render_number(value: int | float) -> str:
    """A number as the DSL writes it (``-3``, ``2.5``)."""
    return repr(value) if isinstance(value, float) else str(value)


def render_literal(value: Any) -> str:
    """A literal as the DSL writes it."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int | float):
        return render_number(value)
    raise TypeError(f"not a policy literal: {value!r}")
