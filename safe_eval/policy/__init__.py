"""Policies: what guest code may import, which tools it may call with which arguments, its limits."""

from safe_eval.policy.model import Decision, Policy, default_policy

__all__ = ["Decision", "Policy", "default_policy"]
