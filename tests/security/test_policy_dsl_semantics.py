"""Invariant: the policy DSL means what a reader of the rule thinks it means (issue 16, item 12).

- ``matches`` is a full match in which ``.`` matches every character, newlines too;
- a rule can name a method tool (``Store.delete_file``, globs included);
- a base policy's deny rules are a floor an extending policy cannot lift, and ``safe-eval
  policy check`` says so when a child tries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from safe_eval import safe_eval
from safe_eval.cli import main
from safe_eval.errors import GuestError, PolicyViolation
from safe_eval.membrane import expose
from safe_eval.policy import load_policy, parse_policy


def _runner(ran: list[str]) -> Any:
    def run(cmd: str) -> str:
        ran.append(cmd)
        return "done"

    return run


NEWLINE_DODGES = {
    "newline_before": "x\ndrop table t",
    "newline_inside": "drop\ntable t",
    "carriage_return": "x\r\ndrop table t",
}


@pytest.mark.parametrize("cmd", NEWLINE_DODGES.values(), ids=NEWLINE_DODGES.keys())
def test_a_newline_does_not_dodge_a_matches_deny_rule(cmd: str) -> None:
    ran: list[str] = []
    policy = parse_policy('deny run(cmd matches r".*drop.*") raise "no drops"\nallow run(cmd: str)')
    with pytest.raises(GuestError, match="no drops"):
        safe_eval(f"run({cmd!r})", {"run": _runner(ran)}, policy=policy)
    assert ran == []


def test_a_newline_does_not_satisfy_an_allow_pattern_partially() -> None:
    ran: list[str] = []
    policy = parse_policy('allow run(cmd matches r"ls [a-z]+")')
    with pytest.raises(PolicyViolation):
        safe_eval('run("ls data\\nrm -rf /")', {"run": _runner(ran)}, policy=policy)
    assert safe_eval('run("ls data")', {"run": _runner(ran)}, policy=policy) == "done"
    assert ran == ["ls data"]


class Store:
    """A host object whose methods are exposed as tools named ``Store.<method>``."""

    def __init__(self) -> None:
        self.deleted: list[str] = []

    def read_file(self, path: str) -> str:
        return f"contents of {path}"

    def delete_file(self, path: str) -> None:
        self.deleted.append(path)

    def delete_all(self) -> None:
        self.deleted.append("*")


METHOD_RULES = {
    "exact_name": "deny Store.delete_file(*)\nallow Store.*(*)",
    "glob_method": "deny Store.delete_*(*)\nallow Store.*(*)",
    "glob_everything": "deny *.delete_*(*)\nallow *(*)",
}


@pytest.mark.parametrize("rules", METHOD_RULES.values(), ids=METHOD_RULES.keys())
def test_a_rule_naming_a_method_tool_denies_it(rules: str) -> None:
    store = Store()
    env = {"store": expose(store, methods=["read_file", "delete_file"])}
    policy = parse_policy(rules)
    # through an alias: decided by the run-time gate, not only by the static check
    with pytest.raises(PolicyViolation, match="calling `Store.delete_file` is denied"):
        safe_eval('rm = store.delete_file\nrm("data/report.txt")', env, policy=policy)
    assert store.deleted == []
    assert safe_eval('store.read_file("a")', env, policy=policy) == "contents of a"


def _policies(tmp_path: Path, base: str, child: str) -> Path:
    (tmp_path / "base.policy").write_text(base)
    child_file = tmp_path / "child.policy"
    child_file.write_text(child)
    return child_file


FLOORS = {
    "allow_every_tool": ("deny delete_*(*) raise \"never delete\"\nallow read(*)", "allow *(*)"),
    "allow_the_tool": ("deny delete_*(*) raise \"never delete\"", "allow delete_file(path: str)"),
    "deny_with_a_condition": (
        'deny delete_file(path matches r"/etc/.*") raise "never delete"\nallow delete_file(*)',
        "allow delete_file(path: str)",
    ),
}


@pytest.mark.parametrize(("base", "child"), FLOORS.values(), ids=FLOORS.keys())
def test_an_extending_policy_cannot_lift_its_base_deny_rules(tmp_path: Path, base: str, child: str) -> None:
    deleted: list[str] = []

    def delete_file(path: str) -> None:
        deleted.append(path)

    policy = load_policy(_policies(tmp_path, base, f'extends "base.policy"\n{child}\n'))
    with pytest.raises(GuestError, match="never delete"):
        safe_eval('delete_file("/etc/passwd")', {"delete_file": delete_file}, policy=policy)
    assert deleted == []


def test_policy_check_says_when_a_child_tries_to_lift_a_base_deny(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    child = _policies(tmp_path, 'deny delete_*(*) "never delete"\n', 'extends "base.policy"\nallow delete_file(*)\n')
    assert main(["policy", "check", str(child)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        "note: `allow delete_file(*)` cannot lift the base policy's `deny delete_*(*) \"never delete\"`: "
        "a call the base denies stays denied"
    ]


def _recorder(got: list[tuple[Any, ...]]) -> Any:
    def set_flag(name: Any, value: Any) -> str:
        got.append((name, value))
        return "ok"

    return set_flag


# a deny rule's `==`/`in` is in doubt on a value of another kind than its literal: the host's
# `value == True` holds for 1, a host taking "an address or a list of them" mails ["ceo"]
KIND_SLIPS = {
    "int_for_true": ('deny set_flag(name == "admin_mode", value == True) raise "stays off"', '"admin_mode", 1'),
    "float_for_true": ('deny set_flag(name == "admin_mode", value == True) raise "stays off"', '"admin_mode", 1.0'),
    "true_for_int": ("deny set_flag(value == 1) raise \"stays off\"", '"admin_mode", True'),
    "true_for_int_set": ("deny set_flag(value in {1, 2}) raise \"stays off\"", '"admin_mode", True'),
    "list_for_str_in_set": ('deny set_flag(name in {"ceo@corp.com"}) raise "stays off"', '["ceo@corp.com"], 0'),
    "tuple_for_str": ('deny set_flag(name == "ceo@corp.com") raise "stays off"', '("ceo@corp.com",), 0'),
    "dict_for_str": ('deny set_flag(name == "ceo@corp.com") raise "stays off"', '{"ceo@corp.com": 1}, 0'),
    "str_for_int": ("deny set_flag(value == 1) raise \"stays off\"", '"admin_mode", "1"'),
    "set_for_str_in_set": ('deny set_flag(name in {"ceo@corp.com"}) raise "stays off"', '{"ceo@corp.com"}, 0'),
}


@pytest.mark.parametrize(("rule", "args"), KIND_SLIPS.values(), ids=KIND_SLIPS.keys())
def test_a_value_of_another_kind_than_the_literal_cannot_slip_past_a_deny_rule(rule: str, args: str) -> None:
    got: list[tuple[Any, ...]] = []
    policy = parse_policy(f"{rule}\nallow set_flag(*)")
    with pytest.raises(GuestError, match="stays off"):
        safe_eval(f"set_flag({args})", {"set_flag": _recorder(got)}, policy=policy)
    assert got == []


SAME_KIND_PASSES = {
    "false_for_true": ('deny set_flag(name == "admin_mode", value == True)', '"admin_mode", False'),
    "other_name": ('deny set_flag(name == "admin_mode", value == True)', '"debug", True'),
    "other_int": ("deny set_flag(value in {1, 2})", '"x", 3'),
    "other_address": ('deny set_flag(name in {"ceo@corp.com"})', '"bob@corp.com", 0'),
}


@pytest.mark.parametrize(("rule", "args"), SAME_KIND_PASSES.values(), ids=SAME_KIND_PASSES.keys())
def test_a_value_of_the_literals_kind_is_still_decided_by_its_value(rule: str, args: str) -> None:
    got: list[tuple[Any, ...]] = []
    policy = parse_policy(f"{rule}\nallow set_flag(*)")
    assert safe_eval(f"set_flag({args})", {"set_flag": _recorder(got)}, policy=policy) == "ok"
    assert len(got) == 1


LOOKALIKE_POLICIES = {
    "true_vs_1": ("deny set_flag(value == True)", "deny set_flag(value == 1)"),
    "1_vs_1.0": ("deny set_flag(value == 1)", "deny set_flag(value == 1.0)"),
    "bools_vs_ints": ("deny set_flag(value in {False, True})", "deny set_flag(value in {0, 1})"),
    "set_of_true_vs_set_of_1": ("deny set_flag(value in {True})", "deny set_flag(value in {1})"),
}


@pytest.mark.parametrize(("first", "second"), LOOKALIKE_POLICIES.values(), ids=LOOKALIKE_POLICIES.keys())
def test_a_policy_is_not_run_under_a_cached_lookalike_whose_literal_has_another_kind(
    first: str, second: str
) -> None:
    got: list[tuple[Any, ...]] = []
    env = {"set_flag": _recorder(got)}
    a = parse_policy(f"policy tenant\n{first}\nallow set_flag(name: str, value: int)")
    b = parse_policy(f"policy tenant\n{second}\nallow set_flag(name: str, value: int)")
    assert (a == b, hash(a) == hash(b)) == (False, False)
    safe_eval("None", env, policy=a)  # an earlier run caches an evaluator for `a`
    for policy in (a, b):
        with pytest.raises(PolicyViolation) as caught:
            safe_eval('v = int("1")\nset_flag("debug", v)', env, policy=policy)
        assert policy.tools[0].render() in str(caught.value)
    assert got == []


def test_an_allowed_set_keeps_1_and_true_as_two_values() -> None:
    got: list[tuple[Any, ...]] = []
    policy = parse_policy("allow set_flag(name: str, value in {True, 1})")
    assert safe_eval('set_flag("a", 1)', {"set_flag": _recorder(got)}, policy=policy) == "ok"
    assert safe_eval('set_flag("b", True)', {"set_flag": _recorder(got)}, policy=policy) == "ok"
    assert got == [("a", 1), ("b", True)]
