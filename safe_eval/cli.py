"""The ``safe-eval`` command line.

    safe-eval check FILE|- [--json] [--policy P] [--env FILE.json|NAME,NAME]
                                                     static check; nothing runs
    safe-eval run FILE|- [--json] [--policy P] [--env FILE.json] [--limits time=1,memory=64MB]
                     [--sandbox S]                   evaluate; print the output and the value's repr
                                                     (in the OS sandbox S: subprocess, bwrap ...)
    safe-eval rules [--json]                         every diagnostic code (safe_eval/rules.py)
    safe-eval policy check FILE [--json]             validate a policy file: every error, and a
                                                     warning for each rule an earlier one shadows
    safe-eval sandbox doctor [--json]                which OS sandboxes work here
    safe-eval sandbox build-image                    build the container backend's image locally
    safe-eval mcp [--policy P] [--sandbox S] [--return-mode xml|json]
                                                     an MCP server on stdio (run_python_code,
                                                     check_python); needs the ``mcp`` extra
    safe-eval batch JOBS.jsonl --out OUT.jsonl [--workers N] [--ray ADDRESS] [--sandbox S]
                                                     many jobs on every core (or Ray), JSON lines,
                                                     resumable (see safe_eval/batch/jsonl.py)
    safe-eval demo                                   a guided tour
    safe-eval --version

Exit status, one per failure class (``EXIT_*`` below):

    0  success (``check``: no errors; warnings allowed)
    1  static refusal: the code (``check``, ``run``) or the policy file (``policy check``)
       breaks a rule; nothing ran
    2  usage: bad arguments, an unreadable file, an unknown policy, a bad --env/--limits
    3  policy violation at run time: a denied tool call or a refused host value
    4  guest error: the code raised an exception it did not catch
    5  limit: a resource limit ran out (time, ops, memory, recursion, output)
    6  internal: a bug in safe-eval, or an OS sandbox that failed (``sandbox doctor``: none usable)

With ``--json`` every output is one JSON document on stdout, errors included (``ok`` false,
the error's ``to_dict()`` keys, ``exit_code``). ``run --json`` gives the value as JSON when it
is plain data (``"value_kind": "json"``), else its repr (``"value_kind": "repr"``). A closed
pipe (``safe-eval rules | head -1``) ends the command quietly. Imports are lazy so
``safe-eval check`` does not pay for the interpreter.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = [
    "EXIT_GUEST", "EXIT_INTERNAL", "EXIT_LIMIT", "EXIT_OK", "EXIT_POLICY", "EXIT_REFUSED", "EXIT_USAGE",
    "main",
]

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_POLICY = 3
EXIT_GUEST = 4
EXIT_LIMIT = 5
EXIT_INTERNAL = 6
EXIT_BROKEN_PIPE = 141  # as a shell reports a writer SIGPIPE ended (128 + 13)

EXIT_VIOLATION = EXIT_REFUSED  # the 0.1 name


class _Usage(Exception):
    """A usage error: reported on stderr (or as JSON) with exit status 2."""


def _emit(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=repr))


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


def _env(spec: str | None, *, names_allowed: bool) -> dict[str, Any]:
    """``--env``: a JSON file holding an object (names and their data), or (``check`` only)
    a comma-separated list of names."""
    if spec is None:
        return {}
    if spec.endswith(".json") or os.path.exists(spec) or not names_allowed:
        try:
            with open(spec, encoding="utf-8") as handle:
                data = json.load(handle)
        except OSError as exc:
            raise _Usage(f"cannot read --env {spec}: {exc.strerror or exc}") from exc
        except ValueError as exc:
            raise _Usage(f"--env {spec} is not valid JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise _Usage(f"--env {spec} must hold a JSON object (names and their values)")
        return data
    names = [n.strip() for n in spec.split(",") if n.strip()]
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise _Usage(f"--env: {bad[0]!r} is not a name (give NAME,NAME or a FILE.json)")
    return dict.fromkeys(names)


def _limits(spec: str | None) -> dict[str, Any] | None:
    """``--limits time=1,memory=64MB``: each value written as in a policy's ``limits`` line."""
    if spec is None:
        return None
    from safe_eval.errors import PolicyError
    from safe_eval.policy.dsl import parse_policy

    out: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        field, sep, value = item.partition("=")
        field = field.strip()
        if not sep or not value.strip():
            raise _Usage(f"--limits: write NAME=VALUE, e.g. time=1,memory=64MB (got {item!r})")
        try:
            out[field] = getattr(parse_policy(f"limits {field} {value.strip()}").limits, field)
        except PolicyError as exc:
            raise _Usage(f"--limits {item!r}: {exc.message}") from exc
    return out


