"""safe-eval benchmarks: safe-eval side by side with CPython and the peer sandboxes.

Run ``python -m benchmarks`` (or ``python benchmarks/run.py``); ``--help`` lists the options.
"""
