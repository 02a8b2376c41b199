"""Invariant 1, one door in: every host value that reaches guest code passes
``crossing.enter_value`` (its admission rule is ``membrane/admission.py``), including the
arguments of every host-to-guest call: a decoded callable called by the host, callbacks from
host C code (``map``, ``sorted``'s ``key=``), dunders the host calls on returned guest objects,
reflected comparisons, generator ``send`` values. The attacker is the guest code; the host
here plays an honest caller that happens to hold dangerous objects."""

from __future__ import annotations

import builtins
import copy
import functools
import os
import subprocess
import sys
import time
import types
from typing import Any

import pytest

from safe_eval import Evaluator, safe_callable, safe_eval, safe_exec
from safe_eval.errors import GuestError, OpLimit, PolicyViolation, TimeLimit
from safe_eval.policy import parse_policy

# What guest code sees of a host value: the name of its type (a raw host object answers
# 'module', 'builtin_function_or_method', 'function' ...; an entered one a membrane name).
KIND = ("def kind(x):\n    name = type(x).__name__\n"
        "    return name if name in ('Refused', 'Tool') else name + ' ' + repr(x)\n")

HOST_VALUES = [
    pytest.param(eval, "Refused", id="builtin_eval"),
    pytest.param(exec, "Refused", id="builtin_exec"),
    pytest.param(os.system, "Refused", id="os_system"),
    pytest.param(subprocess.run, "Refused", id="subprocess_run"),
    pytest.param(os, "Refused", id="module_os"),
    pytest.param(builtins, "Refused", id="module_builtins"),
    pytest.param(sys._getframe(), "Refused", id="frame"),
    pytest.param(functools.partial(print, "x"), "Refused", id="host_partial_of_print"),
    pytest.param(lambda: 0, "Tool", id="host_lambda"),
    # a proxy shows its host class's name (issue 12); its repr tells it from the raw object
    pytest.param(object(), "object <object object>", id="plain_host_object"),
]


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_a_decoded_function_receives_host_arguments_only_through_the_door(value: Any, seen: str) -> None:
    kind = safe_callable(KIND)
    assert kind(value) == seen


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_keyword_arguments_of_a_decoded_function_enter_too(value: Any, seen: str) -> None:
    kind = safe_callable(KIND)
    assert kind(x=value) == seen


def test_a_decoded_function_handed_eval_cannot_run_it() -> None:
    # the review's ``ap(eval, "...")``: the argument used to be called raw, with no check
    ap = safe_callable("def ap(f, x):\n    return f(x)")
    with pytest.raises(PolicyViolation) as info:
        ap(eval, "__import__('os').getcwd()")
    assert info.value.diagnostics[0].code == "E401"


def test_a_host_dict_of_state_passed_to_a_decoded_function_arrives_with_its_values_entered() -> None:
    probe = safe_callable("def probe(d):\n    return [type(v).__name__ for v in d.values()]")
    assert probe({"os": os, "n": 1, "run": subprocess.run}) == ["Refused", "int", "Refused"]


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_host_c_code_calling_a_guest_callback_passes_entered_items(value: Any, seen: str) -> None:
    kind = safe_callable(KIND)
    assert list(map(kind, [value])) == [seen]
    assert sorted([value], key=kind) == [value]  # the key ran on the entered item, not the raw one


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_a_reflected_comparison_hands_the_guest_eq_an_entered_host_object(value: Any, seen: str) -> None:
    # ``host == guest``: the host object's __eq__ gives up, CPython calls the guest's __eq__
    # with the host object as argument (the review got the real builtins module this way)
    g = safe_eval(KIND + "class G:\n    def __eq__(self, other):\n        return kind(other)\n"
                  "    __hash__ = None\nG()")
    assert (value == g) == seen


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_dunders_the_host_calls_on_a_returned_guest_object_receive_entered_arguments(value: Any, seen: str) -> None:
    g = safe_eval(KIND + "class G:\n    def __getitem__(self, k):\n        return kind(k)\n"
                  "    def __call__(self, *a, **kw):\n        return [kind(v) for v in (*a, *kw.values())]\n"
                  "G()")
    assert g[value] == seen
    assert g(value, k=value) == [seen, seen]


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
def test_a_value_sent_into_a_returned_guest_generator_enters(value: Any, seen: str) -> None:
    gen = safe_eval(KIND + "def g():\n    x = yield 0\n    yield kind(x)\ng()")
    assert next(gen) == 0
    assert gen.send(value) == seen


def test_guest_values_passing_through_host_code_come_back_unchanged() -> None:
    # the door admits what the guest already holds: its own objects, builtins and wrappers
    code = (
        "import math\nclass P:\n    pass\np = P()\nitems = [p, len, math.sqrt, 'a'.upper, [1, 2]]\n"
        "same = list(map(lambda v: v, items))\n"
        "[a is b for a, b in zip(items, same)] + [sorted([3, 1, 2], key=lambda v: -v)]"
    )
    assert safe_eval(code) == [True, True, True, True, True, [3, 2, 1]]


# -- host C callables the guest leaves where host code calls them ------------------------------
# A C method bound to guest data (``inbox.append``) is admitted as it is, and stores whatever it
# is called with: left where host code calls it with a host object (a class slot, an attribute
# a framework calls by name, a handler in a returned container, a tool's callback), the raw host
# object landed in guest state. Each case: guest code that leaves such a callable, and how the
# host then calls it with its value; ``probe()`` (later guest code) reports what arrived.

_STORE = KIND + (
    "import functools, operator\n"
    "inbox = []\nbox = {}\nbag = set()\n"
    "class O:\n    pass\n"
    "def probe():\n"
    "    return sorted({kind(v) for v in [*inbox, *box.values(), *box, *bag]})\n"
)

