"""``python -m safe_eval.worker``: the sandbox worker (see ``safe_eval.sandbox.worker``)."""

from safe_eval.sandbox.worker import main

if __name__ == "__main__":
    main()
