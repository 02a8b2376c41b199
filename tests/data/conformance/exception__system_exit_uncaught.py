raise SystemExit("bye")