LEFT_FOR_THE_HOST: dict[str, tuple[str, Any]] = {
    "class_call_slot": ("class C:\n    __call__ = inbox.append\nc = C()", lambda ns, v: ns["c"](v)),
    "class_call_slot_unbound": ("class L(list):\n    __call__ = list.append\ninbox = L()\nc = inbox",
                                lambda ns, v: ns["c"](v)),
    "class_getitem_slot": ("class C:\n    __getitem__ = box.setdefault\nc = C()", lambda ns, v: ns["c"][v]),
    "class_setitem_slot": ("class C:\n    __setitem__ = box.__setitem__\nc = C()",
                           lambda ns, v: ns["c"].__setitem__("k", v)),
    "class_eq_slot_reflected": ("class C:\n    __eq__ = inbox.append\n    __hash__ = None\nc = C()",
                                lambda ns, v: v == ns["c"]),
    "class_attribute_by_name": ("class H:\n    on_event = inbox.append\nh = H()",
                                lambda ns, v: ns["h"].on_event(v)),
    "class_attribute_set_later": ("class H:\n    pass\nH.on_event = bag.add\nh = H()",
                                  lambda ns, v: ns["h"].on_event(v)),
    "class_staticmethod": ("class H:\n    on_event = staticmethod(inbox.append)\nh = H()",
                           lambda ns, v: ns["h"].on_event(v)),
    "dynamic_class": ("D = type('D', (), {'__call__': inbox.append})\nc = D()", lambda ns, v: ns["c"](v)),
    "instance_attribute": ("o = O()\no.on_event = inbox.append", lambda ns, v: ns["o"].on_event(v)),
    "instance_attribute_setattr": ("o = O()\nsetattr(o, 'on_event', box.setdefault)",
                                   lambda ns, v: ns["o"].on_event("k", v)),
    "instance_attribute_object_setattr": ("o = O()\nobject.__setattr__(o, 'on_event', inbox.append)",
                                          lambda ns, v: ns["o"].on_event(v)),
    "instance_attribute_vars": ("o = O()\nvars(o)['on_event'] = inbox.append",
                                lambda ns, v: ns["o"].on_event(v)),
    "instance_attribute_vars_update": ("o = O()\nvars(o).update(on_event=inbox.extend)",
                                       lambda ns, v: ns["o"].on_event([v])),
    "function_attribute": ("def f():\n    pass\nf.cb = inbox.append", lambda ns, v: ns["f"].cb(v)),
    "handler_in_returned_dict": ("handlers = {'evt': box.update}", lambda ns, v: ns["handlers"]["evt"](k=v)),
    "handler_through_getattr": ("handlers = [getattr(inbox, 'append')]", lambda ns, v: ns["handlers"][0](v)),
    "handler_through_attrgetter": ("handlers = [operator.attrgetter('append')(inbox)]",
                                   lambda ns, v: ns["handlers"][0](v)),
    "handler_set_add": ("handlers = [bag.add]", lambda ns, v: ns["handlers"][0](v)),
    "handler_list_insert": ("handlers = [inbox.insert]", lambda ns, v: ns["handlers"][0](0, v)),
    "handler_partial": ("handlers = [functools.partial(inbox.append)]", lambda ns, v: ns["handlers"][0](v)),
    "handler_partial_of_unbound_append": ("handlers = [functools.partial(list.append, inbox)]",
                                          lambda ns, v: ns["handlers"][0](v)),
    "handler_partial_of_setitem": ("handlers = [functools.partial(operator.setitem, box, 'k')]",
                                   lambda ns, v: ns["handlers"][0](v)),
    "handler_lru_cache": ("handlers = [functools.lru_cache(inbox.append)]", lambda ns, v: ns["handlers"][0](v)),
}


# what the cases' own code stores beside the host's value (a key, a default)
_PLACED_BY_THE_GUEST = ("NoneType None", "str 'k'")


@pytest.mark.parametrize(("value", "seen"), HOST_VALUES)
@pytest.mark.parametrize(("code", "call"), LEFT_FOR_THE_HOST.values(), ids=LEFT_FOR_THE_HOST.keys())
def test_a_host_callable_the_guest_leaves_for_the_host_enters_its_arguments(
        code: str, call: Any, value: Any, seen: str) -> None:
    ns = safe_exec(_STORE + code)
    call(ns, value)
    assert [k for k in ns["probe"]() if k not in _PLACED_BY_THE_GUEST] == [seen]


def test_a_host_tool_calling_back_a_stored_c_method_hands_the_guest_entered_objects() -> None:
    # the review's shape: a framework tool calls ``obj.on_event(host_obj)`` on what it is given
    def fire(obj: Any) -> None:
        obj.on_event(os)
        obj(os)

    code = (KIND + "seen = []\nclass O:\n    __call__ = seen.append\no = O()\no.on_event = seen.append\n"
            "fire(o)\n[kind(v) for v in seen]")
    assert safe_eval(code, {"fire": fire}, policy=parse_policy("allow fire(*)")) == ["Refused", "Refused"]


def test_host_deepcopy_never_hands_its_memo_to_a_guest_hook() -> None:
    # the host fills its memo after the hook returns (the originals it copies, kept alive in it):
    # a hook keeping the memo would read them raw later
    ns = safe_exec("sink = []\nclass R:\n    def __deepcopy__(self, memo):\n        sink.append(memo)\n"
                   "        return self\nr = R()\ns = R()\ns.__deepcopy__ = sink.append\n"
                   "t = R()\nobject.__setattr__(t, '__deepcopy__', sink.append)\n"
                   "def probe():\n    return [sorted(type(v).__name__ for v in m.values()) for m in sink]\n")
    copy.deepcopy([ns["r"], eval, os.system, ns["s"], object(), ns["t"], [1]])
    assert ns["probe"]() == [[], [], []]


def test_guest_code_still_sees_the_callables_it_stored() -> None:
    code = (
        "xs = []\nclass O:\n    h = len\n    __call__ = xs.append\n"
        "o = O()\no.f = print\no.g = xs.append\nap = xs.append\n"
        "ap(1)\no.g(2)\no(3)\nvars(o)['k'] = xs.extend\no.k([4])\n"
        "(o.f is print, O.h is len, vars(o)['f'] is print, ap == xs.append, type(ap).__name__,\n"
        " getattr(o, 'g') == xs.append, o.h([1, 2]), xs)"
    )
    assert safe_eval(code) == (True, True, True, True, "builtin_function_or_method", True, 2, [1, 2, 3, 4])


def test_a_method_captured_by_a_match_class_pattern_is_a_value_too() -> None:
    ns = safe_exec(KIND + "inbox = []\nmatch inbox:\n    case list(append=f):\n        handler = f\n"
                   "def probe():\n    return [kind(v) for v in inbox]\n")
    ns["handler"](os)
    assert ns["probe"]() == ["Refused"]


def test_a_stored_c_method_read_back_and_handed_on_stays_behind_its_door() -> None:
    ns = safe_exec(KIND + "inbox = []\nclass O:\n    pass\no = O()\no.on_event = inbox.append\n"
                   "handlers = [vars(o)['on_event'], vars(o).get('on_event'), o.on_event,\n"
                   "            getattr(o, 'on_event'), *vars(o).values()]\n"
                   "def probe():\n    return [kind(v) for v in inbox]\n")
    for handler in ns["handlers"]:
        handler(os)
    assert ns["probe"]() == ["Refused"] * 5


