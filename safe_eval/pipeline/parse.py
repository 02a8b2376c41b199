"""Stage 1, parse: source text -> ``ast.Module``, behind limits, never a host crash.

Input decisions:

- ``str`` is parsed as is; ``bytes`` are decoded as strict UTF-8 (a leading BOM is dropped;
  PEP 263 coding cookies are NOT honoured: the text is UTF-8 or it is refused with P002);
  anything else is refused with P001.
- Empty or blank code is valid, like ``exec("")``: an empty module whose value is ``None``.
- Parsing is in ``exec`` mode; the last expression statement stays in the tree because it is
  how ``safe_eval`` returns a value.

Parser bombs: the text length is checked first (a 50 MB string costs nothing), then NUL bytes
and lone surrogates (which ``ast.parse`` cannot encode) are found with C-speed searches. CPython's
parser itself refuses more than 200 nested brackets ("too many nested parentheses") and 100
indentation levels in well under a millisecond, and raises ``RecursionError``/``MemoryError``
(cleanly, from C) on very long operator chains; those become P007 diagnostics. After
``ast.parse``, one iterative walk (no recursion, so no depth can overflow it) counts nodes and
measures depth, refusing trees deeper than ``max_depth``: every later recursive walker (scrub,
the interpreter's compiler) may rely on ``depth <= max_depth``. The same walk returns the nodes
in pre-order so ``restrict`` can check them without walking the tree again.

Codes P001-P009: their names, messages and hints are defined in ``safe_eval/rules.py``
(``safe-eval rules`` lists them).
"""

from __future__ import annotations

import ast
import re
import sys
from typing import Any

from safe_eval import rules
from safe_eval._record import Frozen, Record, Shown
from safe_eval.diagnostics import Diagnostic

__all__ = ["DEFAULT_PARSE_LIMITS", "ParseLimits", "Parsed", "decode_source", "parse", "walk_nodes"]


class ParseLimits(Frozen, Record):
    """Static size limits. Defaults are far above LLM-written code (HumanEval's largest
    solution: 2 KB, depth 20, 218 nodes) and low enough that a bomb is refused in < 100 ms.
    A frozen, hashable value (a plain class, not a dataclass: see ``safe_eval._record``)."""

    __slots__ = ("max_chars", "max_depth", "max_nodes")
    _fields = __slots__
    __match_args__ = ("max_chars", "max_depth", "max_nodes")

    max_chars: int
    max_depth: int
    max_nodes: int

    def __init__(self, max_chars: int = 100_000, max_depth: int = 100, max_nodes: int = 50_000) -> None:
        object.__setattr__(self, "max_chars", max_chars)
        object.__setattr__(self, "max_depth", max_depth)
        object.__setattr__(self, "max_nodes", max_nodes)


DEFAULT_PARSE_LIMITS = ParseLimits()
_UNLIMITED = ParseLimits(max_chars=2**62, max_depth=2**62, max_nodes=2**62)


class Parsed(Frozen, Shown):
    """A parsed module: the text, its tree and every node in pre-order (operator and
    expression-context singletons left out). Frozen, compared by identity."""

    __slots__ = ("source", "tree", "nodes")
    _fields = __slots__
    __match_args__ = ("source", "tree", "nodes")

    source: str
    tree: ast.Module
    nodes: tuple[ast.AST, ...]

    def __init__(self, source: str, tree: ast.Module, nodes: tuple[ast.AST, ...]) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "tree", tree)
        object.__setattr__(self, "nodes", nodes)


# compiled at first non-ASCII text (compiling at import is cold-start time)
_SURROGATE_CHARS = "[\ud800-\udfff]"


def _at(line: int = 1, col: int = 1, end_line: int | None = None,
        end_col: int | None = None) -> tuple[int, int, int, int]:
    """A 1-based span; one character wide unless an end is known."""
    return line, col, end_line or line, end_col if end_col is not None else col + 1


def _position(text: str, index: int) -> tuple[int, int]:
    """1-based (line, col) of a character index."""
    line = text.count("\n", 0, index) + 1
    col = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, col


def decode_source(source: Any) -> str | Diagnostic:
    """The source as ``str``, or the diagnostic saying why it cannot be one."""
    if isinstance(source, str):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line, col = _position(raw[: exc.start].decode("utf-8", "replace"), exc.start)
            return rules.INVALID_ENCODING.diagnostic(_at(line, col), offset=exc.start, reason=exc.reason)
    return rules.NOT_SOURCE.diagnostic(_at(), type=type(source).__name__)


