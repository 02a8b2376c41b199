"""In-process measurement of one case across all contenders, interleaved round by round."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from benchmarks.cases import Case
from benchmarks.cells import Cell, short_error
from benchmarks.contenders.base import Contender, Runner, Unsupported
from benchmarks.timing import Counter, batch_size, median, time_batch

BASELINE = "CPython"


@dataclass(frozen=True)
class Settings:
    rounds: int = 5
    #: Seconds one sample (a batch of evaluations) should take.
    target: float = 0.05
    #: Seconds of sampling one contender may spend on one case; slower ones get fewer rounds.
    budget: float = 6.0
    quick: bool = False


def _prepare(contender: Contender, case: Case, limits: bool = True) -> Runner | Cell:
    try:
        return contender.prepare(case, limits=limits)
    except Unsupported as exc:
        return Cell(reason=str(exc))
    except Exception as exc:
        return Cell(reason=f"setup error: {short_error(exc)}")


def _warm_up(run: Runner, counter: Counter) -> tuple[Any, float]:
    """Two untimed runs (one if the first is slow); returns the value and the last run's time."""
    t0 = time.perf_counter()
    value = run(counter.take(1))
    single = time.perf_counter() - t0
    if single < 0.5:
        t0 = time.perf_counter()
        value = run(counter.take(1))
        single = time.perf_counter() - t0
    return value, single


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def measure_case(case: Case, contenders: list[Contender], unavailable: dict[str, str | None],
                 settings: Settings) -> dict[str, Cell]:
    """Time ``case`` (kind program, check or decide) for every contender."""
    counter = Counter()
    cells: dict[str, Cell] = {}
    runners: dict[str, Runner] = {}
    for c in contenders:
        reason = unavailable[c.name]
        if reason:
            cells[c.name] = Cell(reason=reason)
            continue
        prepared = _prepare(c, case)
        if isinstance(prepared, Cell):
            cells[c.name] = prepared
        else:
            runners[c.name] = prepared

    singles: dict[str, float] = {}
    expected: Any = None
    for name, run in list(runners.items()):
        try:
            value, singles[name] = _warm_up(run, counter)
        except Exception as exc:
            cells[name] = Cell(reason=f"error: {short_error(exc)}")
            del runners[name]
            continue
        if case.kind != "program":
            continue
        if name == BASELINE:
            expected = value
        elif BASELINE in runners and not _same(value, expected):
            cells[name] = Cell(reason=f"wrong result: {value!r:.40} (CPython: {expected!r:.40})")
            del runners[name]

    _sample(runners, singles, cells, counter, settings)
    for c in contenders:
        c.end_case()
    return cells


def _plan(single: float, settings: Settings) -> tuple[int, int]:
    n = batch_size(single, settings.target)
    per_sample = n * single
    rounds = settings.rounds if per_sample * settings.rounds <= settings.budget else \
        max(1, min(settings.rounds, int(settings.budget // per_sample)))
    return n, rounds


def _sample(runners: dict[str, Runner], singles: dict[str, float], cells: dict[str, Cell],
            counter: Counter, settings: Settings) -> None:
    plans = {name: _plan(singles[name], settings) for name in runners}
    samples: dict[str, list[float | None]] = {name: [] for name in runners}
    names = list(runners)
    for r in range(settings.rounds):
        order = names[r % len(names):] + names[: r % len(names)] if names else []
        taken: dict[str, float | None] = {}
        for name in order:
            n, rounds = plans[name]
            if r >= rounds or name not in runners:
                continue
            try:
                taken[name] = time_batch(runners[name], n, counter)
            except Exception as exc:
                cells[name] = Cell(reason=f"error: {short_error(exc)}")
                del runners[name]
        for name in names:
            samples[name].append(taken.get(name))
    base = samples.get(BASELINE, [])
    for name in names:
        if name not in runners:
            continue
        got = [s for s in samples[name] if s is not None]
        ratios = [s / b for s, b in zip(samples[name], base, strict=False) if s is not None and b]
        cells[name] = Cell(seconds=median(got), ratio=median(ratios) if ratios else None,
                           samples=got, rounds=len(got))


def measure_limits(case: Case, contenders: list[Contender], unavailable: dict[str, str | None],
                   settings: Settings) -> dict[str, Cell]:
    """The ``limits-cost`` case: each contender with limits runs the program both ways,
    alternating within each round; the cell is the median per-round overhead."""
    counter = Counter()
    cells: dict[str, Cell] = {}
    for c in contenders:
        reason = unavailable[c.name]
        if reason:
            cells[c.name] = Cell(reason=reason)
            continue
        if not c.has_limits:
            cells[c.name] = Cell(reason="n/a: no limits to switch off")
            continue
        on, off = _prepare(c, case, limits=True), _prepare(c, case, limits=False)
        if isinstance(on, Cell) or isinstance(off, Cell):
            cells[c.name] = on if isinstance(on, Cell) else off  # type: ignore[assignment]
            continue
        try:
            _, single_on = _warm_up(on, counter)
            _, single_off = _warm_up(off, counter)
        except Exception as exc:
            cells[c.name] = Cell(reason=f"error: {short_error(exc)}")
            c.end_case()
            continue
        # A few-percent effect under machine noise: up to three times the usual pairs, same budget.
        n, rounds = _plan(max(single_on, single_off), Settings(
            settings.rounds * 3, settings.target, settings.budget / 2, settings.quick))
        t_on: list[float] = []
        t_off: list[float] = []
        for r in range(rounds):
            pair = [(on, t_on), (off, t_off)]
            for run, into in pair if r % 2 == 0 else pair[::-1]:
                into.append(time_batch(run, n, counter))
        c.end_case()
        overheads = [a / b - 1 for a, b in zip(t_on, t_off, strict=True)]
        cells[c.name] = Cell(seconds=median(t_on), samples=t_on, rounds=rounds,
                             overhead=median(overheads), off_seconds=median(t_off))
    return cells