def test_an_enum_member_whose_value_is_a_host_callable_stays_a_member() -> None:
    # enum's namespace refuses a second binding of a member name: the value is member data
    # (``E.f.value``), not a class attribute a slot or a by-name call reaches, so it is kept
    code = "import enum\nclass E(enum.Enum):\n    A = 1\n    f = len\n([m.name for m in E], E.f.value is len)"
    assert safe_eval(code) == (["A", "f"], True)


# -- guest objects host code built or filled ---------------------------------------------------
# A guest class deriving from a host container or exception is host-callable without a guest
# function in between: ``L(items)`` runs ``list.__init__``, which stores its arguments as they
# are. A tool given such a class as a callback (or handed a guest object) builds or fills guest
# data with its own objects; guest-made values used to cross the door "as they are", so the
# raw host ``eval`` reached guest code and ran model text with host rights. The guest code below
# is the attacker's: it tries to call what came back. ``_SAFE``: it must not get 42.

_TRY = (KIND + "def attempt(v):\n    try:\n        return v('6 * 7')\n"
        "    except Exception as e:\n        return type(e).__name__\n")


def _build(factory: Any) -> Any:
    return factory([eval])


def _build_one(factory: Any) -> Any:
    return factory(eval)


def _build_map(factory: Any) -> Any:
    return factory({"k": eval})


def _build_nested(factory: Any) -> Any:
    return [factory([eval])]


def _raise_built(factory: Any) -> Any:
    raise factory(eval)


def _hand_back(factory: Any, callback: Any) -> Any:
    return callback(factory([eval]))


def _fill(obj: Any) -> None:
    obj.result = eval
    obj.results = [eval]
    obj.inbox.append(eval)
    obj.pair = (eval, 1)
    obj.child.box["k"] = eval
    obj.later = type(obj)()
    obj.later.deep = {"k": [eval]}
    obj.method.cb = [eval]
    type(obj).hook = [eval]
    obj.slotted.box = [eval]


_HOST_BUILT = {
    "list_subclass_returned": ("class L(list):\n    pass\nv = build(L)[0]", _build),
    "dict_subclass_returned": ("class D(dict):\n    pass\nv = build_map(D)['k']", _build_map),
    "exception_subclass_returned": ("class E(Exception):\n    pass\nv = build_one(E).args[0]", _build_one),
    "list_subclass_in_a_list": ("class L(list):\n    pass\nv = build_nested(L)[0][0]", _build_nested),
    "exception_subclass_raised": ("class E(Exception):\n    pass\ntry:\n    raise_built(E)\n"
                                  "except E as e:\n    v = e.args[0]", _raise_built),
    "list_subclass_handed_to_a_guest_callback": ("class L(list):\n    pass\n"
                                                 "def cb(items):\n    return (kind(items[0]), attempt(items[0]))\n"
                                                 "v = hand_back(L, cb)",
                                                 _hand_back),
}
_HOST_BUILT_ENV = {"build": _build, "build_one": _build_one, "build_map": _build_map,
                   "build_nested": _build_nested, "raise_built": _raise_built, "hand_back": _hand_back}
_HOST_BUILT_POLICY = "\n".join(f"allow {name}(*)" for name in _HOST_BUILT_ENV)


@pytest.mark.parametrize("code", [c for c, _ in _HOST_BUILT.values()], ids=list(_HOST_BUILT))
def test_a_guest_container_or_exception_built_by_a_tool_enters_with_its_contents_entered(code: str) -> None:
    # e.g. ``l = build(L); l[0]("__import__('os').system(...)")`` with ``L`` a list subclass
    # a refused whole value is a safe outcome too: the guest's ``[0]`` on it is a TypeError
    body = "".join("    " + line + "\n" for line in code.splitlines())
    try:
        got = safe_eval(_TRY + "def grab():\n" + body + "    return v\ntry:\n    v = grab()\n"
                        "except TypeError as e:\n    v = 'refused: ' + str(e)\n"
                        "v if type(v) is tuple else (kind(v), attempt(v))", _HOST_BUILT_ENV,
                        policy=parse_policy(_HOST_BUILT_POLICY))
    except PolicyViolation as refused:  # calling a refused value ends the run
        assert refused.diagnostics[0].code == "E401"
        return
    assert "built-in function eval" not in got[0]
    assert got[1] != 42


@pytest.mark.parametrize("read", ["vars(o)['result']", "o.results[0]", "o.inbox[0]",
                                  "[v for k, v in vars(o).items() if k == 'result'][0]",
                                  "o.pair[0]", "o.child.box['k']", "o.later.deep['k'][0]",
                                  "o.method.cb[0]", "O.hook[0]", "o.slotted.box[0]"])
def test_what_a_tool_writes_into_a_guest_object_it_was_handed_enters_before_the_guest_reads_it(read: str) -> None:
    code = (_TRY + "class O:\n    pass\nclass S:\n    __slots__ = ('box',)\ndef method():\n    pass\n"
            "o = O()\no.inbox = []\no.child = O()\no.child.box = {}\no.method = method\no.slotted = S()\n"
            "fill(o)\nv = " + read +
            "\n(kind(v), attempt(v))")
    try:
        got = safe_eval(code, {"fill": _fill}, policy=parse_policy("allow fill(*)"))
    except PolicyViolation as refused:
        assert refused.diagnostics[0].code == "E401"
        return
    assert got[0] in ("Refused",)
    assert got[1] != 42


def test_what_a_guest_object_held_before_a_tool_call_stays_as_it_was() -> None:
    # only what the tool wrote is entered: the guest's own iterators and views are kept as
    # they are (a callable iterator would enter as a host iterator wrapper)
    code = ("class O:\n    pass\no = O()\nticks = [1, 2, 3]\nit = iter(ticks.pop, 0)\n"
            "o.items = [it, {'a': 1}.keys()]\nnext(it)\nlook(o)\n"
            "(type(o.items[0]).__name__, next(o.items[0]), type(o.items[1]).__name__, o.items[0] is it)")
    got = safe_eval(code, {"look": lambda obj: None}, policy=parse_policy("allow look(*)"))
    assert got == ("callable_iterator", 2, "dict_keys", True)


_KEPT: list[Any] = []


def _keep(obj: Any) -> None:
    _KEPT.append(obj)


def _write_kept() -> None:
    for obj in _KEPT:
        obj.result = eval


def test_a_guest_object_a_tool_kept_and_writes_into_later_enters_too() -> None:
    _KEPT.clear()
    code = _TRY + "class O:\n    pass\no = O()\nkeep(o)\nwrite_kept()\nv = vars(o)['result']\n(kind(v), attempt(v))"
    try:
        got = safe_eval(code, {"keep": _keep, "write_kept": _write_kept},
                        policy=parse_policy("allow keep(*)\nallow write_kept(*)"))
    except PolicyViolation as refused:
        assert refused.diagnostics[0].code == "E401"
        return
    finally:
        _KEPT.clear()
    assert got[0] == "Refused"
    assert got[1] != 42


