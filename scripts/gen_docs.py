"""Regenerate the documents made from the code: the README's rule table (from
``safe_eval/rules.py``) and ``docs/api.md`` (from the public names' docstrings).

    python scripts/gen_docs.py          # rewrite both
    python scripts/gen_docs.py --check  # exit 1 when either is out of date (what the tests do)
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
API = ROOT / "docs" / "api.md"
RULES_START, RULES_END = "<!-- rules:start (scripts/gen_docs.py) -->", "<!-- rules:end -->"

# What the API reference documents, in this order: (module, names)
PUBLIC: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("safe_eval", ("safe_eval", "safe_exec", "Evaluator", "Result", "safe_callable", "check", "Report",
                   "refill", "Limits", "Policy")),
    ("safe_eval.errors", ("SafeEvalError", "PolicyViolation", "GuestError", "GuestFrame", "LimitExceeded",
                          "TimeLimit", "OpLimit", "MemoryLimit", "RecursionLimit", "OutputLimit",
                          "SandboxError", "SandboxUnavailable", "SandboxCrashed", "SandboxValueError",
                          "PolicyError", "InternalError")),
    ("safe_eval.diagnostics", ("Diagnostic",)),
    ("safe_eval.rules", ("Rule",)),
)


def readme_with_rules(text: str) -> str:
    """``text`` (the README) with the rule table between its markers regenerated."""
    from safe_eval.rules import markdown_table

    start, end = text.index(RULES_START) + len(RULES_START), text.index(RULES_END)
    return text[:start] + "\n" + markdown_table() + "\n" + text[end:]


def api_markdown() -> str:
    """``docs/api.md``."""
    import importlib

    out = ["# API reference", "",
           "Generated from the docstrings by `scripts/gen_docs.py` (a test keeps it current); "
           "see the README for an overview and `docs/cookbook.md` for worked examples.", ""]
    for module_name, names in PUBLIC:
        module = importlib.import_module(module_name)
        out += [f"## `{module_name}`", ""]
        for name in names:
            out += _entry(name, getattr(module, name))
    return "\n".join(out).rstrip() + "\n"


def _entry(name: str, obj: Any) -> list[str]:
    kind = "class" if inspect.isclass(obj) else "function"
    out = [f"### `{name}`", "", "```python", f"{kind} {name}{_signature(obj)}", "```", ""]
    out += [_doc(obj), ""] if _doc(obj) else []
    if inspect.isclass(obj):
        for attr, value in obj.__dict__.items():
            if attr.startswith("_"):
                continue
            target = value.fget if isinstance(value, property) else value
            target = getattr(target, "__func__", target)
            if not callable(target):
                continue
            label = f"{name}.{attr}" + ("" if isinstance(value, property) else _signature(target))
            doc = _doc(target).replace("\n", "\n  ")
            out += [f"- `{label}`" + (f": {doc}" if doc else ""), ""]
    return out


def _signature(obj: Any) -> str:
    """The signature, spelled the same on every supported Python (annotations as written)."""
    if inspect.isclass(obj) and not inspect.isfunction(obj.__init__):
        return "(...)"  # a builtin __init__ (Exception's): its signature differs across versions
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    params = [p.replace(annotation=_spelled(p.annotation)) for p in sig.parameters.values()]
    text = str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))
    if sig.return_annotation is not inspect.Signature.empty:
        text += f" -> {_spelled(sig.return_annotation).text}"
    return text


class _Spelled:
    """An annotation shown as its source text (``str(signature)`` would quote a string)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _spelled(annotation: Any) -> Any:
    if annotation is inspect.Parameter.empty:
        return annotation
    if isinstance(annotation, str):
        return _Spelled(annotation)
    return _Spelled(getattr(annotation, "__name__", None) or str(annotation))


def _doc(obj: Any) -> str:
    return inspect.cleandoc(obj.__doc__ or "") if obj.__doc__ is not type.__doc__ else ""


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    wanted = {README: readme_with_rules(README.read_text(encoding="utf-8")), API: api_markdown()}
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    if argv[1:] == ["--check"]:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run python scripts/gen_docs.py")
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
