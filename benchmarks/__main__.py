"""``python -m benchmarks``: the whole comparison in one command and one process."""

from benchmarks.run import main

raise SystemExit(main())
