"""The mixed batch the batch tests run on every executor: values, guest errors, policy
violations, every limit, a job that kills its worker, a value that cannot leave the sandbox.

Each case is one program; the batch holds several copies of each with different ``x``
(``variants``), interleaved so that every kind of job runs next to every other kind.
"""

from __future__ import annotations

from typing import Any

from safe_eval import Evaluator
from safe_eval.api import Result
from safe_eval.batch import Job
from safe_eval.errors import SafeEvalError, SandboxCrashed, TimeLimit


def double(value: int) -> int:
    return 2 * value


def end_worker() -> None:
    """A host tool that finds the worker broke the protocol: the host kills that worker, as it
    does a worker that calls a tool its run does not have. (Interpreter-mode guest code has no
    way left to crash its worker: output of any size is output, values past the wire's bounds
    are ``SandboxValueError``.)"""
    raise SandboxCrashed("the worker broke the protocol (a test tool says so)")


# id: (code, limits, what a single evaluation in process gives: "same" as the batch, or
# "sandbox" when only a single *sandboxed* evaluation gives the same), copies in the batch
CASES: dict[str, tuple[str, dict[str, Any] | None, str, int]] = {
    "arithmetic": ("x * 2 + 1", None, "same", 12),
    "comprehension": ("[i * i for i in range(x)]", None, "same", 12),
    "string_join": ("'-'.join(str(i) for i in range(x))", None, "same", 12),
    "dict_result": ("{str(i): i for i in range(x)}", None, "same", 12),
    "tuple_set_frozenset": ("(x, {x, x + 1}, frozenset([x]))", None, "same", 12),
    "big_int": ("2 ** (100 + x)", None, "same", 12),
    "float_nan": ("float('nan') if x % 2 else x / 3", None, "same", 12),
    "bytes_value": ("bytes([x % 256]) * 3", None, "same", 12),
    "printed_output": ("for i in range(3):\n    print(i, x)\nx", None, "same", 12),
    "stdlib_imports": ("import math, json, re\njson.dumps({'r': math.isqrt(x * 1000), "
                       "'m': re.findall(r'\\d', str(x * 7))})", None, "same", 12),
    "guest_class": ("class P:\n    def __init__(s, v):\n        s.v = v\n    def twice(s):\n"
                    "        return s.v * 2\nP(x).twice()", None, "same", 12),
    "generator": ("def g(n):\n    for i in range(n):\n        yield i\nsum(g(x))", None, "same", 12),
    "no_value": ("y = x", None, "same", 12),
    "decimal_value": ("from decimal import Decimal\nDecimal(x) / 4", None, "same", 12),
    "host_tool": ("double(x) + 1", None, "same", 12),
    "zero_division": ("x / 0", None, "same", 12),
    "name_error": ("undefined_name + x", None, "same", 12),
    "custom_exception": ("class E(Exception):\n    pass\nraise E(f'bad {x}')", None, "same", 12),
    "failed_assert": ("assert x < 0, 'x is not negative'", None, "same", 12),
    "index_error": ("[1, 2][x + 5]", None, "same", 12),
    "forbidden_import": ("import os\nos.getcwd()", None, "same", 12),
    "dunder_walk": ("().__class__.__bases__[0].__subclasses__()", None, "same", 12),
    "open_file": ("open('/etc/passwd').read()", None, "same", 12),
    "op_limit": ("sum(i for i in range(10 ** 6))", {"ops": 20_000}, "same", 12),
    "memory_limit": ("'a' * (10 ** 9)", None, "same", 12),
    "recursion_limit": ("def f(n):\n    return f(n + 1)\nf(x)", None, "same", 12),
    "output_limit": ("print('a' * 100_000)", None, "same", 12),
    "time_limit": ("while True:\n    pass", {"time": 0.05}, "same", 4),
    # the host ends the worker in the middle of the job (``end_worker``)
    "worker_crash": ("print(x)\nend_worker()", None, "sandbox", 3),
    # a guest function is not plain data: it cannot leave the sandbox worker
    "guest_function_value": ("def f():\n    return x\nf", None, "sandbox", 6),
}


def mixed_jobs() -> tuple[list[Job], list[str]]:
    """The jobs and, for each, its case id."""
    jobs, ids = [], []
    for x in range(1, 13):
        for case, (code, limits, _, copies) in CASES.items():
            if x <= copies:
                tools = ({"double": double} if case == "host_tool"
                         else {"end_worker": end_worker} if case == "worker_crash" else None)
                jobs.append(Job(code, {"x": x}, tools=tools, limits=limits, id=f"{case}-{x}"))
                ids.append(case)
    return jobs, ids


def alone(job: Job, sandbox: str | None = None) -> Any:
    """What evaluating the job by itself gives (in process, or in a fresh sandbox worker)."""
    try:
        return Evaluator(sandbox=sandbox).run(job.code, job.environment(), limits=job.limits)
    except SafeEvalError as exc:
        return exc


def outcome_key(outcome: Any) -> tuple[Any, ...]:
    """What must be equal between two outcomes of one job: a result's value, output and
    operations; an error's class and its fields (a time limit's class and setting, the
    elapsed time it reached being the clock's; a crash's class and signal)."""
    if isinstance(outcome, Result):
        return ("Result", type(outcome.value), repr(outcome.value), outcome.stdout, outcome.ops)
    if isinstance(outcome, TimeLimit):
        return ("TimeLimit", outcome.value, outcome.line)
    if isinstance(outcome, SandboxCrashed):
        return ("SandboxCrashed", outcome.signal)
    assert isinstance(outcome, SafeEvalError), outcome
    data = outcome.to_dict()
    return (type(outcome).__name__, repr(data))