def _keep_from(items: Any) -> None:
    _KEPT.extend(items)  # a plain container's copy, holding the guest's objects as they are


def _make_kept(cls: Any) -> Any:
    made = cls()
    _KEPT.append(made)  # a tool that builds a guest object and keeps it
    return made


def _write_nested() -> None:
    for obj in _KEPT:
        obj.box["k"].append(eval)


def _write_dunder() -> None:
    for cls in _KEPT:
        cls.__call__ = eval  # ``o(...)`` of an instance would run the host's eval


def _write_function_attribute() -> None:
    for fn in _KEPT:
        fn.cb = eval


def _write_kept_slot() -> None:
    for obj in _KEPT:
        obj.box = [eval]


# What a tool kept (from an earlier call) and writes into in a later call, read by the guest
# after that call: through its own object, a nested container, a class dunder, a function's
# attribute, a slot; kept from a plain container's copy, or built and returned by the tool.
_KEPT_CASES = {
    "attribute": ("o = O()\nkeep(o)\nwrite_kept()", "vars(o)['result']"),
    "nested_container": ("o = O()\no.box = {'k': []}\ninner = o.box['k']\nkeep(o)\nwrite_nested()",
                         "inner[0]"),
    "class_dunder": ("keep(O)\nwrite_dunder()", "O.__call__"),
    "function_attribute": ("def f():\n    pass\nkeep(f)\nwrite_function_attribute()", "f.cb"),
    "slot": ("class S:\n    __slots__ = ('box',)\no = S()\nkeep(o)\nwrite_kept_slot()", "o.box[0]"),
    "item_of_a_plain_list": ("o = O()\nkeep_from([o])\nwrite_kept()", "o.result"),
    "built_and_returned": ("o = make_kept(O)\nwrite_kept()", "o.result"),
}
_KEPT_ENV = {"keep": _keep, "write_kept": _write_kept, "keep_from": _keep_from, "make_kept": _make_kept,
             "write_nested": _write_nested, "write_dunder": _write_dunder,
             "write_function_attribute": _write_function_attribute, "write_kept_slot": _write_kept_slot}
_KEPT_POLICY = parse_policy("\n".join(f"allow {n}(*)" for n in _KEPT_ENV))


def _kept_outcome(run: Any) -> Any:
    _KEPT.clear()
    try:
        return run()
    except PolicyViolation as refused:  # calling a refused value ends the run
        assert refused.diagnostics[0].code == "E401"
        return ("Refused", "refused")
    finally:
        _KEPT.clear()


@pytest.mark.parametrize(("setup", "read"), _KEPT_CASES.values(), ids=_KEPT_CASES.keys())
def test_what_a_tool_writes_later_into_a_guest_object_it_kept_enters_before_the_guest_reads_it(
        setup: str, read: str) -> None:
    code = _TRY + "class O:\n    pass\n" + setup + "\nv = " + read + "\n(kind(v), attempt(v))"
    got = _kept_outcome(lambda: safe_eval(code, dict(_KEPT_ENV), policy=_KEPT_POLICY))
    assert got[0] == "Refused"
    assert got[1] != 42


@pytest.mark.parametrize(("setup", "read"), [_KEPT_CASES[k] for k in ("attribute", "nested_container",
                                                                    "class_dunder", "function_attribute")],
                         ids=["attribute", "nested_container", "class_dunder", "function_attribute"])
def test_a_write_by_a_tool_of_a_later_run_on_the_same_env_into_what_an_earlier_run_handed_enters_too(
        setup: str, read: str) -> None:
    # run 1 hands the object to ``keep``; run 2, on the same env, calls the writer and reads
    keep_part, _, write = setup.rpartition("\n")
    evaluator = Evaluator(policy=_KEPT_POLICY)
    env: dict[str, Any] = dict(_KEPT_ENV)

    def both() -> Any:
        evaluator.exec(_TRY + "class O:\n    pass\n" + keep_part, env)
        assert _KEPT
        return evaluator.eval(write + "\nv = " + read + "\n(kind(v), attempt(v))", env)

    got = _kept_outcome(both)
    assert got[0] == "Refused"
    assert got[1] != 42


def test_a_tool_writing_into_a_kept_object_while_a_guest_callback_runs_is_entered_first() -> None:
    # the callback of a later tool call reads the kept object: the writer's call re-walks it
    def write_then_call(callback: Any) -> Any:
        _write_kept()
        return callback()

    # (the callback keeps what it read: what it returns goes back through the tool's result)
    code = (_TRY + "class O:\n    pass\no = O()\nkeep(o)\nseen = []\ndef cb():\n"
            "    seen.append(vars(o)['result'])\nwrite_then_call(cb)\nv = seen[0]\n(kind(v), attempt(v))")
    env = {**_KEPT_ENV, "write_then_call": write_then_call}
    policy = parse_policy("\n".join(f"allow {n}(*)" for n in env))
    got = _kept_outcome(lambda: safe_eval(code, env, policy=policy))
    assert got[0] == "Refused"
    assert got[1] != 42


def test_the_host_calling_a_guest_function_after_a_tool_wrote_into_a_kept_object_sees_it_entered() -> None:
    # outside any run: a host call of a function the run defined walks what its tools kept
    env: dict[str, Any] = dict(_KEPT_ENV)

    def run() -> Any:
        safe_exec(_TRY + "class O:\n    pass\no = O()\nkeep(o)\ndef read():\n    v = vars(o)['result']\n"
                  "    return (kind(v), attempt(v))", env, policy=_KEPT_POLICY)
        _write_kept()  # the host's tool, called by the host application itself now
        return env["read"]()

    got = _kept_outcome(run)
    assert got[0] == "Refused"
    assert got[1] != 42


def test_what_a_tool_kept_and_wrote_into_between_two_runs_on_the_same_env_enters_as_the_next_starts() -> None:
    # no tool call in the second run: its start walks what tools of earlier runs kept
    evaluator = Evaluator(policy=_KEPT_POLICY)
    env: dict[str, Any] = dict(_KEPT_ENV)

    def run() -> Any:
        evaluator.exec(_TRY + "class O:\n    pass\no = O()\no.inbox = []\nkeep(o)", env)
        for obj in _KEPT:
            obj.inbox.append(eval)  # the tool's host code, outside any call
        return evaluator.eval("v = o.inbox[0]\n(kind(v), attempt(v))", env)

    got = _kept_outcome(run)
    assert got[0] == "Refused"
    assert got[1] != 42


