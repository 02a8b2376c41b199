"""safe-eval: run LLM-written Python safely, in process."""

from safe_eval.api import Evaluator, Result, safe_callable, safe_eval, safe_exec
from safe_eval.checking import Report, check
from safe_eval.errors import (
    GuestError,
    InternalError,
    LimitExceeded,
    PolicyViolation,
    SafeEvalError,
)
from safe_eval.limits import Limits
from safe_eval.policy import Policy

__all__ = [
    "Evaluator",
    "GuestError",
    "InternalError",
    "LimitExceeded",
    "Limits",
    "Policy",
    "PolicyViolation",
    "Report",
    "Result",
    "SafeEvalError",
    "check",
    "safe_callable",
    "safe_eval",
    "safe_exec",
]
