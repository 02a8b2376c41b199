"""A bounded differential fuzz run (fixed seeds, a few seconds): generated LLM-shaped programs
give the same value, output and exception under CPython and safe-eval. The long campaign is
``python -m tests.fuzz --minutes N``."""

from __future__ import annotations

from fuzz.campaign import run
from fuzz.grammar import generate


def test_generated_programs_behave_as_in_cpython() -> None:
    report = run(20_000, count=150)
    assert report.divergences == [], report.summary()
    assert report.programs == 150
    assert report.errors["ok"] > 50  # most programs run to their value: the run tests something


def test_the_generator_is_deterministic_and_varied() -> None:
    assert generate(7) == generate(7)
    assert len({generate(seed) for seed in range(50)}) == 50