def _noop(*args: Any) -> None:
    return None


_BIG_GRAPH = ("class O:\n    pass\nroot = O()\nroot.items = []\nfor i in range(1000):\n    c = O()\n"
              "    c.v = [i]\n    root.items.append(c)\nkeep(root)\n")


def test_many_tool_calls_after_handing_a_big_graph_are_charged_to_the_run() -> None:
    # every tool call re-walks the kept graph (1000 objects, twice): its visits are operations
    # of the run, so a long loop of tool calls meets the ops limit, a typed error, not a hang
    env = {**_KEPT_ENV, "noop": _noop}
    policy = parse_policy("\n".join(f"allow {n}(*)" for n in env) + "\nlimits ops 150_000, time 60s")
    _KEPT.clear()
    try:
        assert safe_eval(_BIG_GRAPH + "for _ in range(10):\n    noop(1)\n'done'", env, policy=policy) == "done"
        with pytest.raises(OpLimit):
            safe_eval(_BIG_GRAPH + "for _ in range(200):\n    noop(1)\n'done'", env, policy=policy)
    finally:
        _KEPT.clear()


@pytest.mark.parametrize("cls", ["class O:\n    pass\n",
                                 "class O:\n    __slots__ = ('items',)\n"], ids=["weakly", "slotted"])
def test_what_a_tool_kept_is_not_walked_again_once_the_guest_dropped_it(cls: str) -> None:
    # a loop handing a fresh object to each call: the objects the guest dropped are not walked
    # again (the cost stays per call, not growing with the number of calls); an object that
    # takes no weak reference is dropped once the registry is all that holds it
    env = {**_KEPT_ENV, "noop": _noop}
    policy = parse_policy("\n".join(f"allow {n}(*)" for n in env) + "\nlimits ops 2_000_000")
    code = (cls + "for i in range(3000):\n    o = O()\n    o.items = [[i] for _ in range(20)]\n"
            "    noop(o)\n'done'")
    assert safe_eval(code, env, policy=policy) == "done"


# A thread a tool starts writes at any time, also while guest code runs, with no tool call to
# bracket: no in-process walk closes that. The exit check refuses a raw host value read as an
# attribute, but a container a guest object holds passes unchecked, and C code (``sorted``,
# ``list(...)``) reads its items with no hook a read barrier could use. The process sandbox
# closes it: there the tools run in the host process and get decoded copies, and a guest object
# never reaches them at all.
def _start_writer(obj: Any) -> None:
    import threading

    def later() -> None:
        time.sleep(0.05)
        (obj if isinstance(obj, list) else obj.items).append(eval)

    threading.Thread(target=later, daemon=True).start()


_WRITER_POLICY = parse_policy("allow start_writer(*)\nlimits time 20s")
_THREAD_WRITES_INTO_AN_OBJECT = ("class O:\n    pass\no = O()\no.items = []\nstart_writer(o)\nn = 0\n"
                                 "while not o.items and n < 2_000_000:\n    n += 1\n"
                                 "v = o.items[0] if o.items else None\ntype(v).__name__")
_THREAD_WRITES_INTO_A_LIST = ("items = []\nstart_writer(items)\nn = 0\nwhile not items and n < 200_000:\n"
                              "    n += 1\nlen(items)")


@pytest.mark.xfail(strict=True, reason="open in process: a thread a tool starts writes into a guest "
                   "object while guest code runs (no bracket; the process sandbox closes it)")
def test_a_thread_a_tool_starts_cannot_write_a_host_object_into_a_guest_object_in_process() -> None:
    got = safe_eval(_THREAD_WRITES_INTO_AN_OBJECT, {"start_writer": _start_writer}, policy=_WRITER_POLICY)
    assert got == "NoneType"


def test_under_the_process_sandbox_no_tool_thread_can_write_into_what_the_guest_holds() -> None:
    from safe_eval.errors import SandboxValueError

    # a guest object never reaches a tool there: the call is refused with a typed error
    with pytest.raises(SandboxValueError):
        safe_eval(_THREAD_WRITES_INTO_AN_OBJECT, {"start_writer": _start_writer}, policy=_WRITER_POLICY,
                  sandbox="subprocess")
    # plain data reaches it as a decoded copy: what its thread appends never reaches the guest
    assert safe_eval(_THREAD_WRITES_INTO_A_LIST, {"start_writer": _start_writer}, policy=_WRITER_POLICY,
                     sandbox="subprocess") == 0


# -- guest objects a tool returns, raises, calls back with, or writes dunders on (rt-door2) ------
# The bracket of a tool call (handed.py) re-checked the objects the tool was handed, after it
# returned. Guest objects also reach the guest from a tool in other ways: the value it returns,
# the exception it raises, the arguments of a guest callback it calls while it runs (before the
# bracket closes), and a class's dunder/private entries. Each case: a plausible tool doing
# ordinary host things with guest objects and its own host object (here ``eval``).


def _return_new(obj: Any) -> Any:
    made = type(obj)()
    made.x = eval
    return made


def _return_new_in_list(obj: Any) -> Any:
    return [_return_new(obj)]


def _return_new_in(container: Any, obj: Any) -> Any:
    return container([_return_new(obj)])


def _raise_filled(cls: Any) -> None:
    error = cls()
    error.x = eval
    raise error


def _raise_host_error_holding(obj: Any) -> None:
    raise ValueError(_return_new(obj))


def _raise_with_notes(cls: Any) -> None:
    error = cls()
    error.__notes__ = [eval]
    raise error


def _raise_from_filled(cls: Any) -> None:
    cause = cls()
    cause.x = eval
    raise cls() from cause


def _call_back_with(obj: Any, callback: Any) -> Any:
    obj.x = eval
    return callback(obj)


def _call_back_after(obj: Any, callback: Any) -> Any:
    obj.x = eval
    return callback()


def _call_back_with_new(obj: Any, callback: Any) -> Any:
    return callback(_return_new(obj))


def _fire_event(obj: Any) -> None:
    obj.on_event(_return_new(obj))


