"""safe-eval itself, through its public API: ``safe_eval(code, env, policy=..., limits=...)`` with
the default policy (or the 20-rule policy where the case has tools) and default limits;
``check(code)`` for the static check; ``Policy.decide`` for one tool-call decision.

While a piece of the API has not landed, the cell says "not available: <why>".
"""

from __future__ import annotations

import importlib
from typing import Any

from benchmarks.cases import POLICY_20_RULES, Case
from benchmarks.contenders.base import Runner, Unsupported

#: "Effectively off", as the issue defines it for the ``limits-cost`` case.
OFF_OPS, OFF_TIME, OFF_MEMORY = 10**18, 1e9, 2**62


class SafeEvalContender:
    name = "safe-eval"
    config = "safe_eval(code, env) with the default policy and Limits() (3 s, 10 M ops, 256 MiB)"
    has_limits = True
    cold = "import safe_eval\nprint(safe_eval.safe_eval('x + 1', {'x': 41}))"

    def unavailable(self) -> str | None:
        try:
            import safe_eval
        except ImportError as exc:
            return f"not installed: {exc}"
        del safe_eval
        return None

    def prepare(self, case: Case, *, limits: bool = True) -> Runner:
        import safe_eval

        if case.kind == "check":
            check = getattr(safe_eval, "check", None) or _module_attr("safe_eval.checking", "check")
            if check is None:
                raise Unsupported("not available: safe_eval.check has not landed")
            return lambda i: check(case.text(i))
        if case.kind == "decide":
            policy = _policy_20_rules()
            tool, args = case.extra["tool"], case.extra["args"]
            fn = case.env().get(tool)
            return lambda i: _allowed(policy.decide(tool, args, {}, fn))
        if case.kind not in ("program", "limits"):
            raise Unsupported(f"n/a: case kind {case.kind}")
        if not hasattr(safe_eval, "safe_eval"):
            raise Unsupported("not available: safe_eval.safe_eval has not landed")
        policy = _policy_20_rules() if case.tools else None
        lims = None if limits else safe_eval.Limits(ops=OFF_OPS, time=OFF_TIME, memory=OFF_MEMORY)
        # Looked up at run time: the API lands during the session (``unavailable`` checked it).
        run_code = getattr(safe_eval, "safe_eval")  # noqa: B009

        def run(i: int) -> Any:
            return _value(run_code(case.text(i), case.env(), policy=policy, limits=lims))
        return run

    def end_case(self) -> None:
        pass

    def close(self) -> None:
        pass


def _module_attr(module: str, name: str) -> Any:
    """``module.name`` where it exists (used while a public re-export has not landed)."""
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def _policy_20_rules() -> Any:
    try:
        from safe_eval.policy import parse_policy
    except ImportError as exc:
        raise Unsupported("not available: safe_eval.policy.parse_policy has not landed") from exc
    try:
        return parse_policy(POLICY_20_RULES)
    except Exception as exc:  # the DSL is young: show why in the cell
        raise Unsupported(f"policy rejected: {type(exc).__name__}: {exc}") from exc


def _allowed(decision: Any) -> bool:
    allowed = bool(getattr(decision, "allowed", decision))
    if not allowed:
        raise Unsupported(f"decision denied the benchmark call: {decision!r}")
    return allowed


def _value(result: Any) -> Any:
    """The evaluated value, whether ``safe_eval`` returns it bare or in a result object."""
    return getattr(result, "value", result) if type(result).__module__.startswith("safe_eval") else result