def _exit_code(exc: BaseException, static: bool) -> int:
    """The exit status of a failure class (``static``: the checks refused the code before it
    ran; else a violation is one the run met, e.g. a denied tool call)."""
    from safe_eval.errors import GuestError, LimitExceeded, PolicyViolation

    if isinstance(exc, PolicyViolation):
        return EXIT_REFUSED if static else EXIT_POLICY
    if isinstance(exc, GuestError):
        return EXIT_GUEST
    if isinstance(exc, LimitExceeded):
        return EXIT_LIMIT
    return EXIT_INTERNAL


# -- commands ------------------------------------------------------------------------------------
def _cmd_check(args: argparse.Namespace) -> int:
    from safe_eval.checking import check

    code, filename = _read(args.file)
    env = _env(args.env, names_allowed=True)
    report = check(code, _policy(args.policy), env=env, filename=filename)
    if args.json:
        _emit({**report.to_dict(), "exit_code": EXIT_OK if report.ok else EXIT_REFUSED})
    else:
        print(report.render())
    return EXIT_OK if report.ok else EXIT_REFUSED


def _cmd_rules(args: argparse.Namespace) -> int:
    from safe_eval.rules import RULES

    if args.json:
        _emit([rule.to_dict() for rule in RULES.values()])
        return EXIT_OK
    width = max(len(r.name) for r in RULES.values())
    for rule in RULES.values():
        print(f"{rule.code}  {rule.name:<{width}}  {rule.stage:<8}  {rule.severity:<7}  {rule.summary}")
    return EXIT_OK


def _cmd_policy_check(args: argparse.Namespace) -> int:
    from safe_eval.policy.lint import lint_policy_file

    try:
        report = lint_policy_file(args.file)
    except OSError as exc:
        raise _Usage(f"cannot read {args.file}: {exc.strerror or exc}") from exc
    status = EXIT_OK if report.ok else EXIT_REFUSED
    if args.json:
        _emit({**report.to_dict(), "exit_code": status})
        return status
    for error in report.errors:
        print(error.render(), file=sys.stderr)
    for warning in report.warnings:
        print(warning, file=sys.stderr)
    if report.policy is not None:
        policy = report.policy
        print(f"{args.file}: policy {policy.name!r} is valid "
              f"({len(policy.imports)} imports, {len(policy.tools)} tool rules)")
        for note in policy.lifted_denials():
            print(f"note: {note}")
    else:
        count = len(report.errors)
        print(f"{args.file}: {count} error{'s' if count != 1 else ''}", file=sys.stderr)
    return status


def _cmd_demo(args: argparse.Namespace) -> int:
    try:
        from safe_eval.demo import main as demo_main  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise _Usage("the demo is not available in this build") from exc
    result = demo_main()
    return result if isinstance(result, int) else EXIT_OK


