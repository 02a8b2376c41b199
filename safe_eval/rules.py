"""The rule registry: every diagnostic code safe-eval emits, in one place (as ruff keeps its rules).

A ``Rule`` is a code (stage letter + digits: ``P`` parse, ``R`` restrict, ``T`` tools and
policy, ``E`` run time), a kebab-case name, the stage that reports it, a severity, a one-line
summary (the README's rule table and ``safe-eval rules``), a message template and a default
hint. The stages build their diagnostics from here::

    rules.STAR_IMPORT.diagnostic(span, module="os")

and nothing else in the package writes a code literal (``tests/test_rules_registry.py`` checks
both directions: every code in the source is registered, every registered code is emitted by
a test case). ``S`` (scrub) codes are reserved: scrub never refuses code.

``safe-eval rules`` lists them (``--json``); the table in README.md is generated from ``RULES``
by ``scripts/gen_docs.py`` (a test keeps it current).
"""

from __future__ import annotations

from typing import Any

from safe_eval._record import Frozen, Record
from safe_eval.diagnostics import Diagnostic, Severity, Stage

__all__ = ["RULES", "Rule", "by_code", "markdown_table"]

Span = tuple[int, int, int, int]


class Rule(Frozen, Record):
    """One diagnostic rule. ``message`` is a ``str.format`` template filled by the reporting
    stage; ``hint`` is the default advice (a stage may pass a more specific one)."""

    __slots__ = ("code", "name", "stage", "severity", "summary", "message", "hint")
    _fields = __slots__

    code: str
    name: str
    stage: Stage
    severity: Severity
    summary: str
    message: str
    hint: str

    def __init__(self, code: str, name: str, stage: Stage, summary: str, message: str, hint: str = "",
                 severity: Severity = "error") -> None:
        setattr_ = object.__setattr__
        setattr_(self, "code", code)
        setattr_(self, "name", name)
        setattr_(self, "stage", stage)
        setattr_(self, "severity", severity)
        setattr_(self, "summary", summary)
        setattr_(self, "message", message)
        setattr_(self, "hint", hint)

    def diagnostic(self, span: Span, *, hint: str | None = None, stage: Stage | None = None,
                   **fields: Any) -> Diagnostic:
        """This rule broken at ``span`` (1-based line, col, end_line, end_col); ``fields`` fill
        the message template; ``stage`` is given when a later stage re-checks the rule
        (a tool rule decided at run time)."""
        line, col, end_line, end_col = span
        return Diagnostic(self.code, self.name, self.message.format(**fields), line, col, end_line,
                          end_col, stage or self.stage, self.hint if hint is None else hint, self.severity)

    def to_dict(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in self._fields}


RULES: dict[str, Rule] = {}


def _rule(code: str, name: str, stage: Stage, summary: str, message: str, hint: str = "",
          severity: Severity = "error") -> Rule:
    rule = Rule(code, name, stage, summary, message, hint, severity)
    assert code not in RULES, code  # one definition per code
    RULES[code] = rule
    return rule


def by_code(code: str) -> Rule | None:
    """The registered rule with this code (None: not one of ours, e.g. from an old worker)."""
    return RULES.get(code)


# -- parse (pipeline/parse.py, pipeline/compile_check.py) ------------------------------------------
NOT_SOURCE = _rule("P001", "not-source", "parse", "code is not `str` or `bytes`",
                   "code must be a str, not {type}", "pass the Python source text as a str")
INVALID_ENCODING = _rule("P002", "invalid-encoding", "parse", "`bytes` that are not valid UTF-8",
                         "code is not valid UTF-8 (byte {offset}: {reason})",
                         "send the code as a str, or as UTF-8 encoded bytes")
NULL_BYTE = _rule("P003", "null-byte", "parse", "a NUL character in the text",
                  "code contains a NUL character",
                  "remove the NUL character; write '\\0' inside a string literal instead")
LONE_SURROGATE = _rule("P004", "lone-surrogate", "parse", "a lone surrogate code point in the text",
                       "code contains the lone surrogate U+{codepoint:04X}",
                       "write surrogates as escapes inside string literals ('\\ud800')")
SOURCE_TOO_LONG = _rule("P005", "source-too-long", "parse", "more characters than the parse limit",
                        "code is {length} characters long; the limit is {limit}",
                        "send shorter code: split the work into several smaller snippets")
SYNTAX_ERROR = _rule("P006", "syntax-error", "parse", "`SyntaxError`/`IndentationError` with its position",
                     "{detail}", "fix the syntax error; the code must be valid Python 3.11")
NESTING_TOO_DEEP = _rule("P007", "nesting-too-deep", "parse",
                         "nesting beyond the parser's or the depth limit", "{detail}",
                         "flatten the code: use intermediate variables, loops or helper functions")
TOO_MANY_NODES = _rule("P008", "too-many-nodes", "parse", "more syntax nodes than the parse limit",
                       "code has more than {limit} syntax nodes",
                       "send shorter code: split the work into several smaller snippets")
