"""Static policy check (PLACEHOLDER: the policy issue fills this in).

check_policy(tree, policy, env_names) -> list[Diagnostic]
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from safe_eval.diagnostics import Diagnostic


def check_policy(tree: ast.Module, policy: Any, env_names: Iterable[str] = ()) -> list[Diagnostic]:
    return []
