"""The ``memspec`` command: argument parsing and rendering only; the work is in the library.

Exit codes: 0 success, 1 failures (cases, lint problems, uncovered MUSTs), 2 usage errors,
3 a broken adapter.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import memspec
from memspec.exceptions import MemspecError, UsageError

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BROKEN = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="memspec", description="Conformance suite for on-disk agent memory.")
    parser.add_argument("--version", action="version",
                        version=f"memspec {memspec.__version__} (protocol "
                                f"{memspec.PROTOCOL_VERSION})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    run = commands.add_parser("run", help="run the suite against an adapter")
    run.add_argument("--adapter", default="reference",
                     help="reference (default), python:MODULE:ATTR or 'cmd:COMMAND LINE'")
    run.add_argument("--profile", action="append", default=[], help="a profile (repeatable)")
    run.add_argument("-k", dest="keyword", help="only cases matching this pytest -k expression")
    run.add_argument("--report", help="write the JSON-lines report here")
    run.add_argument("--junit", help="write JUnit XML here")
    run.add_argument("--summary", help="write a Markdown summary here")
    run.add_argument("--expectations", help="TOML file of expected failures")
    run.add_argument("--hypothesis-profile", choices=("dev", "ci", "thorough"),
                     help="Hypothesis settings for the properties (default: ci when the "
                          "CI variable is set, else dev)")
    run.add_argument("-n", dest="workers", help="run in N processes (needs pytest-xdist)")
    run.add_argument("--timeout", type=float, help="seconds per adapter call (default 10)")
    run.add_argument("--tree-owner", metavar="UID:GID",
                     help="the user the adapter runs as: each case's tree is handed to it "
                          "(needs root), so permission cases run against a non-root adapter")
    run.add_argument("-v", "--verbose", action="store_true", help="one line per case")

    commands.add_parser("serve-reference", help="serve memref over the protocol on stdin/stdout")

    smoke = commands.add_parser("smoke", help="check that an adapter speaks the protocol")
    smoke.add_argument("--adapter", default="reference")
    smoke.add_argument("--timeout", type=float, default=5.0)

    coverage = commands.add_parser("coverage", help="requirement -> cases table")
    coverage.add_argument("--profile", action="append", default=[])
    coverage.add_argument("--json", action="store_true", help="print JSON instead of a table")

    explain = commands.add_parser("explain", help="print a requirement or case and its cases")
    explain.add_argument("id", help="a requirement id (MEMDIR-FM-004) or a case id")

    commands.add_parser("lint", help="check fixtures and spec pages")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        handler = globals()[f"_cmd_{args.command.replace('-', '_')}"]
        return int(handler(args))
    except UsageError as exc:
        print(f"memspec: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except MemspecError as exc:
        print(f"memspec: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("memspec: interrupted", file=sys.stderr)
        return 130


def _known_profiles() -> set[str]:
    from memspec._data import fixtures_dir

    return {p.name for p in fixtures_dir().iterdir() if p.is_dir() and not p.name.startswith("_")}


def _cmd_run(args: argparse.Namespace) -> int:
    import pytest

    from memspec.adapters import parse_adapter_spec, parse_tree_owner
    from memspec.cases import load_cases
    from memspec.expectations import load_expectations

    parse_adapter_spec(args.adapter)
    if args.tree_owner:
        parse_tree_owner(args.tree_owner)
    known = _known_profiles()
    for profile in args.profile:
        if profile not in known:
            raise UsageError(f"unknown profile {profile!r}; known: {', '.join(sorted(known))}")
    if args.expectations:
        load_expectations(Path(args.expectations))
    load_cases(profiles=args.profile or None)
    suite = Path(__file__).resolve().parent / "suite"
    pytest_args = [
        "-c", str(suite / "memspec-run.ini"), "--rootdir", str(suite),
        # memspec itself is imported before pytest starts, so it cannot be rewritten.
        "-W", "ignore::pytest.PytestAssertRewriteWarning",
        "-p", "memspec.pytest_plugin", "-p", "no:benchmark", "--pyargs", "memspec.suite",
        "-v" if args.verbose else "-q", "--no-header", "-rN", "--tb=no",
        "--memspec-adapter", args.adapter,
    ]
    for profile in args.profile:
        pytest_args += ["--memspec-profile", profile]
    for option in ("report", "junit", "summary", "expectations"):
        value = getattr(args, option)
        if value:
            pytest_args += [f"--memspec-{option}", str(Path(value).resolve())]
    if args.timeout is not None:
        pytest_args += ["--memspec-timeout", str(args.timeout)]
    if args.tree_owner:
        pytest_args += ["--memspec-tree-owner", args.tree_owner]
    if args.keyword:
        pytest_args += ["-k", args.keyword]
    profile = args.hypothesis_profile or ("ci" if os.environ.get("CI") else "dev")
    pytest_args += ["--hypothesis-profile", profile]
    if args.workers:
        if importlib.util.find_spec("xdist") is None:
            raise UsageError("-n needs pytest-xdist: pip install 'memspec[xdist]'")
        pytest_args += ["-n", args.workers]
    _keep_hypothesis_files_out_of_cwd()
    code = pytest.main(pytest_args)
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        print("memspec: error: no case selected", file=sys.stderr)
        return EXIT_USAGE
    if code == pytest.ExitCode.USAGE_ERROR:
        return EXIT_USAGE
    if code == EXIT_BROKEN:
        return EXIT_BROKEN
    return EXIT_OK if code == pytest.ExitCode.OK else EXIT_FAILED


def _keep_hypothesis_files_out_of_cwd() -> None:
    """Hypothesis keeps caches in ./.hypothesis; a run started anywhere must not litter."""
    from hypothesis.configuration import set_hypothesis_home_dir

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    set_hypothesis_home_dir(os.path.join(base, "memspec", "hypothesis"))


def _cmd_serve_reference(args: argparse.Namespace) -> int:
    from memref.serve import serve

    return serve()


def _cmd_smoke(args: argparse.Namespace) -> int:
    from memspec.adapters import parse_adapter_spec
    from memspec.smoke import smoke

    parse_adapter_spec(args.adapter)
    result = smoke(args.adapter, args.timeout)
    for name, passed, detail in result.checks:
        print(f"{'ok  ' if passed else 'FAIL'} {name}" + (f": {detail}" if detail else ""))
    if result.ok:
        print(f"adapter {args.adapter}: speaks the protocol")
        return EXIT_OK
    print(f"adapter broken: {args.adapter} does not speak the protocol (this is not a "
          "conformance result)")
    return EXIT_BROKEN


def _cmd_coverage(args: argparse.Namespace) -> int:
    from memspec._coverage import requirement_coverage

    rows = requirement_coverage(args.profile)
    missing = [row for row in rows if row.missing]
    if args.json:
        print(json.dumps([{"requirement": r.requirement.id, "level": r.requirement.level,
                           "cases": list(r.cases)} for r in rows], indent=2))
    else:
        width = max((len(r.requirement.id) for r in rows), default=10)
        for row in rows:
            status = "MISSING" if row.missing else f"{len(row.cases):>3} case(s)"
            first = f"  e.g. {row.cases[0]}" if row.cases else ""
            print(f"{row.requirement.id:<{width}}  {row.requirement.level:<10}  {status}{first}")
        covered = sum(1 for r in rows if r.cases)
        print(f"\n{len(rows)} requirements, {covered} covered, "
              f"{len(missing)} MUST without a case")
    return EXIT_FAILED if missing else EXIT_OK


def _cmd_explain(args: argparse.Namespace) -> int:
    from memspec._coverage import requirement_coverage
    from memspec.cases import load_cases
    from memspec.suite.registry import registered_cases

    target = args.id
    for row in requirement_coverage():
        if row.requirement.id == target:
            requirement = row.requirement
            print(f"{requirement.id} ({requirement.level}) — spec/{requirement.page}, "
                  f"§ {requirement.section}\n")
            print(f"  {requirement.text}\n")
            print(f"{len(row.cases)} case(s):")
            descriptions = {case.id: case.description
                            for case in load_cases(profiles=[requirement.profile])}
            descriptions.update({entry.id: entry.description for entry in registered_cases()})
            for case_id in row.cases:
                description = descriptions.get(case_id)
                print(f"  {case_id}" + (f": {description}" if description else ""))
            return EXIT_OK
    for case in load_cases():
        if case.id == target and case.path is not None:
            print(case.path.read_text(encoding="utf-8"))
            return EXIT_OK
    for entry in registered_cases():
        if entry.id == target:
            print(f"{entry.id} ({entry.kind} test in memspec.suite): {entry.description}")
            print(f"requirements: {', '.join(entry.requirements)}")
            return EXIT_OK
    raise UsageError(f"no requirement or case with id {target!r}")


def _cmd_lint(args: argparse.Namespace) -> int:
    from memspec.lint import lint

    problems = lint()
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s)")
        return EXIT_FAILED
    print("lint: clean")
    return EXIT_OK
