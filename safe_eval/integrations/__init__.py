"""Adapters for the frameworks that run model-written code, each behind an optional extra named
after it.

Importing this package imports no framework: import the adapter module you need
(``safe_eval.integrations.effectful`` needs ``pip install 'safe-eval[effectful]'``,
``.smolagents`` the ``smolagents`` extra, ``.mcp`` the ``mcp`` extra).
"""
