"""Policies: what guest code may import, which tools it may call with which arguments, its limits."""

from safe_eval.policy.model import Decision, Policy, default_policy

__all__ = ["Decision", "Policy", "default_policy", "resolve_policy"]


def resolve_policy(policy: object = None) -> Policy:
    """A Policy from what a caller passes: None (the shipped default), a Policy, or (once the
    policy DSL lands) a shipped policy name or a path to a policy file."""
    if policy is None:
        return default_policy()
    if isinstance(policy, Policy):
        return policy
    raise TypeError(f"policy must be a Policy, a policy name or a path, not {type(policy).__name__}")