_FROM_A_TOOL = {
    "returned_new_instance": "o = return_new(O())\nv = vars(o)['x']",
    "returned_new_instance_in_a_list": "o = return_new_in_list(O())[0]\nv = vars(o)['x']",
    "returned_new_instance_in_a_guest_list": "class L(list):\n    pass\no = return_new_in(L, O())[0]\n"
                                             "v = vars(o)['x']",
    "raised_guest_exception_attribute": "try:\n    raise_filled(E)\nexcept E as o:\n    v = vars(o)['x']",
    "raised_host_exception_holding_a_new_instance": "try:\n    raise_host_error_holding(O())\n"
                                                    "except ValueError as e:\n    v = vars(e.args[0])['x']",
    "raised_guest_exception_notes": "try:\n    raise_with_notes(E)\nexcept E as o:\n    v = o.__notes__[0]",
    "raised_guest_exception_cause": "try:\n    raise_from_filled(E)\nexcept E as o:\n    v = vars(o.__cause__)['x']",
    # (the callback uses the value while the tool runs: what it returns goes back through the tool)
    "callback_handed_the_object": "def cb(o):\n    seen.append(vars(o)['x'])\ncall_back_with(O(), cb)\nv = seen[0]",
    "callback_reading_a_global": "o = O()\ndef cb():\n    seen.append(vars(o)['x'])\ncall_back_after(o, cb)\n"
                                 "v = seen[0]",
    "callback_handed_a_new_instance": "def cb(o):\n    seen.append(vars(o)['x'])\ncall_back_with_new(O(), cb)\n"
                                      "v = seen[0]",
    "stored_c_method_called_back": "inbox = []\no = O()\no.on_event = inbox.append\nfire_event(o)\n"
                                   "v = vars(inbox[0])['x']",
}
_FROM_A_TOOL_ENV = {"return_new": _return_new, "return_new_in_list": _return_new_in_list,
                    "return_new_in": _return_new_in,
                    "raise_filled": _raise_filled, "raise_host_error_holding": _raise_host_error_holding, "raise_with_notes": _raise_with_notes,
                    "raise_from_filled": _raise_from_filled, "call_back_with": _call_back_with,
                    "call_back_after": _call_back_after, "call_back_with_new": _call_back_with_new,
                    "fire_event": _fire_event}


@pytest.mark.parametrize("code", _FROM_A_TOOL.values(), ids=_FROM_A_TOOL.keys())
def test_a_guest_object_a_tool_returns_raises_or_calls_back_with_enters_with_what_it_holds(code: str) -> None:
    try:
        got = safe_eval(_TRY + "class O:\n    pass\nclass E(Exception):\n    pass\nseen = []\n" + code +
                        "\n(kind(v), attempt(v))", _FROM_A_TOOL_ENV,
                        policy=parse_policy("\n".join(f"allow {n}(*)" for n in _FROM_A_TOOL_ENV)))
    except PolicyViolation as refused:
        assert refused.diagnostics[0].code == "E401"
        return
    assert got[0] == "Refused"
    assert got[1] != 42


def _set_dunder(obj: Any, name: str) -> None:
    setattr(type(obj), name, eval)


@pytest.mark.parametrize(("name", "use"), [("__call__", "o('6 * 7')"), ("__getitem__", "o['6 * 7']")])
def test_a_dunder_a_tool_sets_on_the_class_of_a_guest_object_enters(name: str, use: str) -> None:
    # ``type(obj).__call__ = host_fn``: the guest's ``o(text)`` ran the host function raw
    try:
        got = safe_eval(f"class O:\n    pass\no = O()\nset_dunder(o, {name!r})\n{use}",
                        {"set_dunder": _set_dunder}, policy=parse_policy("allow set_dunder(*)"))
    except PolicyViolation as refused:
        assert refused.diagnostics[0].code == "E401"
        return
    assert got != 42


def _for_each(obj: Any, callback: Any) -> None:
    for item in obj.items:
        callback(item)


@pytest.mark.parametrize("callback", ["n.append", "cb"])
def test_a_tool_calling_back_per_item_of_a_large_handed_graph_ends_at_the_run_time_limit(callback: str) -> None:
    # each callback re-walks what the tool was handed (n callbacks over n objects: n*n visits);
    # the walk runs on the run's CPU time, so it ends with the run's TimeLimit near its deadline
    # (it ran 12 s past a 1 s limit while the tool held the thread)
    code = ("class O:\n    pass\no = O()\no.items = [O() for _ in range(N)]\nn = []\n"
            "def cb(x):\n    n.append(x)\nfor_each(o, " + callback + ")\nlen(n)")
    tools, policy = {"for_each": _for_each}, parse_policy("allow for_each(*)")
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        safe_eval(code.replace("N", "3000"), tools, policy=policy, limits={"time": 1.0})
    assert time.monotonic() - start < 4.0
    assert safe_eval(code.replace("N", "50"), tools, policy=policy) == 50


# -- builtin iterators and dict views a tool returns (rt-door2) ---------------------------------
# ``list_iterator``, ``dict_values``, ``zip``, ``map`` ... are listed host types (the guest's own
# are admitted as they are), but one a tool returns holds whatever the tool gave it: ``return
# iter(results)`` handed the guest raw ``eval``. The entry converts them (``crossing._host_items``).
_ITERABLES = {
    "list_iterator": (lambda: iter([eval]), "next(it())"),
    "tuple_iterator": (lambda: iter((eval,)), "next(it())"),
    "dict_value_iterator": (lambda: iter({"k": eval}.values()), "next(it())"),
    "dict_values_view": (lambda: {"k": eval}.values(), "list(it())[0]"),
    "dict_items_view": (lambda: {"k": eval}.items(), "list(it())[0][1]"),
    "reversed": (lambda: reversed([eval]), "next(it())"),
    "enumerate": (lambda: enumerate([eval]), "next(it())[1]"),
    "zip": (lambda: zip([eval]), "next(it())[0]"),
    "map": (lambda: map(lambda v: v, [eval]), "next(it())"),
    "filter": (lambda: filter(None, [eval]), "next(it())"),
    "iterator_of_a_guest_object_the_tool_filled": (None, "vars(next(it(O())))['x']"),
}


@pytest.mark.parametrize(("make", "read"), _ITERABLES.values(), ids=_ITERABLES.keys())
def test_a_builtin_iterator_or_view_a_tool_returns_enters_item_by_item(make: Any, read: str) -> None:
    tool = make if make is not None else (lambda obj: iter([_return_new(obj)]))
    try:
        got = safe_eval(_TRY + "class O:\n    pass\ntry:\n    v = " + read + "\nexcept TypeError as e:\n"
                        "    v = 'refused: ' + str(e)\n(kind(v), attempt(v))", {"it": tool},
                        policy=parse_policy("allow it(*)"))
    except PolicyViolation as refused:
        assert refused.diagnostics[0].code == "E401"
        return
    assert "built-in function eval" not in got[0]
    assert got[1] != 42


