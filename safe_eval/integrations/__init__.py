"""Integrations of safe-eval into the frameworks that run model-written code, each behind an
optional extra named after it."""
