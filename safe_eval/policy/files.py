"""Finding policies: shipped ones by name, files by path, and ``extends`` between them.

The shipped policies live in the package (``safe_eval/policies/*.policy``), so they load the
same from a checkout and from an installed wheel; the repository's top-level ``policies/``
holds identical copies for people browsing the repo (``tests/test_policy_files.py`` fails if
the two differ, and says which file to copy where).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from safe_eval.errors import PolicyError
from safe_eval.limits.model import Limits
from safe_eval.policy._preparsed import PREPARSED
from safe_eval.policy.model import Policy

__all__ = ["SHIPPED", "load_policy", "load_reference", "shipped_policy", "shipped_text"]

SHIPPED = ("default", "strict", "agent")
_MAX_CHAIN = 16
_POLICIES = Path(__file__).resolve().parent.parent / "policies"


def shipped_text(name: str) -> str:
    """The text of a shipped policy."""
    if name not in SHIPPED:
        raise PolicyError(f"unknown shipped policy {name!r}; shipped policies: {', '.join(SHIPPED)}")
    # the package directory when installed as files (a checkout, a wheel): importing
    # importlib.resources costs about 8 ms of a cold start, so it is only the fallback
    path = _POLICIES / f"{name}.policy"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    from importlib import resources

    return resources.files("safe_eval").joinpath("policies", f"{name}.policy").read_text(encoding="utf-8")


@functools.cache
def shipped_policy(name: str) -> Policy:
    """A shipped policy by name, parsed once (or read from ``_preparsed.py`` when that table
    was generated from exactly this text: see ``preparse.py``)."""
    text = shipped_text(name)
    entry = PREPARSED.get(name)
    if entry is not None and entry[0] == text:
        _, policy_name, imports, limits = entry
        return Policy(policy_name, frozenset(imports), Limits(**limits))
    from safe_eval.policy.dsl import parse_policy

    return parse_policy(text, f"<shipped:{name}>", chain=(f"<shipped:{name}>",))


def load_policy(path: str | os.PathLike[str]) -> Policy:
    """The policy in the file at ``path``; ``PolicyError`` when it is missing or malformed."""
    return _load_file(Path(path), ())


def _load_file(path: Path, chain: tuple[str, ...]) -> Policy:
    from safe_eval.policy.dsl import parse_policy

    key = str(path.resolve())
    if key in chain:
        cycle = " -> ".join([*chain[chain.index(key) :], key])
        raise PolicyError(f"`extends` cycle: {cycle}", filename=str(path))
    if len(chain) >= _MAX_CHAIN:
        raise PolicyError(f"`extends` chain longer than {_MAX_CHAIN} policies", filename=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PolicyError(f"no policy file at {path}", filename=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"cannot read policy file: {exc}", filename=str(path)) from None
    return parse_policy(text, str(path), chain=(*chain, key))


def load_reference(ref: str, is_path: bool, referrer: str, chain: tuple[str, ...]) -> Policy:
    """What ``extends`` names: a shipped policy, or a file relative to the referring file."""
    if not is_path:
        if ref not in SHIPPED:
            raise PolicyError(
                f"unknown policy `{ref}`; extend a shipped policy ({', '.join(SHIPPED)}) "
                f'or a file: extends "path/to/base.policy"'
            )
        if f"<shipped:{ref}>" in chain:
            raise PolicyError(f"`extends` cycle through shipped policy `{ref}`")
        return shipped_policy(ref)
    base = Path(referrer).parent if not referrer.startswith("<") else Path.cwd()
    return _load_file(base / ref, chain)


def resolve_name_or_path(value: str | os.PathLike[str]) -> Policy:
    """A shipped policy name ("default", "strict", "agent") or a path to a .policy file."""
    if isinstance(value, str) and value in SHIPPED:
        return shipped_policy(value)
    path = Path(value)
    if path.suffix == ".policy" or path.exists():
        return load_policy(path)
    raise PolicyError(
        f"unknown policy {str(value)!r}: give a shipped name ({', '.join(SHIPPED)}) "
        "or the path of a .policy file"
    )
