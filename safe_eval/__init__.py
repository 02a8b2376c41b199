"""safe-eval: run LLM-written Python safely, in process."""

from typing import TYPE_CHECKING, Any

# the package is callable: ``with safe_eval.sandbox("bwrap"):`` is its handler
from safe_eval import sandbox
from safe_eval.api import Evaluator, Result, refill, safe_callable, safe_eval, safe_exec
from safe_eval.errors import (
    ConcurrentCall,
    GuestError,
    InternalError,
    LimitExceeded,
    PolicyViolation,
    SafeEvalError,
    SandboxCrashed,
    SandboxError,
    SandboxUnavailable,
)
from safe_eval.limits import Limits
from safe_eval.membrane.proxies import expose
from safe_eval.policy import Policy

if TYPE_CHECKING:
    from safe_eval.checking import Report, check

__all__ = [
    "Evaluator",
    "GuestError",
    "ConcurrentCall",
    "InternalError",
    "LimitExceeded",
    "Limits",
    "Policy",
    "PolicyViolation",
    "Report",
    "Result",
    "SafeEvalError",
    "SandboxCrashed",
    "SandboxError",
    "SandboxUnavailable",
    "check",
    "expose",
    "refill",
    "safe_callable",
    "safe_eval",
    "safe_exec",
    "sandbox",
]


def __getattr__(name: str) -> Any:
    # ``check``/``Report`` are imported on first use: ``import safe_eval`` for an evaluation
    # should not pay for the checking module and json (cold start budget)
    if name in ("check", "Report"):
        from safe_eval import checking

        value = getattr(checking, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'safe_eval' has no attribute {name!r}")
