"""safe-eval: run LLM-written Python safely, in process."""

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
    "GuestError",
    "InternalError",
    "LimitExceeded",
    "Limits",
    "Policy",
    "PolicyViolation",
    "SafeEvalError",
]
