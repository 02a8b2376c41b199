"""An exposed host object shows the guest only what the host declared (``expose`` allowlists):
how it prints, its type as ``type(x)`` gives it, ``isinstance`` with its class and the static
pass for declared-writable attributes (issue 12) open nothing else. The attacker is the guest."""

from __future__ import annotations

from typing import Any

import pytest

from safe_eval import GuestError, PolicyViolation, expose, safe_eval, safe_exec


class Account:
    def __init__(self) -> None:
        self.owner = "ann"
        self.balance = 10
        self.password = "hunter2"

    def __repr__(self) -> str:  # the host's own repr shows what the host did not expose
        return f"Account(owner={self.owner}, password={self.password})"


def _env() -> dict[str, Any]:
    account = Account()
    return {"acct": expose(account, attrs=["owner"], writable=["balance"]), "Account": expose(Account)}


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("repr(acct)", id="repr"),
        pytest.param("str(acct)", id="str"),
        pytest.param("f'{acct!r} {acct!s} {acct}'", id="f_string"),
        pytest.param("'%s %r' % (acct, acct)", id="percent_format"),
        pytest.param("'{0} {0!r}'.format(acct)", id="str_format"),
        pytest.param("repr([acct, {'a': acct}])", id="inside_containers"),
    ],
)
def test_printing_an_exposed_object_never_shows_an_undeclared_attribute(code: str) -> None:
    shown = safe_eval(code, _env())
    assert "hunter2" not in shown and "password" not in shown
    assert "owner='ann'" in shown


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("type(acct)()", id="construct_from_its_type"),
        pytest.param("type(acct).__init__", id="type_init"),
        pytest.param("type(acct).__dict__", id="type_dict"),
        pytest.param("type(acct).__mro__", id="type_mro"),
        pytest.param("type(acct).__subclasses__()", id="type_subclasses"),
        pytest.param("type(type(acct))('X', (type(acct),), {})", id="metaclass"),
        pytest.param("Account.__init__", id="exposed_class_init"),
        pytest.param("acct.password", id="undeclared_attribute"),
        pytest.param("vars(acct)", id="vars"),
    ],
)
def test_the_type_of_an_exposed_object_opens_nothing(code: str) -> None:
    with pytest.raises((GuestError, PolicyViolation)):
        safe_eval(code, _env())


def test_isinstance_with_a_host_class_runs_no_guest_code() -> None:
    # a guest object claiming to be an Account through __class__ is not one
    code = ("class Fake:\n    @property\n    def __class__(self):\n        raise ValueError('ran')\n"
            "isinstance(Fake(), Account)")
    with pytest.raises(PolicyViolation):  # __class__ cannot be redefined (static rule)
        safe_eval(code, _env())
    assert safe_eval("class Fake:\n    pass\nisinstance(Fake(), Account)", _env()) is False


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("a = acct\na.password = 'x'", id="undeclared_through_an_alias"),
        pytest.param("a = acct\na.owner = 'eve'", id="read_only_through_an_alias"),
        pytest.param("setattr(acct, 'password', 'x')", id="setattr"),
    ],
)
def test_only_the_declared_writable_attribute_can_be_written(code: str) -> None:
    env = _env()
    with pytest.raises((GuestError, PolicyViolation)):
        safe_exec(code, env)
    account = env["acct"].obj
    assert (account.owner, account.password) == ("ann", "hunter2")


def test_a_declared_writable_attribute_takes_plain_data_only() -> None:
    env = _env()
    with pytest.raises(GuestError) as info:
        safe_exec("class Evil:\n    pass\nacct.balance = Evil()", env)
    assert info.value.type_name == "TypeError"
    safe_exec("acct.balance = 99", env)
    assert env["acct"].obj.balance == 99