def _check_text(text: str, limits: ParseLimits) -> Diagnostic | None:
    if len(text) > limits.max_chars:
        return rules.SOURCE_TOO_LONG.diagnostic(_at(), length=len(text), limit=limits.max_chars)
    nul = text.find("\0")
    if nul >= 0:
        line, col = _position(text, nul)
        return rules.NULL_BYTE.diagnostic(_at(line, col))
    match = None if text.isascii() else re.search(_SURROGATE_CHARS, text)
    if match is not None:
        line, col = _position(text, match.start())
        return rules.LONE_SURROGATE.diagnostic(_at(line, col), codepoint=ord(match.group()))
    return None


def _syntax_diag(exc: SyntaxError) -> Diagnostic:
    message = exc.msg or "invalid syntax"
    line = exc.lineno or 1
    col = exc.offset or 1
    end_line = getattr(exc, "end_lineno", None) or line
    end_col = getattr(exc, "end_offset", None) or col + 1
    if end_line == line and end_col <= col:
        end_col = col + 1
    if "too many nested" in message or "too many levels of indentation" in message:
        return rules.NESTING_TOO_DEEP.diagnostic(_at(line, col), detail=message)
    hint = rules.SYNTAX_ERROR.hint
    if sys.version_info < (3, 11) and "except*" in (exc.text or "").replace(" ", ""):
        message = "except* is new in Python 3.11; this host runs Python 3.10"
        hint = "catch the group with a plain except, or run on Python 3.11+"
    elif isinstance(exc, IndentationError):
        hint = "indent consistently with 4 spaces; a block needs at least one statement"
    return rules.SYNTAX_ERROR.diagnostic(_at(line, col, end_line, end_col), hint=hint, detail=message)


# Fields that never hold a node worth visiting (names, flags, operators, contexts): skipping
# them by name makes the walk ~30% faster than looking at every field.
_SKIP_FIELDS = frozenset(
    "ctx op ops id attr name arg kind type_comment is_async level module conversion simple tag".split()
)
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _child_fields(node_type: type[ast.AST]) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        names = [] if node_type is ast.Constant else [f for f in node_type._fields if f not in _SKIP_FIELDS]
        # reversed: the stack then pops children in source order, so nodes come out in pre-order
        fields = _CHILD_FIELDS[node_type] = tuple(reversed(names))
    return fields


def _walk(tree: ast.AST, limits: ParseLimits) -> tuple[list[ast.AST], Diagnostic | None]:
    """Pre-order nodes, iteratively (no depth can overflow it); refuses trees deeper than
    ``max_depth`` or with more than ``max_nodes`` nodes."""
    out: list[ast.AST] = []
    append = out.append
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    pop, push = stack.pop, stack.append
    max_depth = limits.max_depth
    node_type, known = ast.AST, _CHILD_FIELDS
    while stack:
        node, depth = pop()
        if depth > max_depth:
            line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
            return out, rules.NESTING_TOO_DEEP.diagnostic(
                _at(line, col), detail=f"code is nested more than {max_depth} levels deep")
        append(node)
        fields = known.get(node.__class__)
        if fields is None:
            fields = _child_fields(node.__class__)
        depth += 1
        for field in fields:
            value = getattr(node, field, None)
            if value is None:
                continue
            if value.__class__ is list:
                for item in reversed(value):
                    if isinstance(item, node_type):
                        push((item, depth))
            elif isinstance(value, node_type):
                push((value, depth))
    if len(out) > limits.max_nodes:  # memory is bounded by max_chars meanwhile
        return out, rules.TOO_MANY_NODES.diagnostic(_at(), limit=limits.max_nodes)
    return out, None


def walk_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of an already checked tree in pre-order (operators and contexts left out),
    iteratively: ~3x faster than ``list(ast.walk(tree))`` for later static passes."""
    nodes, _ = _walk(tree, _UNLIMITED)
    return nodes


def parse(source: Any, filename: str = "<safe-eval>",
          limits: ParseLimits = DEFAULT_PARSE_LIMITS) -> tuple[Parsed | None, list[Diagnostic]]:
    """Parse guest code. Returns the parsed module, or None and the diagnostics saying why not.
    Never raises for any input."""
    text = decode_source(source)
    if isinstance(text, Diagnostic):
        return None, [text]
    problem = _check_text(text, limits)
    if problem is not None:
        return None, [problem]
    try:
        tree = ast.parse(text, filename, "exec")
    except SyntaxError as exc:
        return None, [_syntax_diag(exc)]
    except (RecursionError, MemoryError):
        # CPython refuses very long operator chains this way, from C, before harm is done.
        too_deep = "code is too deeply nested for the parser"
        return None, [rules.NESTING_TOO_DEEP.diagnostic(_at(), detail=too_deep)]
    except ValueError as exc:  # defensive: older CPythons reported some bad text this way
        return None, [rules.SYNTAX_ERROR.diagnostic(_at(), detail=str(exc))]
    nodes, problem = _walk(tree, limits)
    if problem is not None:
        return None, [problem]
    return Parsed(text, tree, tuple(nodes)), []
