"""The thread's decimal context is host state: a guest may change it for its own arithmetic,
never for the host's. Found by red-teaming the `tamper` family: `getcontext().prec = 3` used to
outlive the evaluation and change every later Decimal computation of the host thread."""

from __future__ import annotations

import decimal
import threading
from collections.abc import Iterator

import pytest

from safe_eval import Limits, safe_eval
from safe_eval.errors import GuestError, LimitExceeded

TAMPER = {
        "prec_via_name": "import decimal\nc = decimal.getcontext()\nc.prec = 3",
    "rounding_setattr": "import decimal\nc = decimal.getcontext()\nsetattr(c, 'rounding', decimal.ROUND_DOWN)",
    "emax": "import decimal\nc = decimal.getcontext()\nc.Emax = 10",
    "then_limit": "import decimal\nc = decimal.getcontext()\nc.prec = 3\nwhile True:\n    pass",
    "then_guest_error": "import decimal\nc = decimal.getcontext()\nc.prec = 3\n1 / 0",
    "inside_localcontext_then_outer": (
        "import decimal\nwith decimal.localcontext() as c:\n    c.prec = 4\nc = decimal.getcontext()\nc.prec = 5"
    ),
}


def _snapshot() -> tuple[object, ...]:
    c = decimal.getcontext()
    return (c.prec, c.rounding, c.Emax, c.Emin, str(decimal.Decimal(1) / decimal.Decimal(3)))


@pytest.fixture
def host_context() -> Iterator[tuple[object, ...]]:
    with decimal.localcontext():  # whatever a test does, later tests start from the default
        yield _snapshot()


@pytest.mark.parametrize("code", TAMPER.values(), ids=TAMPER.keys())
def test_guest_changes_to_the_context_do_not_reach_the_host(code: str, host_context: tuple[object, ...]) -> None:
    try:
        safe_eval(code, limits=Limits(time=0.3))
    except (LimitExceeded, GuestError):
        pass
    assert _snapshot() == host_context


def test_guest_function_called_later_by_the_host(host_context: tuple[object, ...]) -> None:
    f = safe_eval("import decimal\ndef f():\n    c = decimal.getcontext()\n    c.prec = 2\n    return str(decimal.Decimal(2) / 3)\nf")
    assert f() == "0.67"
    assert _snapshot() == host_context


def test_the_guest_still_gets_its_own_setting(host_context: tuple[object, ...]) -> None:
    code = "import decimal\nc = decimal.getcontext()\nc.prec = 3\nstr(decimal.Decimal(1) / 3)"
    assert safe_eval(code) == "0.333"
    assert _snapshot() == host_context


def test_isolation_on_another_thread() -> None:
    seen: list[tuple[object, ...]] = []

    def work() -> None:
        before = _snapshot()
        safe_eval("import decimal\nc = decimal.getcontext()\nc.prec = 3")
        seen.append((before, _snapshot()))

    t = threading.Thread(target=work)
    t.start()
    t.join(10)
    assert seen and seen[0][0] == seen[0][1]
