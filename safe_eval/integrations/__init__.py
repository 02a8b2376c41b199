"""Adapters for the frameworks that run model-written code, each behind its own extra.

Importing this package imports no framework: import the adapter module you need
(``safe_eval.integrations.effectful`` needs ``pip install 'safe-eval[effectful]'``).
"""
