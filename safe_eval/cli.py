"""The ``safe-eval`` command line.

    safe-eval check FILE|- [--json] [--policy P]   static check; exit 0 clean, 1 violations
    safe-eval policy check FILE                      validate a policy file; exit 0 valid, 1 not
    safe-eval run FILE|- [--json] [--policy P] [--sandbox S]
                                                     evaluate; print the value's repr and output
                                                     (in the OS sandbox S: subprocess, bwrap ...)
    safe-eval sandbox doctor [--json]                which OS sandboxes work here; exit 0 when one does
    safe-eval sandbox build-image                    build the container backend's image locally
    safe-eval mcp [--policy P] [--sandbox S] [--return-mode xml|json]
                                                     an MCP server on stdio (run_python_code,
                                                     check_python); needs the ``mcp`` extra
    safe-eval demo                                   a guided tour

Exit status 2 is a usage error (unreadable file, unknown policy, missing command). Imports are
lazy so ``safe-eval check`` does not pay for the interpreter.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main"]

EXIT_OK, EXIT_VIOLATION, EXIT_USAGE = 0, 1, 2


class _Usage(Exception):
    """A usage error: reported on stderr with exit status 2."""


def _read(path: str) -> tuple[bytes, str]:
    """The file's bytes (decoded by the pipeline as UTF-8) and the name to report it under."""
    if path == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    try:
        with open(path, "rb") as handle:
            return handle.read(), path
    except OSError as exc:
        raise _Usage(f"cannot read {path}: {exc.strerror or exc}") from exc


def _policy(name: str | None) -> Any:
    if name is None:
        return None
    from safe_eval.errors import PolicyError
    from safe_eval.policy import resolve_policy

    try:
        return resolve_policy(name)
    except (PolicyError, TypeError, ValueError, OSError) as exc:
        raise _Usage(f"bad --policy {name!r}: {exc}") from exc


def _cmd_check(args: argparse.Namespace) -> int:
    from safe_eval.checking import check

    code, filename = _read(args.file)
    report = check(code, _policy(args.policy), filename=filename)
    print(report.to_json(indent=2) if args.json else report.render())
    return EXIT_OK if report.ok else EXIT_VIOLATION


def _cmd_policy_check(args: argparse.Namespace) -> int:
    from safe_eval.errors import PolicyError

    try:
        from safe_eval.policy import load_policy
    except ImportError as exc:
        raise _Usage("this build has no policy loader (safe_eval.policy.load_policy)") from exc
    try:
        policy = load_policy(args.file)
    except PolicyError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_VIOLATION
    except OSError as exc:
        raise _Usage(f"cannot read {args.file}: {exc.strerror or exc}") from exc
    imports = len(getattr(policy, "imports", ()))
    tools = len(getattr(policy, "tools", ()))
    print(f"{args.file}: policy {getattr(policy, 'name', '?')!r} is valid "
          f"({imports} imports, {tools} tool rules)")
    for note in policy.lifted_denials():
        print(f"note: {note}")
    return EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    try:
        from safe_eval.demo import main as demo_main  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise _Usage("the demo is not available in this build") from exc
    result = demo_main()
    return result if isinstance(result, int) else EXIT_OK


def _evaluate(code: bytes, filename: str, policy: Any, sandbox: str | None = None) -> tuple[Any, str]:
    """(value, captured print output) through ``safe_eval.api.Evaluator``."""
    try:
        from safe_eval.api import Evaluator
    except ImportError as exc:
        raise _Usage("this build has no evaluator (safe_eval.api)") from exc
    result = Evaluator(policy, filename=filename, sandbox=sandbox).run(code)
    return result.value, result.stdout


