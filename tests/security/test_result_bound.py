"""One bound for what the host does with results (issue 10, invariant 6).

Host calls into the objects a run returned (a decoded function, ``repr``/``==``/``hash``/
iteration of returned guest objects, resuming a returned generator) all draw on the run's
``ResultBound``: a sequence of such calls cannot multiply the run's limits, until the host
refills it with ``safe_eval.refill``.
"""

from __future__ import annotations

from typing import Any

import pytest

import safe_eval
from safe_eval import ConcurrentCall
from safe_eval.errors import OpLimit

LIMITS = {"ops": 20_000, "time": 30}
SPENT = "spent their bound"

SPINNERS = """
class Spin:
    def __repr__(self):
        while True:
            pass
    def __eq__(self, other):
        while True:
            pass
    def __hash__(self):
        while True:
            pass
    def __iter__(self):
        while True:
            pass
"""


def _host_calls(code: str, call: Any, n: int) -> list[str]:
    """The limit messages of ``n`` host calls into what ``code`` returned."""
    value = safe_eval.safe_eval(code, limits=LIMITS)
    messages = []
    for i in range(n):
        with pytest.raises(OpLimit) as info:
            call(value, i)
        messages.append(str(info.value))
    return messages


@pytest.mark.parametrize(("code", "call"), [
    pytest.param(SPINNERS + "[Spin() for _ in range(1000)]", lambda v, i: repr(v[i]), id="repr"),
    pytest.param(SPINNERS + "[Spin() for _ in range(1000)]", lambda v, i: v[i] == 1, id="eq"),
    pytest.param(SPINNERS + "[Spin() for _ in range(1000)]", lambda v, i: hash(v[i]), id="hash"),
    pytest.param(SPINNERS + "[Spin() for _ in range(1000)]", lambda v, i: iter(v[i]), id="iter"),
    pytest.param("def spin(x):\n    while True:\n        pass\nspin", lambda v, i: v(i), id="decoded-callable"),
    pytest.param("def gen():\n    while True:\n        for _ in range(10**9):\n            pass\n        yield 1\n"
                 "[gen() for _ in range(1000)]", lambda v, i: next(v[i]), id="generator-resume"),
])
def test_a_thousand_host_calls_into_spinning_results_share_one_runs_limits(code: str, call: Any) -> None:
    messages = _host_calls(code, call, 1000)
    assert SPENT not in messages[0]  # the first call spins until the run's own op limit
    assert all(SPENT in m for m in messages[1:])  # every later call is refused at once


def test_repr_of_a_returned_list_of_a_thousand_spinning_objects_stops_at_the_bound() -> None:
    value = safe_eval.safe_eval(SPINNERS + "[Spin() for _ in range(1000)]", limits=LIMITS)
    for _ in range(1000):
        with pytest.raises(OpLimit):
            repr(value)
    with pytest.raises(OpLimit, match=SPENT):
        repr(value)


def test_a_returned_function_cannot_mint_a_fresh_bound_by_returning_another() -> None:
    code = ("def spin():\n    while True:\n        pass\n"
            "def maker():\n    def inner():\n        return spin()\n    return inner\nmaker")
    maker = safe_eval.safe_eval(code, limits=LIMITS)
    made = [maker() for _ in range(5)]
    with pytest.raises(OpLimit):
        made[0]()
    for fn in made[1:]:
        with pytest.raises(OpLimit, match=SPENT):
            fn()


def test_calls_that_fit_share_the_bound_until_it_is_spent() -> None:
    step = safe_eval.safe_eval("def step(n):\n    for _ in range(n):\n        pass\n    return n\nstep",
                               limits=LIMITS)
    assert [step(1000) for _ in range(3)] == [1000, 1000, 1000]
    with pytest.raises(OpLimit):
        for _ in range(100):
            step(1000)
    with pytest.raises(OpLimit, match=SPENT):
        step(1)


