"""Resource limits: the ``Limits`` model, the running ``Budget`` and the memory guards."""

from safe_eval.limits.budget import Budget, current
from safe_eval.limits.model import Limits

__all__ = ["Budget", "Limits", "current"]