def test_builtin_iterators_and_views_of_plain_data_a_tool_returns_still_work() -> None:
    env = {"it": lambda: iter([1, 2]), "view": lambda: {"a": 1}.items(), "zipped": lambda: zip([1], "a")}
    got = safe_eval("(list(it()), list(view()), list(zipped()))", env,
                    policy=parse_policy("allow it(*)\nallow view(*)\nallow zipped(*)"))
    assert got == ([1, 2], [("a", 1)], [(1, "a")])


def test_a_guest_object_the_host_application_writes_into_and_hands_back_enters_with_what_it_holds() -> None:
    # outside any run: the host fills a guest object the run returned, then calls a guest
    # function with it (no tool call brackets it)
    ns = safe_exec(_TRY + "class O:\n    pass\ndef probe(o):\n    v = vars(o)['x']\n    return (kind(v), attempt(v))\n")
    obj = ns["O"]()
    obj.x = eval
    try:
        got = ns["probe"](obj)
    except PolicyViolation as refused:
        assert refused.diagnostics[0].code == "E401"
        return
    assert got[0] == "Refused"
    assert got[1] != 42


# -- host callables refused even as tools (``membrane/danger.py``) ------------------------------
class _Order:
    @classmethod
    def create(cls) -> _Order:
        return cls()


class _Meta(type):
    @classmethod
    def build(mcs) -> None:
        return None


class _CallMe:
    def __call__(self) -> int:
        return 1

    __hash__ = None  # type: ignore[assignment]  # an unhashable callable instance


def _nested_wrappers(depth: int) -> Any:
    """A host callable wrapped ``depth`` times, alternating partial and bound method (a partial
    of a partial is flattened by CPython; a bound method of a partial is not)."""
    fn: Any = _Order.create
    for i in range(depth):
        fn = functools.partial(fn) if i % 2 else types.MethodType(fn, _Order)
    return fn


def _formatter_class() -> type:
    import string

    class MyFormatter(string.Formatter):
        pass

    return MyFormatter


def _moduleless() -> Any:
    fn: Any = eval("lambda: 1", {})  # made where no ``__name__`` is: its ``__module__`` is None
    assert fn.__module__ is None
    return fn


DANGEROUS_TOOLS = [
    # found while covering danger.py: bound to an allowed type, these C methods were tools
    # (``object.__subclasses__()`` handed the guest every host class as a callable tool)
    pytest.param(object.__subclasses__, id="bound_object_subclasses"),
    pytest.param(int.mro, id="bound_mro"),
    pytest.param(object.__init_subclass__, id="bound_init_subclass"),
    pytest.param(type.__new__, id="bound_type_new"),
    pytest.param((1).__reduce_ex__, id="bound_reduce_ex"),
    pytest.param(type.__prepare__, id="builtin_bound_to_type"),
    # descriptors: object-model hooks, a method of a class of a system module
    pytest.param(object.__setattr__, id="object_setattr_descriptor"),
    pytest.param(type.__call__, id="type_call_descriptor"),
    pytest.param(__import__("io").StringIO.write, id="io_method_descriptor"),
    # a method bound to a module, to a metaclass; a callable whose class is a builtin type
    pytest.param(types.MethodType(lambda self: 0, os), id="method_bound_to_os"),
    pytest.param(_Meta.build, id="classmethod_of_a_metaclass"),
    pytest.param(__import__("weakref").ref(_Order), id="weakref_instance"),
    # classes: one of a system module, a subclass of a raw-getattr walker
    pytest.param(subprocess.Popen, id="class_of_subprocess"),
    # the classes behind the ``exit``/``help`` instances: Quitter closes the host's stdin,
    # _Helper starts pydoc on the host
    pytest.param(type(__import__("builtins").exit), id="class_of_sitebuiltins_quitter"),
    pytest.param(type(__import__("builtins").help), id="class_of_sitebuiltins_helper"),
    pytest.param(_formatter_class(), id="formatter_subclass"),
    pytest.param(_nested_wrappers(7), id="wrapped_too_deeply"),
    pytest.param(functools.reduce(lambda m, _: types.MethodType(len, m), range(5), 1), id="method_bound_to_a_method"),
]


@pytest.mark.parametrize("value", DANGEROUS_TOOLS)
def test_a_dangerous_host_callable_in_env_is_refused_not_a_tool(value: Any) -> None:
    assert safe_eval(KIND + "kind(x)", {"x": value}) == "Refused"
    with pytest.raises(PolicyViolation) as info:
        safe_eval("x()", {"x": value})
    assert info.value.diagnostics[0].code == "E401"


def test_a_host_subclasses_list_is_never_handed_over_as_tools() -> None:
    # the class of each is a tool the guest could construct (a file-writing class among them)
    with pytest.raises(PolicyViolation):
        safe_eval("[repr(c) for c in subs()]", {"subs": object.__subclasses__})


HARMLESS_TOOLS = [
    pytest.param(_Order.create, id="classmethod_of_a_host_class"),
    pytest.param(_CallMe(), id="unhashable_callable_instance"),
    pytest.param(object.__sizeof__, id="unlisted_slot_of_object"),
    pytest.param(dict.fromkeys, id="builtin_classmethod"),
    pytest.param(_nested_wrappers(4), id="wrapped_a_few_times"),
    pytest.param(types.MethodType(lambda self: 1, []), id="host_function_bound_to_data"),
    pytest.param(_moduleless(), id="function_of_no_module"),
]


@pytest.mark.parametrize("value", HARMLESS_TOOLS)
def test_a_harmless_host_callable_in_env_is_a_tool(value: Any) -> None:
    assert safe_eval(KIND + "kind(x)", {"x": value}) == "Tool"


# -- what env hands over, by kind (``crossing._enter``) -------------------------------------------
def _nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def _bottom(code: str) -> str:
    return "x = v\nwhile type(x) is list:\n    x = x[0]\n" + code


def test_a_slice_holding_a_host_function_enters_with_the_function_refused() -> None:
    # a slice was admitted as it is, whatever it held; now it is a container like the others
    assert safe_eval(KIND + "kind(s.stop)", {"s": slice(1, os.system)}) == "Refused"
    assert safe_eval("(s.start, s.stop)", {"s": slice(1, [2])}) == (1, [2])


@pytest.mark.parametrize("leaf", [pytest.param(lambda: 1, id="function"), pytest.param({}.keys(), id="dict_view")])
def test_host_data_nested_past_the_entry_depth_is_refused_there(leaf: Any) -> None:
    assert safe_eval(KIND + _bottom("kind(x)"), {"v": _nested(101, leaf)}) == "Refused"
    assert safe_eval(KIND + _bottom("kind(x)"), {"v": _nested(3, leaf)}) != "Refused"


def test_a_guest_list_nested_past_the_entry_depth_is_refused_there() -> None:
    made = safe_exec("class L(list):\n    pass\nl = L([len])\n")["l"]
    assert safe_eval(KIND + _bottom("kind(x)"), {"v": _nested(101, made)}) == "Refused"


