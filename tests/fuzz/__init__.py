"""Differential fuzzing: random LLM-shaped programs run under CPython and safe-eval, compared.

    python -m tests.fuzz --minutes 10 [--seed 1] [--out DIR]

``grammar.generate(seed)`` writes one program (assignments, arithmetic, strings, lists and
dicts, comprehensions, functions, classes, generators, try/except, loops, prints) that always
terminates under CPython; ``oracle.compare(source)`` runs it both ways and returns the
difference in outcome (value, printed output, exception type and message), or None.
"""