def _cmd_run(args: argparse.Namespace) -> int:
    from safe_eval.errors import SafeEvalError

    code, filename = _read(args.file)
    policy = _policy(args.policy)
    if args.sandbox is not None:
        from safe_eval.sandbox.selection import normalize

        try:
            normalize(args.sandbox)
        except SafeEvalError as exc:
            raise _Usage(f"bad --sandbox: {exc}") from exc
    try:
        value, stdout = _evaluate(code, filename, policy, args.sandbox)
    except SafeEvalError as exc:
        if args.json:
            print(json.dumps({"ok": False, **exc.to_dict()}, indent=2, default=repr))
        else:
            render = getattr(exc, "render", None)
            print(render() if callable(render) else str(exc), file=sys.stderr)
        return EXIT_VIOLATION
    if args.json:
        print(json.dumps({"ok": True, "value": repr(value), "stdout": stdout}, indent=2))
    else:
        if stdout:
            sys.stdout.write(stdout if stdout.endswith("\n") else stdout + "\n")
        print(repr(value))
    return EXIT_OK


def _cmd_sandbox_doctor(args: argparse.Namespace) -> int:
    from safe_eval.sandbox.doctor import OS_SANDBOXES, diagnose, render

    rows = diagnose()
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("OS sandboxes on this machine:")
        print(render(rows))
    return EXIT_OK if any(r["usable"] and r["name"] in OS_SANDBOXES for r in rows) else EXIT_VIOLATION


def _cmd_sandbox_build_image(args: argparse.Namespace) -> int:
    from safe_eval.sandbox.container import build_image

    try:
        image = build_image()
    except OSError as exc:
        print(f"safe-eval: {exc}", file=sys.stderr)
        return EXIT_VIOLATION
    print(f"built {image}")
    return EXIT_OK


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from safe_eval.integrations.mcp import serve
    except ImportError as exc:
        raise _Usage(f"the MCP server needs the mcp package: pip install 'safe-eval[mcp]' ({exc})") from exc
    if args.sandbox is not None:
        from safe_eval.errors import SafeEvalError
        from safe_eval.sandbox.selection import normalize

        try:
            normalize(args.sandbox)
        except SafeEvalError as exc:
            raise _Usage(f"bad --sandbox: {exc}") from exc
    serve(_policy(args.policy), sandbox=args.sandbox, return_mode=args.return_mode)
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="safe-eval", description="Run LLM-written Python safely.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="statically check code without running it")
    check.add_argument("file", metavar="FILE", help="a Python file, or - for stdin")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--policy", metavar="P", help="a policy name or file (default: default)")
    check.set_defaults(handler=_cmd_check)

    policy = commands.add_parser("policy", help="policy file tools")
    policy_commands = policy.add_subparsers(dest="policy_command", metavar="COMMAND")
    policy_check = policy_commands.add_parser("check", help="validate a policy file")
    policy_check.add_argument("file", metavar="FILE")
    policy_check.set_defaults(handler=_cmd_policy_check)

    run = commands.add_parser("run", help="evaluate code and print its value and output")
    run.add_argument("file", metavar="FILE", help="a Python file, or - for stdin")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.add_argument("--policy", metavar="P", help="a policy name or file (default: default)")
    run.add_argument("--sandbox", metavar="S",
                     help="run in an OS sandbox: subprocess, bwrap, container, container:runsc, off "
                          "(+cpython for plain CPython inside bwrap or a container)")
    run.set_defaults(handler=_cmd_run)

    sandbox = commands.add_parser("sandbox", help="OS sandbox tools")
    sandbox_commands = sandbox.add_subparsers(dest="sandbox_command", metavar="COMMAND")
    doctor = sandbox_commands.add_parser("doctor", help="which OS sandboxes work here, and why not")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.set_defaults(handler=_cmd_sandbox_doctor)
    build = sandbox_commands.add_parser("build-image", help="build the container backend's image")
    build.set_defaults(handler=_cmd_sandbox_build_image)

    mcp = commands.add_parser("mcp", help="serve run_python_code and check_python over MCP (stdio)")
    mcp.add_argument("--policy", metavar="P", help="a policy name or file (default: default)")
    mcp.add_argument("--sandbox", metavar="S", help="run every call in this OS sandbox (as for run)")
    mcp.add_argument("--return-mode", choices=("xml", "json"), default="xml",
                     help="run_python_code's text: mcp-run-python's tags (default) or JSON")
    mcp.set_defaults(handler=_cmd_mcp)

    demo = commands.add_parser("demo", help="a short guided tour")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        result: int = handler(args)
    except _Usage as exc:
        print(f"safe-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return result


if __name__ == "__main__":
    sys.exit(main())