REGISTERED_CONTAINERS = [
    pytest.param(__import__("collections").Counter("aab"), True, id="counter_of_scalars"),
    pytest.param(__import__("collections").deque([1, 2]), True, id="deque_of_scalars"),
    pytest.param(__import__("collections").deque([1, os.system]), False, id="deque_holding_a_host_function"),
    pytest.param(__import__("collections").OrderedDict(a=os.system), False, id="mapping_holding_a_host_function"),
    pytest.param(__import__("collections").defaultdict(list), True, id="defaultdict_of_a_listed_type"),
    pytest.param(__import__("collections").defaultdict(os.getcwd), False, id="defaultdict_of_a_host_function"),
    pytest.param(__import__("collections").namedtuple("Pair", "a b")(1, os.system), False,
                 id="namedtuple_holding_a_host_function"),
]


@pytest.mark.parametrize(("value", "as_is"), REGISTERED_CONTAINERS)
def test_a_listed_container_type_enters_as_is_only_holding_plain_data(value: Any, as_is: bool) -> None:
    seen = safe_eval(KIND + "kind(v)", {"v": value})
    assert (seen != "Refused") is as_is


def test_a_host_dict_holding_a_host_function_enters_as_a_copy_with_a_tool() -> None:
    host = {"f": lambda: 1, "n": 2}
    assert safe_eval(KIND + "(kind(d['f']), d['f'](), d is not None)", {"d": host}) == ("Tool", 1, True)
    assert callable(host["f"])  # the host's own dict is unchanged


def test_a_metaclass_in_env_is_refused() -> None:
    import abc

    assert safe_eval(KIND + "kind(M)", {"M": abc.ABCMeta}) == "Refused"


def test_a_class_of_safe_eval_itself_in_env_is_opaque() -> None:
    from safe_eval import Evaluator

    with pytest.raises(GuestError, match="cannot create 'Evaluator' instances"):
        safe_eval("E()", {"E": Evaluator})


@pytest.mark.parametrize(("tools", "message"), [
    pytest.param({"not a name": len}, "tool names must be identifiers", id="bad_name"),
    pytest.param({"t": 3}, "tool 't' must be a host function or class", id="not_callable"),
    pytest.param({"t": safe_exec("def f():\n    pass\n")["f"]}, "tool 't' must be a host function or class",
                 id="guest_function"),
])
def test_tools_the_host_names_must_be_host_callables_under_identifiers(tools: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        safe_eval("1", tools=tools)


def test_a_guest_container_subclass_called_back_by_host_code_is_handed_over_as_itself() -> None:
    code = "class L(list):\n    pass\nitems = [L([2]), L([1])]\nout = sorted(items, key=lambda x: x[0])\nout[0] is items[1]"
    assert safe_eval(code) is True


# -- host exceptions as the guest catches them (``crossing.guest_exception``) --------------------
def _raiser(exc: BaseException) -> Any:
    def tool() -> None:
        raise exc

    return tool


def test_host_objects_in_a_caught_host_exceptions_args_are_placeholders() -> None:
    import datetime

    day = datetime.date(2020, 1, 2)
    exc = ValueError({"k": object(), "n": 1}, {"plain": [1]}, day)
    got = safe_eval("try:\n    t()\nexcept ValueError as e:\n    r = e.args\nr", {"t": _raiser(exc)})
    assert got[0] == {"k": "<object object>", "n": 1}
    assert got[1] == {"plain": [1]} and got[2] == day
    assert isinstance(exc.args[0]["k"], object) and exc.args[0]["k"] != "<object object>"  # the host's own


def test_a_caught_attribute_errors_name_is_text_or_none() -> None:
    exc = AttributeError("gone", name=5)  # type: ignore[arg-type]
    got = safe_eval("try:\n    t()\nexcept AttributeError as e:\n    r = e.name\nr", {"t": _raiser(exc)})
    assert got is None


def test_a_run_error_a_tool_caught_is_not_chained_to_what_it_raises() -> None:
    from safe_eval.errors import GuestError as RunError

    def tool() -> None:
        try:
            safe_eval("1 / 0")
        except RunError:
            raise ValueError("wrapped") from None

    def chained() -> None:
        try:
            safe_eval("1 / 0")
        except RunError as inner:
            raise ValueError("wrapped") from inner

    for fn in (tool, chained):
        code = "try:\n    t()\nexcept ValueError as e:\n    r = (e.__cause__, e.__context__)\nr"
        assert safe_eval(code, {"t": fn}) == (None, None)


# -- what a tool writes into the guest objects it is handed (``membrane/handed.py``) --------------
class _Writer:
    """Host tools writing host objects into the guest objects they are handed."""

    @staticmethod
    def into_dict_key(o: Any) -> None:
        o.d[os.system] = 1

    @staticmethod
    def into_set(o: Any) -> None:
        o.s.add(os.system)

    @staticmethod
    def into_slot(o: Any) -> None:
        o.x = os.system

    @staticmethod
    def callback_with_keywords(cb: Any) -> Any:
        return cb(v=os.system)


HANDED = (KIND + "class O:\n    def __init__(self):\n        self.d = {}\n        self.s = set()\n"
          "class S:\n    __slots__ = ('x', 'y')\n")


def test_a_host_key_a_tool_puts_in_a_guest_dict_enters() -> None:
    code = HANDED + "o = O()\nt(o)\nkind(list(o.d)[0])"
    assert safe_eval(code, {"t": _Writer.into_dict_key}) == "Refused"


def test_a_host_item_a_tool_adds_to_a_guest_set_enters() -> None:
    code = HANDED + "o = O()\nt(o)\nkind(list(o.s)[0])"
    assert safe_eval(code, {"t": _Writer.into_set}) == "Refused"


def test_a_host_value_a_tool_puts_in_a_guest_slot_enters_and_unset_slots_stay_unset() -> None:
    code = HANDED + "o = S()\nt(o)\n(kind(o.x), hasattr(o, 'y'))"
    assert safe_eval(code, {"t": _Writer.into_slot}) == ("Refused", False)


def test_a_guest_callback_a_tool_calls_with_keywords_receives_entered_values() -> None:
    code = KIND + "t(lambda v: kind(v))"
    assert safe_eval(code, {"t": _Writer.callback_with_keywords}) == "Refused"


def test_a_guest_exception_handed_to_a_tool_reaches_it() -> None:
    assert safe_eval("t(ValueError('x', [1]))", {"t": lambda e: (type(e).__name__, e.args)}) == ("ValueError", ("x", [1]))

