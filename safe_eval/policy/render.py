"""Writing a ``Policy`` back as DSL text (``render_policy``) or as one line (``describe_policy``).

``parse_policy(render_policy(p)) == p`` for every policy: the rendering is flat (no
``extends``) and spells out every limit.
"""

from __future__ import annotations

from safe_eval.limits.model import Limits
from safe_eval.policy.model import Policy

__all__ = ["describe_policy", "render_limits", "render_policy"]

_BINARY = (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


def render_policy(policy: Policy) -> str:
    """The policy as DSL text."""
    lines = [f"policy {policy.name}", render_imports(policy), "limits " + render_limits(policy.limits)]
    if policy.sandbox is not None:
        lines.append(f"sandbox {policy.sandbox}")
    lines += [rule.render() for rule in policy.tools]
    return "\n".join(lines) + "\n"


def render_imports(policy: Policy) -> str:
    if not policy.imports:
        return "imports none"
    return "imports " + ", ".join(sorted(policy.imports))


def render_limits(limits: Limits) -> str:
    return ", ".join(
        [
            f"time {_time(limits.time)}",
            f"ops {limits.ops:_}",
            f"memory {_size(limits.memory)}",
            f"recursion {limits.recursion}",
            f"output {_size(limits.output)}",
        ]
    )


def _time(seconds: float) -> str:
    if float(seconds).is_integer():
        return f"{int(seconds)}s"
    ms = seconds * 1000
    if ms.is_integer() and float(ms / 1000) == float(seconds):
        return f"{int(ms)}ms"
    return f"{seconds!r}s"


def _size(nbytes: int) -> str:
    for unit, size in _BINARY:
        if nbytes % size == 0:
            return f"{nbytes // size}{unit}"
    return f"{nbytes}B"


def describe_policy(policy: Policy) -> str:
    """One line: name, imports, limits and a summary of the tool rules."""
    imports = ", ".join(sorted(policy.imports)) or "none"
    if not policy.tools:
        tools = "no tool rules (env callables are granted)"
    else:
        allows = [r.tool for r in policy.tools if r.action == "allow"]
        denies = [r.tool for r in policy.tools if r.action == "deny"]
        tools = f"{len(policy.tools)} tool rule(s): allow {', '.join(dict.fromkeys(allows)) or 'nothing'}"
        if denies:
            tools += f"; deny {', '.join(dict.fromkeys(denies))}"
    return f"policy {policy.name}: imports {imports}; limits {render_limits(policy.limits)}; {tools}"
