"""Red-team payloads found in the final review, through the public API: each was a real hole
before its fix (see the module named in the comment) and must now end in the safe outcome."""

from __future__ import annotations

from typing import Any

import pytest
from _attack_data import HOSTOBJS, TOKEN, planted_secret

from safe_eval import safe_eval
from safe_eval.errors import GuestError

ENV_NAMES = ["helper", "account", "Account", "get_module", "check_key", "fail"]

# a guest __deepcopy__ that hands back the memo copy.deepcopy passed it
GRAB = "import copy, re\nclass X:\n    def __deepcopy__(self, memo):\n        return memo\n"
# pull the curated re.Pattern's raw compiled pattern (no time bound) out of a memo
RAW = "for k in m:\n    v = m[k]\n    if type(v) is dict and '_compiled' in v:\n        raw = v['_compiled']\n"


@pytest.fixture(scope="module", autouse=True)
def _init() -> Any:
    yield from planted_secret()


def _run(code: str) -> Any:
    return safe_eval(code, HOSTOBJS.build_env(ENV_NAMES))


# modules/copy.py: deepcopy's memo held wrapper slot state (raw host objects behind proxies and
# tools, the unguarded compiled regex: a C-level ReDoS past the time limit). copy is now guest
# code (safe_eval/guestlib/copy.py) that never copies a wrapper: the memo is a plain dict
# holding only objects the guest already had
MEMO_BLOCKED = [
    ("memo_iterate_raw_regex",
     GRAB + "m = copy.deepcopy([re.compile('a*a*a*a*a*a*a*c'), X()])[1]\n" + RAW + "raw.match('a' * 3000)",
     "NameError"),
    ("memo_own_dict_raw_regex",
     "import copy, re\nm = {}\ncopy.deepcopy(re.compile('a*a*a*a*a*a*a*c'), m)\n" + RAW + "raw.match('a' * 3000)",
     "NameError"),
    ("memo_private_field", GRAB + "m = copy.deepcopy([account, X()])[1]\ngetattr(m, '_se' + 'en')", "AttributeError"),
    ("memo_proxy_raw_object",
     GRAB + "m = copy.deepcopy([get_module, X()])[1]\nfor k in m:\n    f = m[k]['_fn']\nf()",
     "TypeError"),
]


@pytest.mark.parametrize(("code", "error"), [c[1:] for c in MEMO_BLOCKED], ids=[c[0] for c in MEMO_BLOCKED])
def test_deepcopy_memo_is_opaque(code: str, error: str) -> None:
    with pytest.raises(GuestError) as info:
        _run(code)
    assert info.value.type_name == error
    assert TOKEN not in str(info.value)


# what the memo does hold: the originals copy keeps alive, as the guest passed them
MEMO_VISIBLE = [
    ("memo_get_by_id", GRAB + "m = copy.deepcopy([account, X()])[1]\n"
     "[[type(w).__name__ for w in v] if type(v) is list else type(v).__name__ for v in m.get(id(m))]"),
    ("memo_keep_alive_list", GRAB + "m = copy.deepcopy([account, X()])[1]\n"
     "[[type(w).__name__ for w in v] if type(v) is list else type(v).__name__ for v in m[id(m)]]"),
]


@pytest.mark.parametrize("code", [c[1] for c in MEMO_VISIBLE], ids=[c[0] for c in MEMO_VISIBLE])
def test_deepcopy_memo_holds_only_what_the_guest_passed(code: str) -> None:
    assert _run(code) == ["X", ["Account", "X"]]  # a proxy shows its host class name (issue 12)


def test_asdict_deepcopy_memo_is_opaque() -> None:
    # asdict deep-copies non-dataclass fields with the guest-stdlib deepcopy: the memo a guest
    # __deepcopy__ gets holds guest objects and the curated Pattern wrapper, never its state
    code = (GRAB + "import dataclasses\nclass G:\n    def __init__(self):\n"
            "        self.v = [re.compile('a*a*c'), X()]\n"
            "@dataclasses.dataclass\nclass D:\n    v: object\n"
            "g = dataclasses.asdict(D(G()))['v']\n"
            "m = g.v[1]\nsorted({type(v).__name__ for v in m.values()})")
    assert _run(code) == ["G", "dict", "list"]


def test_deepcopy_memo_still_shares_structure() -> None:
    # a guest __deepcopy__ passing its memo on keeps deepcopy's sharing and cycles
    code = ("import copy\nclass Node:\n    def __init__(self, v, kids):\n        self.v = v\n"
            "        self.kids = kids\n    def __deepcopy__(self, memo):\n"
            "        return Node(copy.deepcopy(self.v, memo), copy.deepcopy(self.kids, memo))\n"
            "a = [1]\nt = Node(a, [Node(a, []), a])\nu = copy.deepcopy(t)\n"
            "c = [1]\nc.append(c)\nd = copy.deepcopy(c)\n"
            "(u.v is u.kids[1], u.kids[0].v is u.v, u.v is not a, d[1] is d, d is not c)")
    assert _run(code) == (True, True, True, True, True)