COMPILE_ERROR = _rule("P009", "compile-error", "parse",
                      "what CPython's compiler refuses in a parsed tree (`break` outside a loop...)",
                      "{detail}", "CPython refuses this before running anything: fix it as the message says")

# -- restrict (pipeline/restrict.py) --------------------------------------------------------------
FORBIDDEN_BUILTIN = _rule("R001", "forbidden-builtin", "restrict",
                          "a refused builtin such as `open` or `compile`",
                          'the builtin "{name}" is not available')
DUNDER_NAME = _rule("R002", "dunder-name", "restrict", "a `__name__`-style variable (`__import__`, ...)",
                    'the name "{name}" is not allowed', "use a name that does not start and end with '__'")
DUNDER_ATTRIBUTE = _rule("R003", "dunder-attribute", "restrict",
                         "a dunder attribute outside the reviewed set",
                         '{verb} the attribute "{attr}"{where} is not allowed',
                         "use ordinary attributes and builtins such as type(x).__name__ or isinstance()")
INTERNAL_ATTRIBUTE = _rule("R004", "internal-attribute", "restrict",
                           "frame/code/generator internals (`gi_frame`, `mro`...)",
                           'the attribute "{attr}"{where} is an interpreter internal',
                           "frame, code and generator internals are hidden")
PRIVATE_ATTRIBUTE = _rule("R005", "private-attribute", "restrict", "`_x` on an object the code does not own",
                          'the private attribute "{attr}" of {owner} is not accessible',
                          "use the public API of modules and host objects")
FORBIDDEN_DUNDER_DEFINITION = _rule(
    "R006", "forbidden-dunder-definition", "restrict", "a class defines a dunder outside the allowlist",
    'a class may not define "{name}": {reason}',
    "implement the behaviour with an ordinary method that the code calls explicitly")
CLASS_KEYWORD = _rule("R007", "class-keyword", "restrict", "`metaclass=` or another class keyword",
                      "class keyword {label} is not allowed",
                      "define a plain class; use a class decorator or a factory function instead")
DYNAMIC_CLASS = _rule("R008", "dynamic-class", "restrict",
                      "`type()` with three arguments defines a refused dunder",
                      'type() with three arguments may not define "{name}": {reason}',
                      "implement the behaviour with an ordinary method that the code calls explicitly")
CODE_STRING = _rule("R009", "code-string", "restrict", "a constant string given to eval/exec breaks a rule",
                    "the code given to {function}() breaks rule {code} [{name}] at its line {line}: {detail}")
UNSUPPORTED_SYNTAX = _rule("R010", "unsupported-syntax", "restrict", "a node type not reviewed for safety",
                           "{detail}", "rewrite this part with plain statements and expressions")
STAR_IMPORT = _rule("R011", "star-import", "restrict", "`from m import *`", "star imports are not allowed",
                    "import the names you need: from {module} import a, b")
PRIVATE_IMPORT = _rule("R012", "private-import", "restrict", "importing a `_private` module or name",
                       'importing the private {kind} "{name}" is not allowed',
                       "import public modules and names only")
HOST_ATTRIBUTE_WRITE = _rule(
    "R013", "host-attribute-write", "restrict", "setting/deleting an attribute of a module or host object",
    'setting or deleting the attribute "{attr}" of {owner} is not allowed',
    "modules and host objects are read-only; keep your own state in variables, dicts or your own classes")

# -- tools and policy (pipeline/policy_check.py, policy/model.py) ---------------------------------
IMPORT_NOT_ALLOWED = _rule("T001", "import-not-allowed", "policy",
                           "an import the policy does not allow, or a relative import",
                           "{what} is not allowed")
UNKNOWN_NAME = _rule("T002", "unknown-name", "policy",
                     "a call of a name that is not defined, not a tool and not a builtin (warning)",
                     "`{name}` is not defined", severity="warning")
TOOL_NOT_ALLOWED = _rule("T003", "tool-not-allowed", "policy", "a call of a tool no allow rule permits",
                         "{detail}")
TOOL_ARGUMENT_DENIED = _rule("T004", "tool-argument-denied", "policy",
                             "a tool call whose arguments the rules refuse", "{detail}")
TOOL_CALL_RAISES = _rule("T005", "tool-call-raises", "policy",
                         "a tool call a `deny ... raise` rule refuses whatever its arguments (warning: the "
                         "code may catch the PermissionError)",
                         "{detail}; the call raises PermissionError when it runs", severity="warning")

# -- run time (membrane) ---------------------------------------------------------------------------
HOST_VALUE_REFUSED = _rule("E401", "host-value-refused", "runtime",
                           "a host value or access the membrane refuses at run time", "{detail}")


def markdown_table() -> str:
    """The README's rule table."""
    rows = ["| code | name | stage | severity | what it refuses |", "|---|---|---|---|---|"]
    rows += [f"| {r.code} | `{r.name}` | {r.stage} | {r.severity} | {r.summary} |" for r in RULES.values()]
    return "\n".join(rows)