def test_the_host_refills_the_bound_explicitly() -> None:
    spin = safe_eval.safe_eval("def spin(n):\n    while n:\n        pass\n    return 7\nspin", limits=LIMITS)
    with pytest.raises(OpLimit):
        spin(1)
    with pytest.raises(OpLimit, match=SPENT):
        spin(0)
    safe_eval.refill(spin)
    assert spin(0) == 7


def test_each_run_has_its_own_bound() -> None:
    code = "def spin(n):\n    while n:\n        pass\n    return 7\nspin"
    first, second = safe_eval.safe_eval(code, limits=LIMITS), safe_eval.safe_eval(code, limits=LIMITS)
    with pytest.raises(OpLimit):
        first(1)
    assert second(0) == 7


def test_refill_refuses_what_no_run_made() -> None:
    with pytest.raises(TypeError, match="no safe-eval run made this list object"):
        safe_eval.refill([])


def test_memory_a_returned_function_keeps_is_carried_from_call_to_call() -> None:
    from safe_eval.errors import MemoryLimit
    from tests.security.test_run_isolation import _trim_heap

    # earlier tests' garbage freed by a collection during the first call would net its growth
    # to less than the 40 MB it keeps (RSS is what is measured): collected before it starts
    _trim_heap()
    score = safe_eval.safe_callable(
        "keep = []\ndef score(x):\n    keep.append(bytearray(40_000_000))\n    return len(keep)\n",
        limits={"memory": 64 * 2**20})
    assert score(0) == 1  # 40 MB held, inside the 64 MiB limit
    with pytest.raises(MemoryLimit, match="allocation too large"):
        score(1)  # another 40 MB would hold 80 MB: over the one run's limit


def test_eight_threads_calling_a_returned_spinner_together_spend_one_runs_ops() -> None:
    import threading

    code = "count = [0]\ndef spin():\n    while True:\n        count[0] += 1\n"
    alone = safe_eval.Evaluator().exec(code, limits=LIMITS)
    with pytest.raises(OpLimit):
        alone["spin"]()
    ns = safe_eval.Evaluator().exec(code, limits=LIMITS)
    stopped: list[OpLimit | ConcurrentCall] = []

    def worker() -> None:  # refused while another call is under way, stopped once the bound is spent
        try:
            ns["spin"]()
        except (OpLimit, ConcurrentCall) as e:
            stopped.append(e)
    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (len(stopped), ns["count"][0] <= alone["count"][0]) == (8, True)


def test_a_call_stopped_by_the_time_limit_leaves_the_bound_spent() -> None:
    # the one wall-clock case: the bound's time is what a call stopped by its time limit spends
    from safe_eval.errors import TimeLimit

    spin = safe_eval.safe_eval("def spin(n):\n    while n:\n        pass\n    return 7\nspin",
                               limits={"time": 0.05, "ops": 10**12})
    with pytest.raises(TimeLimit):
        spin(1)
    with pytest.raises(TimeLimit, match=SPENT):
        spin(0)
    safe_eval.refill(spin)
    assert spin(0) == 7


def test_a_draw_interrupted_before_its_call_gives_the_reservation_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # an asynchronous exception (an enclosing run's watchdog, KeyboardInterrupt) landing between
    # the reservation and the call: no settle follows, so the draw itself refunds
    from safe_eval.limits.budget import Budget
    from safe_eval.limits.model import Limits
    from safe_eval.limits.result_bound import ResultBound

    bound = ResultBound(Limits(ops=1000))
    real = Budget.memory_used

    def interrupted(self: Budget) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(Budget, "memory_used", interrupted)
    with pytest.raises(KeyboardInterrupt):
        bound.draw()
    assert bound.calls == 0 and bound.ops_left == 1000 and bound.time_left == bound.limits.time
    monkeypatch.setattr(Budget, "memory_used", real)
    budget = bound.draw()  # not refused as concurrent, and given the whole bound
    assert budget.limits.ops == 1000
    bound.settle(budget)
