"""The benchmark cases: what each one runs, with which inputs, and the goal it is measured against.

A case is plain data. ``kind`` says how the harness drives it:
- ``program``: every contender evaluates ``source`` with ``env`` and must return CPython's value;
- ``limits``: the ``program`` of another case, timed with limits on and effectively off;
- ``check``: the static check of ``source`` alone (CPython's column is ``compile()``);
- ``decide``: one policy decision for a tool call (safe-eval only);
- ``cold``: a fresh process imports the contender and evaluates ``source`` once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["program", "limits", "check", "decide", "cold"]

#: The import allowlist of the contenders that take one (smolagents' authorised imports,
#: RestrictedPython's ``__import__``, the 20-rule policy); a subset of safe-eval's default policy.
#: No case imports anything: the allowlist is configuration, kept equal so set-up costs compare.
IMPORTS = ("math", "re", "json", "collections", "itertools", "functools", "statistics", "datetime")

#: A typical model-written helper: type hints, a docstring, a loop, a comprehension, try/except and
#: f-strings, 30 lines. ``validate`` defines it (never calls it); ``check`` checks it statically.
LLM_FUNCTION = '''\
def summarise_orders(orders: list[dict], min_total: float = 0.0) -> dict:
    """Group orders by customer and report totals, averages and the largest order."""
    by_customer: dict[str, list[float]] = {}
    skipped = 0
    for order in orders:
        try:
            name = str(order["customer"]).strip().title()
            amount = float(order.get("amount", 0))
        except (KeyError, TypeError, ValueError):
            skipped += 1
            continue
        if amount < 0:
            skipped += 1
            continue
        by_customer.setdefault(name, []).append(amount)
    report = {}
    for name, amounts in sorted(by_customer.items()):
        total = sum(amounts)
        if total < min_total:
            continue
        average = total / len(amounts) if amounts else 0.0
        largest = max(amounts, default=0.0)
        report[name] = {
            "count": len(amounts),
            "total": round(total, 2),
            "average": round(average, 2),
            "largest": largest,
            "label": f"{name}: {len(amounts)} orders, {total:,.2f} total",
        }
    report["_skipped"] = skipped
    return report
'''


@dataclass(frozen=True)
class Case:
    name: str
    kind: Kind
    description: str
    goal: str
    source: str = ""
    #: Builds a fresh env for each evaluation (cases mutate nothing, but a fresh dict is what a
    #: caller passing ``{"x": 41}`` literally would do).
    env: Callable[[], dict[str, Any]] = dict
    #: Names in ``env`` that are tools (host callables governed by the policy's rules).
    tools: tuple[str, ...] = ()
    #: Defeat every compile cache by making each evaluation's text unique (a trailing comment).
    unique: bool = False
    #: For ``limits``: the name of the ``program`` case it reuses.
    base: str = ""
    #: Goal on the ratio to CPython (``program``) or an absolute bound in seconds.
    max_ratio: float | None = None
    max_seconds: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def text(self, i: int) -> str:
        """The source for evaluation number ``i``."""
        return f"{self.source}\n# run {i}" if self.unique else self.source


def _lines(n: int) -> str:
    return "\n".join(f"item{i},{(i * 37) % 1000},  tag{i % 7}  " for i in range(n))


def lookup(key: int) -> int:
    """The env function of ``tool-calls``: cheap, so the call path is what gets measured."""
    return key * 2 + 1


def make_cases(quick: bool = False) -> list[Case]:
    """Every case, with sizes cut down when ``quick`` (for the smoke test)."""
    n_loop = 2_000 if quick else 200_000
    n_fib = 10 if quick else 20
    n_obj = 200 if quick else 10_000
    n_lines = 200 if quick else 10_000
    n_calls = 200 if quick else 10_000
    text = _lines(n_lines)
    loop_src = f"total = 0\nfor i in range({n_loop}):\n    total += i * i\ntotal"
    return [
        Case("tiny-warm", "program", "`x + 1`, env {x: 41}, same text every time (cache warm)",
             "<= 1x CPython", "x + 1", env=lambda: {"x": 41}, max_ratio=1.0),
        Case("tiny-cold", "program", "`x + 1` with a unique trailing comment per run (cache cold)",
             "-", "x + 1", env=lambda: {"x": 41}, unique=True),
        Case("validate", "program", "check and define a 30-line function without calling it",
             "-", LLM_FUNCTION + "'defined'", unique=True),
        Case("fib", "program", f"recursive fib({n_fib})", "<= 10x CPython",
             "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n"
             f"fib({n_fib})", max_ratio=10.0),
        Case("loop", "program", f"sum of i*i over {n_loop:,} in a for loop", "<= 10x CPython",
             loop_src, max_ratio=10.0),
        Case("objects", "program", f"build and sort {n_obj:,} guest objects with __lt__", "-",
             "class Item:\n"
             "    def __init__(self, key, name):\n"
             "        self.key = key\n"
             "        self.name = name\n"
             "    def __lt__(self, other):\n"
             "        return self.key < other.key\n"
             f"items = [Item((i * 7919) % 10007, 'n' + str(i)) for i in range({n_obj})]\n"
             "items.sort()\n"
             "items[0].key + items[-1].key + len(items)"),
        Case("strings", "program", f"split/strip/join and f-string formatting of {n_lines:,} lines", "-",
             "out = []\n"
             "for line in text.split('\\n'):\n"
             "    name, qty, tag = line.split(',')\n"
             "    out.append(f'{name.upper():<12}|{int(qty) * 2:>6}|{tag.strip()}')\n"
             "report = '\\n'.join(out)\n"
             "len(report)",
             env=lambda: {"text": text}),
        Case("tool-calls", "program", f"{n_calls:,} calls of an env function through a 20-rule policy",
             "-",
             f"total = 0\nfor i in range({n_calls}):\n    total += lookup(i % 1000)\ntotal",
             env=lambda: {"lookup": lookup}, tools=("lookup",)),
        Case("cold", "cold", "fresh process: import + first `x + 1`, minus bare `python -c pass`",
             "< 50 ms", "x + 1", env=lambda: {"x": 41}, max_seconds=0.050),
        Case("limits-cost", "limits", "the loop case, limits on vs effectively off (overhead %)",
             "-", loop_src, base="loop"),
        Case("check", "check", "static check of the 30-line function (CPython: compile())",
             "< 1 ms", LLM_FUNCTION, unique=True, max_seconds=0.001),
        Case("parse-bomb", "check", "static check of a 45,000-term `1+1+...` chain (refused as too deep)",
             "< 100 ms", "1+" * 45_000 + "1", unique=True, max_seconds=0.1),
        Case("policy-decide", "decide", "one tool-call decision against 20 rules", "< 5 µs",
             max_seconds=5e-6, extra={"tool": "lookup", "args": (7,)}),
    ]


#: The policy of ``tool-calls`` and ``policy-decide``: 19 rules that do not match, then the one that
#: does (the worst case for an ordered rule list). Written in safe-eval's policy DSL.
POLICY_20_RULES = "\n".join(
    ["policy bench", "imports " + ", ".join(IMPORTS)]
    + [f"deny drop_{i}(*) \"tool drop_{i} is retired\"" for i in range(5)]
    + [f"allow search_{i}(query: str, limit: int in 1..50)" for i in range(7)]
    + [f"allow read_{i}(path matches \"^data/[a-z0-9_./-]+$\")" for i in range(7)]
    + ["allow lookup(key: int in 0..1000000)"]
)
