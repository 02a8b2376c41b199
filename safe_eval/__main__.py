"""``python -m safe_eval demo`` runs the demo; anything else is the ``safe-eval`` CLI."""

from __future__ import annotations

import sys


def _main() -> int:
    if sys.argv[1:2] == ["demo"]:
        from safe_eval.demo import main

        return main()
    from safe_eval.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(_main())
