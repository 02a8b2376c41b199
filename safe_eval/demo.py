"""``python -m safe_eval demo``: the main job in a few lines.

Evaluates model-style code with values and a tool from the host, shows a blocked escape and
a limit, and prints what a caller gets back each time.
"""

from __future__ import annotations

import math

from safe_eval.api import Evaluator
from safe_eval.errors import GuestError, LimitExceeded, PolicyViolation

__all__ = ["main"]

_ANALYSIS = '''\
from statistics import mean
ok = [r for r in rows if r["qty"] > 0]
print(f"{len(ok)} of {len(rows)} rows usable")
{"mean_qty": mean(r["qty"] for r in ok), "root": sqrt(sum(r["qty"] for r in ok))}
'''
_ESCAPE = "().__class__.__base__.__subclasses__()"
_RUNAWAY = "def spin(n):\n    return spin(n + 1)\nspin(0)"
_BUG = "def ratio(a, b):\n    return a / b\nratio(1, 0)"


def _show(title: str, code: str, run: object) -> None:
    print(f"== {title}")
    print("   " + code.strip().replace("\n", "\n   "))
    print("-> " + str(run).replace("\n", "\n   ") + "\n")


def main() -> int:
    ev = Evaluator(limits={"time": 1.0})
    env = {"rows": [{"qty": 3}, {"qty": 0}, {"qty": 6}], "sqrt": math.sqrt}
    r = ev.run(_ANALYSIS, env)
    _show("LLM-written analysis with host data and a host function", _ANALYSIS,
          f"value={r.value!r}\nstdout={r.stdout!r} ops={r.ops} seconds={r.seconds:.4f}")
    for title, code in (("an escape attempt", _ESCAPE), ("runaway recursion", _RUNAWAY),
                        ("a bug in the code", _BUG)):
        try:
            ev.eval(code)
            outcome = "evaluated (unexpected)"
        except PolicyViolation as e:
            outcome = f"PolicyViolation:\n{e}"
        except LimitExceeded as e:
            outcome = f"{type(e).__name__}: {e}"
        except GuestError as e:
            outcome = f"GuestError:\n{e.render()}"
        _show(title, code, outcome)
    return 0
