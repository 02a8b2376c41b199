"""Shipped policies: one copy in the package, one at the repo top, always identical; lookup by name or path."""

from __future__ import annotations

from pathlib import Path

import pytest

from safe_eval.errors import PolicyError
from safe_eval.policy import SHIPPED, Policy, default_policy, load_policy, resolve_policy, shipped_policy

ROOT = Path(__file__).resolve().parent.parent
REPO_DIR = ROOT / "policies"
PACKAGE_DIR = ROOT / "safe_eval" / "policies"


def test_repo_and_package_copies_are_identical() -> None:
    repo = {p.name: p.read_bytes() for p in REPO_DIR.glob("*.policy")}
    package = {p.name: p.read_bytes() for p in PACKAGE_DIR.glob("*.policy")}
    assert sorted(repo) == sorted(f"{n}.policy" for n in SHIPPED)
    for name in sorted(set(repo) | set(package)):
        assert repo.get(name) == package.get(name), (
            f"policies/{name} and safe_eval/policies/{name} differ: edit policies/{name}, then "
            f"cp policies/{name} safe_eval/policies/"
        )


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_policies_are_documented_at_the_top(name: str) -> None:
    text = (REPO_DIR / f"{name}.policy").read_text()
    assert text.startswith(f"# {name}: ")
    assert load_policy(REPO_DIR / f"{name}.policy") == shipped_policy(name)


def test_default_policy_is_parsed_once() -> None:
    assert default_policy() is default_policy() is shipped_policy("default")
    assert default_policy().name == "default"


def test_shipped_policy_contents() -> None:
    default, strict, agent = (shipped_policy(n) for n in SHIPPED)
    assert default.tools == () and {"math", "re", "json"} <= default.imports
    assert strict.imports == frozenset() and strict.limits.time < default.limits.time
    assert not strict.decide("anything", (), {}).allowed
    assert agent.imports == default.imports and agent.limits.time == 5.0
    assert {r.tool for r in agent.tools} == {"search", "read_file", "send_email", "delete_*"}


@pytest.mark.parametrize("name", SHIPPED)
def test_resolve_by_name(name: str) -> None:
    assert resolve_policy(name) is shipped_policy(name)


def test_resolve_other_forms(tmp_path: Path) -> None:
    assert resolve_policy(None) is default_policy()
    p = Policy(name="mine")
    assert resolve_policy(p) is p
    f = tmp_path / "mine.policy"
    f.write_text("imports math")
    assert resolve_policy(str(f)).imports == {"math"}
    assert resolve_policy(f).name == "mine"
    with pytest.raises(PolicyError, match="shipped name"):
        resolve_policy("no-such-policy")
    with pytest.raises(PolicyError, match="no policy file"):
        resolve_policy(str(tmp_path / "missing.policy"))
    with pytest.raises(TypeError):
        resolve_policy(42)


def test_load_policy_errors_name_the_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.policy"
    f.write_text("imports math\nallow f(a: nope)\n")
    with pytest.raises(PolicyError) as info:
        load_policy(f)
    assert (info.value.filename, info.value.line, info.value.col) == (str(f), 2, 12)


@pytest.mark.parametrize(("stem", "name"), [("my-policy", "my-policy"), ("v1.2", "v1.2"), ("2fast", "_2fast"),
                                           ("a b", "a_b")])
def test_policy_name_defaults_to_the_file_stem(tmp_path: Path, stem: str, name: str) -> None:
    f = tmp_path / f"{stem}.policy"
    f.write_text("imports none")
    policy = load_policy(f)
    assert policy.name == name
    from safe_eval.policy import parse_policy, render_policy

    assert parse_policy(render_policy(policy)) == policy


def test_policy_names_must_render() -> None:
    with pytest.raises(PolicyError):
        Policy(name="two words")
