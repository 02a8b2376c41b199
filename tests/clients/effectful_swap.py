"""pytest plugin (``-p effectful_swap``): effectful's own tests with SafeEvalProvider in place of
both stock providers. Loaded before collection, so the test modules' ``from
effectful.handlers.llm.evaluation import UnsafeEvalProvider`` already receives ours."""

from typing import Any

import effectful.handlers.llm.evaluation as evaluation

from safe_eval.integrations.effectful import SafeEvalProvider


class SwappedUnsafeEvalProvider(SafeEvalProvider):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()


class SwappedRestrictedEvalProvider(SafeEvalProvider):
    # a RestrictedPython ``policy=`` transformer class has no meaning here: ignored
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()


evaluation.UnsafeEvalProvider = SwappedUnsafeEvalProvider  # type: ignore[misc]
evaluation.RestrictedEvalProvider = SwappedRestrictedEvalProvider  # type: ignore[misc]
