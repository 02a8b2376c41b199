"""Invariant: a batch job sees nothing another job left behind, even in the same worker.

A pool keeps its workers warm across jobs; each job still starts from a namespace of its own
(``oneshot`` runs in ``sandbox/worker.py``) and writes nothing back to the env it was given
(``slots.Slot.run`` hands the session a read-only view). Evaluated in process by threads that
share the host's objects, a job gets a copy of its env values (``remote._in_process``)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from safe_eval.batch import FuturesExecutor, Job, LocalPool, evaluate
from safe_eval.errors import GuestError


@pytest.fixture(scope="module")
def one_worker():
    with LocalPool(1) as pool:  # one worker: every job runs in the same process
        yield pool


def test_a_job_cannot_read_a_global_an_earlier_job_set_in_the_same_worker(one_worker):
    planted, probe = evaluate(["secret = 'from job 0'", "secret"], executor=one_worker)
    assert planted.value is None
    assert type(probe) is GuestError and probe.message == "name 'secret' is not defined"


def test_a_job_cannot_replace_a_builtin_for_the_jobs_after_it(one_worker):
    _, probe = evaluate(["def len(x):\n    return 'hijacked'", "len([1, 2, 3])"], executor=one_worker)
    assert probe.value == 3


def test_a_job_cannot_leave_a_function_for_a_later_job_to_find(one_worker):
    _, probe = evaluate(["def helper():\n    return 'left behind'", "helper()"], executor=one_worker)
    assert type(probe) is GuestError and probe.type_name == "NameError"


def test_a_job_rebinding_a_shared_env_name_changes_it_for_no_other_job(one_worker):
    shared = {"limit": 10}
    jobs = [Job("limit = 10 ** 9\nlimit", shared), Job("limit", shared), Job("limit", shared)]
    rebound, second, third = evaluate(jobs, executor=one_worker)
    assert rebound.value == 10**9
    assert (second.value, third.value) == (10, 10)
    assert shared == {"limit": 10}


def test_a_job_mutating_a_shared_env_list_changes_it_for_no_other_job(one_worker):
    shared = {"items": [1, 2]}
    appended, probe = evaluate([Job("items.append(3)\nitems", shared), Job("items", shared)],
                               executor=one_worker)
    assert appended.value == [1, 2, 3]
    assert probe.value == [1, 2] and shared == {"items": [1, 2]}


def test_in_process_jobs_on_threads_do_not_see_each_others_mutations_of_a_shared_list():
    shared = {"items": [1, 2]}
    jobs = [Job("items.append(3)\nlen(items)", shared) for _ in range(20)]
    with ThreadPoolExecutor(2) as threads:
        outcomes = evaluate(jobs, executor=FuturesExecutor(threads, sandbox="off"))
    assert [o.value for o in outcomes] == [3] * 20
    assert shared == {"items": [1, 2]}
