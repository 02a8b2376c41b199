"""One module per contender; :func:`all_contenders` builds them in table order."""

from __future__ import annotations

from benchmarks.contenders.base import Contender


def all_contenders() -> list[Contender]:
    from benchmarks.contenders.asteval_ import AstevalContender
    from benchmarks.contenders.cpython import CPythonContender
    from benchmarks.contenders.monty import MontyContender
    from benchmarks.contenders.restricted import RestrictedPythonContender
    from benchmarks.contenders.safe_eval_ import SafeEvalContender
    from benchmarks.contenders.smolagents_ import SmolagentsContender

    return [
        CPythonContender(),
        SafeEvalContender(),
        RestrictedPythonContender(),
        SmolagentsContender(),
        AstevalContender(),
        MontyContender(),
    ]