def _cmd_run(args: argparse.Namespace) -> int:
    from safe_eval.api import Evaluator
    from safe_eval.errors import SafeEvalError

    code, filename = _read(args.file)
    policy = _policy(args.policy)
    env = _env(args.env, names_allowed=False)
    limits = _limits(args.limits)
    if args.sandbox is not None:
        from safe_eval.sandbox.selection import normalize

        try:
            normalize(args.sandbox)
        except SafeEvalError as exc:
            raise _Usage(f"bad --sandbox: {exc}") from exc
    try:
        evaluator = Evaluator(policy, limits=limits, filename=filename, sandbox=args.sandbox)
    except (TypeError, ValueError) as exc:  # a limit out of range
        raise _Usage(f"bad --limits: {exc}") from exc
    from safe_eval.checking import check
    from safe_eval.errors import PolicyViolation

    report = check(code, evaluator.policy, env=env, filename=filename)
    if not report.ok:  # refused before anything runs: a violation the run raises is a run-time one
        refused = PolicyViolation(report.diagnostics, report.source, filename=filename)
        return _report_failure(refused, args.json, static=True)
    try:
        result = evaluator.run(code, env)
    except SafeEvalError as exc:
        return _report_failure(exc, args.json)
    if args.json:
        _emit({"ok": True, **_value_json(result.value), "stdout": result.stdout, "exit_code": EXIT_OK})
    else:
        if result.stdout:
            sys.stdout.write(result.stdout if result.stdout.endswith("\n") else result.stdout + "\n")
        print(repr(result.value))
    return EXIT_OK


def _report_failure(exc: BaseException, as_json: bool, *, static: bool = False) -> int:
    status = _exit_code(exc, static)
    stdout = getattr(exc, "stdout", "") or ""  # what the code printed before it failed
    if as_json:
        to_dict = getattr(exc, "to_dict", None)
        data = to_dict() if callable(to_dict) else {"error": type(exc).__name__, "message": str(exc)}
        _emit({"ok": False, **data, "stdout": stdout, "exit_code": status})
        return status
    if stdout:
        sys.stdout.write(stdout if stdout.endswith("\n") else stdout + "\n")
        sys.stdout.flush()
    render = getattr(exc, "render", None)
    print(render() if callable(render) else str(exc), file=sys.stderr)
    return status


def _value_json(value: Any) -> dict[str, Any]:
    """The value as JSON when it is plain data, else its repr, marked by ``value_kind``."""
    plain = _plain(value, 0)
    if plain is not _NOT_PLAIN:
        return {"value": plain, "value_kind": "json"}
    return {"value": repr(value), "value_kind": "repr"}


_NOT_PLAIN: Any = object()
_MAX_DEPTH = 100


