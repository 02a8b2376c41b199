"""The policy grammar, loaded once.

Why lark: the DSL needs a real grammar (one readable file, ``policy.lark``) and error
positions a person or a model can act on. lark's LALR parser with its contextual lexer is
fast (a policy parses in well under a millisecond), reports the line, column and the set of
expected terminals for every error, lets keywords double as names where they cannot be
confused (a tool called ``allow``), and is pure Python with no build step. A hand-written
recursive-descent parser would need the same error plumbing written by hand; PEG generators
and pyparsing give poorer "expected ..." sets.
"""

from __future__ import annotations

import functools
from importlib import resources

from lark import Lark

__all__ = ["parser"]


@functools.cache
def parser() -> Lark:
    """The LALR parser of ``policy.lark`` with two entry points: ``start`` (a whole policy)
    and ``type_expr`` (a type annotation such as ``dict[str, list[int]]``)."""
    text = resources.files("safe_eval.policy").joinpath("policy.lark").read_text(encoding="utf-8")
    return Lark(
        text,
        parser="lalr",
        lexer="contextual",
        start=["start", "type_expr"],
        propagate_positions=True,
        maybe_placeholders=False,
    )