def _plain(value: Any, depth: int) -> Any:
    """A JSON-able copy built from exact builtin types only (no guest method runs), or
    ``_NOT_PLAIN``. Tuples become lists."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value if math.isfinite(value) else _NOT_PLAIN
    if depth >= _MAX_DEPTH:
        return _NOT_PLAIN
    if kind in (list, tuple):
        items = [_plain(item, depth + 1) for item in value]
        return _NOT_PLAIN if any(item is _NOT_PLAIN for item in items) else items
    if kind is dict:
        out = {}
        for key, item in value.items():
            converted = _plain(item, depth + 1)
            if type(key) is not str or converted is _NOT_PLAIN:
                return _NOT_PLAIN
            out[key] = converted
        return out
    return _NOT_PLAIN


def _cmd_sandbox_doctor(args: argparse.Namespace) -> int:
    from safe_eval.sandbox.doctor import OS_SANDBOXES, diagnose, render

    rows = diagnose()
    if args.json:
        _emit(rows)
    else:
        print("OS sandboxes on this machine:")
        print(render(rows))
    return EXIT_OK if any(r["usable"] and r["name"] in OS_SANDBOXES for r in rows) else EXIT_INTERNAL


def _cmd_sandbox_build_image(args: argparse.Namespace) -> int:
    from safe_eval.sandbox.container import build_image

    try:
        image = build_image()
    except OSError as exc:
        print(f"safe-eval: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
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


def _cmd_batch(args: argparse.Namespace) -> int:
    from safe_eval.batch import LocalPool, evaluate_iter
    from safe_eval.batch.jsonl import JobFileError, done_ids, read_jobs, write_outcomes
    from safe_eval.errors import SafeEvalError

    policy = _policy(args.policy)
    try:
        jobs = read_jobs(args.jobs)
    except JobFileError as exc:
        raise _Usage(str(exc)) from exc
    except OSError as exc:
        raise _Usage(f"cannot read {args.jobs}: {exc.strerror or exc}") from exc
    try:
        finished = done_ids(args.out)
    except OSError as exc:
        raise _Usage(f"cannot read {args.out}: {exc.strerror or exc}") from exc
    todo = [job for job in jobs if job.id not in finished]
    try:
        if args.ray is not None:
            from safe_eval.batch.on_ray import RayExecutor

            executor: Any = RayExecutor(None if args.ray == "local" else args.ray, args.workers,
                                        sandbox=args.sandbox or "subprocess")
        else:
            executor = LocalPool(args.workers, sandbox=args.sandbox or "subprocess")
    except (SafeEvalError, ValueError) as exc:
        raise _Usage(str(exc)) from exc
    try:
        with open(args.out, "a", encoding="utf-8") as out:
            results = evaluate_iter(todo, policy=policy, executor=executor, progress=None)
            write_outcomes(out, todo, results)
    finally:
        executor.close()
    print(f"{len(todo)} jobs run, {len(jobs) - len(todo)} already in {args.out}", file=sys.stderr)
    return EXIT_OK


# -- the parser ----------------------------------------------------------------------------------
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("safe-eval")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without metadata
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="safe-eval", description="Run LLM-written Python safely.")
    parser.add_argument("--version", action="version", version=f"safe-eval {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="statically check code without running it")
    check.add_argument("file", metavar="FILE", help="a Python file, or - for stdin")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--policy", metavar="P", help="a policy name or file (default: default)")
    check.add_argument("--env", metavar="FILE.json|NAMES",
                       help="the names the host defines: a JSON object, or NAME,NAME")
    check.set_defaults(handler=_cmd_check)

    rules = commands.add_parser("rules", help="list every diagnostic code")
    rules.add_argument("--json", action="store_true", help="print the rules as JSON")
    rules.set_defaults(handler=_cmd_rules)

    policy = commands.add_parser("policy", help="policy file tools")
    policy_commands = policy.add_subparsers(dest="policy_command", metavar="COMMAND")
    policy_check = policy_commands.add_parser("check", help="validate a policy file")
    policy_check.add_argument("file", metavar="FILE")
    policy_check.add_argument("--json", action="store_true", help="print the report as JSON")
    policy_check.set_defaults(handler=_cmd_policy_check)

    run = commands.add_parser("run", help="evaluate code and print its value and output")
    run.add_argument("file", metavar="FILE", help="a Python file, or - for stdin")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.add_argument("--policy", metavar="P", help="a policy name or file (default: default)")
    run.add_argument("--env", metavar="FILE.json", help="a JSON object: the names the code sees")
    run.add_argument("--limits", metavar="L", help="override limits, e.g. time=1,memory=64MB,ops=100000")
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
    batch = commands.add_parser("batch", help="evaluate a JSON-lines file of jobs on every core or on Ray")
    batch.add_argument("jobs", metavar="JOBS",
                       help='a JSON-lines file, a job a line: {"id", "code", "env", "limits"}')
    batch.add_argument("--out", required=True, metavar="OUT",
                       help="where the outcomes go, a JSON line each (ids already there are skipped)")
    batch.add_argument("--workers", type=int, metavar="N", help="worker processes (default: one per core)")
    batch.add_argument("--ray", metavar="ADDRESS", help="run on Ray: local, auto, or ray://host:port")
    batch.add_argument("--sandbox", metavar="S", help="the workers' OS sandbox (default: subprocess)")
    batch.add_argument("--policy", metavar="P", help="a policy name or file (default: default)")
    batch.set_defaults(handler=_cmd_batch)

    demo = commands.add_parser("demo", help="a short guided tour")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away (``| head``): no traceback, and none at exit when Python
        # flushes stdout again
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a real file (a test's capture)
            pass
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    as_json = bool(getattr(args, "json", False))
    try:
        result: int = handler(args)
    except _Usage as exc:
        if as_json:
            _emit({"ok": False, "error": "UsageError", "message": str(exc), "exit_code": EXIT_USAGE})
        else:
            print(f"safe-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return result


if __name__ == "__main__":
    sys.exit(main())
