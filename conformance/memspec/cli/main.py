"""The ``memspec`` command: argument parsing and rendering only; the work is in the library.

Exit codes: 0 success, 1 failures (cases, lint problems, uncovered MUSTs), 2 usage errors,
3 a broken adapter, 130 and 143 a run stopped by SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO, cast

import memspec
from memspec.cli.output import GuardedOutput
from memspec.exceptions import MemspecError, UsageError
from memspec.wire.adapters import DEFAULT_START_TIMEOUT_S, DEFAULT_TIMEOUT_S

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BROKEN = 0, 1, 2, 3
EXIT_SIGINT, EXIT_SIGTERM = 130, 143


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (0 < value < float("inf")):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive, finite number")
    return value


_MOST_WORKERS = 1024
"""More processes than any machine runs usefully: beyond it, -n is a mistake."""


def _workers(text: str) -> str:
    if text == "auto" or (text.isascii() and text.isdigit() and 0 < int(text) <= _MOST_WORKERS):
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r}: expected a whole number from 1 to {_MOST_WORKERS}, or 'auto'"
    )


def _positive(text: str) -> int:
    if text.isascii() and text.isdigit() and int(text) > 0:
        return int(text)
    raise argparse.ArgumentTypeError(f"{text!r}: expected a positive whole number")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="memspec", description="Conformance suite for on-disk agent memory.")
    parser.add_argument(
        "--version",
        action="version",
        version=f"memspec {memspec.__version__} (protocol {memspec.PROTOCOL_VERSION})",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    run = commands.add_parser("run", help="run the suite against an adapter")
    run.add_argument(
        "--adapter",
        default="reference",
        help="reference (default), python:MODULE:ATTR or 'cmd:COMMAND LINE'",
    )
    run.add_argument(
        "--profile",
        action="append",
        default=[],
        help="only this profile (repeatable); 'protocol' selects the protocol checks",
    )
    run.add_argument(
        "-k", dest="keyword", help="only cases whose id matches this pytest -k expression"
    )
    run.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="only the case with exactly this id (repeatable)",
    )
    run.add_argument(
        "--op", action="append", default=[], help="only the cases that call this op (repeatable)"
    )
    run.add_argument("--report", help="write the JSON-lines report here")
    run.add_argument("--junit", help="write JUnit XML here")
    run.add_argument("--summary", help="write a Markdown summary here")
    run.add_argument("--expectations", help="TOML file of expected failures")
    run.add_argument(
        "--hypothesis-profile",
        choices=("dev", "ci", "thorough"),
        default="ci",
        help="Hypothesis settings for the properties: ci (default: 100 "
        "derandomised examples, the same every run), dev (25), thorough "
        "(1000, random)",
    )
    run.add_argument(
        "--observer",
        choices=("strace", "none"),
        help="strace (the default, where it can run): the harness fails each mutating "
        "system call of a crash-points step itself; none: crash points need the "
        "adapter's fault-injection",
    )
    run.add_argument(
        "--export-failures",
        metavar="DIR",
        help="write each failing property's shrunk input as a fixture file",
    )
    run.add_argument(
        "-n",
        dest="workers",
        type=_workers,
        help="run in N processes, or 'auto' (needs pytest-xdist)",
    )
    run.add_argument(
        "--timeout", type=_timeout, help=f"seconds per adapter call (default {DEFAULT_TIMEOUT_S:g})"
    )
    run.add_argument(
        "--start-timeout",
        type=_timeout,
        help=f"seconds the adapter may take to answer start (default "
        f"{DEFAULT_START_TIMEOUT_S:g}): a framework may take long to import",
    )
    run.add_argument(
        "--max-reply-bytes",
        type=_positive,
        help="longest reply line accepted from a cmd: adapter (default 64 MiB)",
    )
    run.add_argument(
        "--tree-owner",
        metavar="UID:GID",
        help="the user the adapter runs as: every folder of the run is handed to it "
        "(needs root), so permission cases run against a non-root adapter",
    )
    run.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    run.add_argument(
        "--write-expectations",
        metavar="FILE",
        help="write every failing case to FILE as an expected failure (TOML), "
        "to adopt the suite and ratchet with --expectations",
    )
    run.add_argument(
        "--shard",
        metavar="K/N",
        help="run only shard K of N: a deterministic, balanced slice by case id",
    )
    run.add_argument(
        "--label",
        metavar="TEXT",
        help="a name for this run, kept in the report header and shown by matrix, badge "
        "and diff (such as a branch or a build: 'main', 'pr-42')",
    )

    commands.add_parser("serve-reference", help="serve memref over the protocol on stdin/stdout")

    smoke = commands.add_parser("smoke", help="check that an adapter speaks the protocol")
    smoke.add_argument(
        "--adapter",
        default="reference",
        help="reference (default), python:MODULE:ATTR or 'cmd:COMMAND LINE'",
    )
    smoke.add_argument(
        "--timeout",
        type=_timeout,
        default=DEFAULT_TIMEOUT_S,
        help=f"seconds per adapter call (default {DEFAULT_TIMEOUT_S:g}, as for run)",
    )

    coverage = commands.add_parser("coverage", help="requirement -> cases table")
    coverage.add_argument(
        "--profile", action="append", default=[], help="only this profile (repeatable)"
    )
    coverage.add_argument("--json", action="store_true", help="print JSON instead of a table")

    explain = commands.add_parser(
        "explain", help="print a requirement and its cases, an op's signature, or a case"
    )
    explain.add_argument(
        "id", help="a requirement id (MEMDIR-FM-004), an op (turnlog.write) or a case id"
    )

    lint = commands.add_parser("lint", help="check fixtures and spec pages")
    lint.add_argument(
        "--profile", action="append", default=[], help="only this profile's fixtures (repeatable)"
    )
    _ci_commands(commands)
    return parser


def _ci_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    diff = commands.add_parser(
        "diff", help="compare two reports: regressions, fixes, added and removed cases"
    )
    diff.add_argument("old", help="the report to compare against (such as main's)")
    diff.add_argument("new", help="the new report")
    diff.add_argument(
        "--across-suites", action="store_true", help="compare reports of different suite versions"
    )
    diff.add_argument("--markdown", action="store_true", help="print Markdown")

    merge = commands.add_parser("merge-reports", help="join the reports of shards of one run")
    merge.add_argument("reports", nargs="+", metavar="REPORT", help="shard reports")
    merge.add_argument("-o", "--output", required=True, help="the merged report")

    badge = commands.add_parser("badge", help="shields.io endpoint JSON from a report")
    badge.add_argument("report", help="a report (JSON lines)")
    badge.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="DIR",
        help="directory for memspec.json and memspec-<profile>.json",
    )

    matrix = commands.add_parser("matrix", help="an offline HTML page comparing implementations")
    matrix.add_argument(
        "reports", nargs="+", metavar="REPORT", help="one report per implementation"
    )
    matrix.add_argument(
        "-o", "--output", required=True, metavar="DIR", help="directory for index.html"
    )
    matrix.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="TEXT",
        help="a label for each report, in the order the reports are given (repeatable); "
        "without one, a report's column shows the label of its header (memspec run --label)",
    )

    site = commands.add_parser(
        "site", help="the spec as a static site, with every case and, given reports, the results"
    )
    site.add_argument("out", metavar="OUT", help="a new directory, or a site written before")
    site.add_argument(
        "--reports",
        metavar="DIR",
        help="a directory of reports (*.jsonl, as .ci/implementations writes): results per case",
    )

    new_adapter = commands.add_parser("new-adapter", help="write a skeleton adapter")
    new_adapter.add_argument(
        "--lang",
        required=True,
        choices=("python", "node", "typescript", "go", "rust"),
        help="the language of the skeleton: python, node, typescript, go or rust",
    )
    new_adapter.add_argument("dir", help="a new or empty directory")
    new_adapter.add_argument(
        "--name", default="my-port", help="the implementation name the handshake gives"
    )


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if argv is None and arguments[:1] in (["run"], ["smoke"]):
        # memspec's own process: an in-process adapter must not be able to end it silently.
        from memspec.cli.guard import run_guarded

        return run_guarded(lambda: _main(arguments))
    return _main(arguments)


def _main(arguments: list[str]) -> int:
    output = GuardedOutput(sys.stdout)
    sys.stdout = cast(TextIO, output)
    try:
        code = _dispatch(arguments)
        output.flush()
    finally:
        sys.stdout = output.stream
    if output.lost:
        print(f"memspec: error: cannot write the output: {output.lost}", file=sys.stderr)
        return EXIT_USAGE
    return code


def _dispatch(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(_attach_dashed_values(argv))
        handler = globals()[f"_cmd_{args.command.replace('-', '_')}"]
        return int(handler(args))
    except MemspecError as exc:
        print(f"memspec: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("memspec: interrupted", file=sys.stderr)
        return EXIT_SIGINT


def _attach_dashed_values(argv: list[str]) -> list[str]:
    """``--shard -1/3`` as ``--shard=-1/3``, so that the value is judged (and refused
    with what is valid) instead of being taken for an option."""
    joined: list[str] = []
    for argument in argv:
        if joined and joined[-1] == "--shard" and argument[:1] == "-" and argument[1:2].isdigit():
            joined[-1] = f"--shard={argument}"
        else:
            joined.append(argument)
    return joined


def _check_profiles(profiles: Sequence[str], *, allow_protocol: bool) -> None:
    from memspec.corpus.profiles import known_profiles, selectable_profiles

    known = selectable_profiles() if allow_protocol else known_profiles()
    for profile in profiles:
        if profile not in known:
            raise UsageError(f"unknown profile {profile!r}; known: {', '.join(known)}")


def _cmd_run(args: argparse.Namespace) -> int:
    import pytest

    from memspec.corpus.cases import load_cases
    from memspec.corpus.expectations import load_expectations
    from memspec.plugin.run_state import check_distinct, check_writable
    from memspec.plugin.selection import check_selection
    from memspec.wire.adapters import parse_adapter_spec, parse_tree_owner

    parse_adapter_spec(args.adapter)
    if args.tree_owner:
        parse_tree_owner(args.tree_owner)
    _check_profiles(args.profile, allow_protocol=True)
    for option in ("report", "junit", "summary", "write_expectations"):
        if getattr(args, option):
            check_writable(Path(getattr(args, option)))
    check_distinct(
        {
            option: getattr(args, option)
            for option in ("report", "junit", "summary", "write_expectations", "expectations")
        }
    )
    if args.shard:
        from memspec.reports.shard import parse_shard

        args.shard = str(parse_shard(args.shard))
    if args.expectations:
        load_expectations(Path(args.expectations), rewriting=bool(args.write_expectations))
    load_cases(profiles=[p for p in args.profile if p != "protocol"] or None)
    check_selection(args.case, args.op, args.profile)
    if _adapter_is_broken(args):
        return EXIT_BROKEN
    suite = Path(__file__).resolve().parent.parent / "suite"
    pytest_args = [
        "-c",
        str(suite / "memspec-run.ini"),
        "--rootdir",
        str(suite),
        # memspec itself is imported before pytest starts, so it cannot be rewritten.
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        # Only the plugins the suite uses: another one installed beside memspec (a
        # fake file system, a benchmark, a random order) must not change a verdict.
        "--disable-plugin-autoload",
        "-p",
        "memspec.pytest_plugin",
        "-p",
        "_hypothesis_pytestplugin",
        "-p",
        "syrupy",
        "--pyargs",
        "memspec.suite",
        "-q",
        "--no-header",
        "-rN",
        "--tb=no",
        "--memspec-adapter",
        args.adapter,
        "--hypothesis-profile",
        f"memspec-{args.hypothesis_profile}",
    ]
    for option in ("profile", "case", "op"):
        for value in getattr(args, option):
            pytest_args += [f"--memspec-{option}", value]
    for option in (
        "report",
        "junit",
        "summary",
        "expectations",
        "export_failures",
        "write_expectations",
    ):
        value = getattr(args, option)
        if value:
            pytest_args += [f"--memspec-{option.replace('_', '-')}", os.path.abspath(value)]
    if args.timeout is not None:
        pytest_args += ["--memspec-timeout", repr(args.timeout)]
    if args.start_timeout is not None:
        pytest_args += ["--memspec-start-timeout", repr(args.start_timeout)]
    if args.max_reply_bytes is not None:
        pytest_args += ["--memspec-max-reply-bytes", str(args.max_reply_bytes)]
    if args.tree_owner:
        pytest_args += ["--memspec-tree-owner", args.tree_owner]
    if args.keyword:
        pytest_args += ["-k", args.keyword]
    if args.shard:
        pytest_args += ["--memspec-shard", args.shard]
    if args.label:
        pytest_args += ["--memspec-label", args.label]
    if args.observer:
        pytest_args += ["--memspec-observer", args.observer]
    if args.verbose:
        pytest_args += ["--memspec-case-lines", "yes", "-o", "console_output_style=classic"]
    if args.workers:
        if importlib.util.find_spec("xdist") is None:
            raise UsageError("-n needs pytest-xdist: pip install 'memspec[xdist]'")
        pytest_args += ["-p", "xdist.plugin", "-n", args.workers]
    _keep_hypothesis_files_out_of_cwd()
    code = pytest.main(pytest_args)
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        print("memspec: error: no case selected", file=sys.stderr)
        return EXIT_USAGE
    if code == pytest.ExitCode.USAGE_ERROR:
        return EXIT_USAGE
    if code in (EXIT_BROKEN, EXIT_SIGINT, EXIT_SIGTERM):
        return int(code)
    if code == pytest.ExitCode.INTERRUPTED:
        return EXIT_SIGINT
    return EXIT_OK if code == pytest.ExitCode.OK else EXIT_FAILED


def _adapter_is_broken(args: argparse.Namespace) -> bool:
    from memspec.plugin.preflight import adapter_problem, write_broken_reports
    from memspec.wire.adapters import Adapter, parse_tree_owner

    owner = parse_tree_owner(args.tree_owner) if args.tree_owner else None
    adapter = Adapter(
        args.adapter,
        args.timeout or DEFAULT_TIMEOUT_S,
        owner,
        args.max_reply_bytes,
        args.start_timeout or DEFAULT_START_TIMEOUT_S,
    )
    problem, handshake = adapter_problem(adapter)
    if not problem:
        return False
    print(f"memspec: adapter broken: {problem}", file=sys.stderr)
    write_broken_reports(
        problem,
        handshake,
        args.adapter,
        *(os.path.abspath(p) if p else None for p in (args.report, args.junit, args.summary)),
    )
    return True


def _keep_hypothesis_files_out_of_cwd() -> None:
    """Hypothesis keeps caches in ./.hypothesis; a run started anywhere must not litter."""
    from hypothesis.configuration import set_hypothesis_home_dir

    from memspec.corpus.cases import cache_dir

    folder = cache_dir()
    if folder is None:  # no cache: a folder of this run, removed at exit
        import atexit
        import shutil
        import tempfile

        from memspec.wire.working_directory import keep_as_harness_entry

        scratch = tempfile.mkdtemp(prefix="memspec-hypothesis-")
        keep_as_harness_entry(scratch)
        atexit.register(shutil.rmtree, scratch, True)
        set_hypothesis_home_dir(scratch)
        return
    set_hypothesis_home_dir(str(folder / "hypothesis"))


def _cmd_serve_reference(args: argparse.Namespace) -> int:
    from memspec.wire.serve import serve_reference

    return serve_reference()


def _cmd_smoke(args: argparse.Namespace) -> int:
    from memspec.cli.smoke import smoke
    from memspec.wire.adapters import parse_adapter_spec

    parse_adapter_spec(args.adapter)
    result = smoke(args.adapter, args.timeout)
    for name, passed, detail in result.checks:
        print(f"{'ok  ' if passed else 'FAIL'} {name}" + (f": {detail}" if detail else ""))
    if result.ok:
        print(f"adapter {args.adapter}: speaks the protocol")
        return EXIT_OK
    print(
        f"adapter broken: {args.adapter} does not speak the protocol (this is not a "
        "conformance result)"
    )
    return EXIT_BROKEN


def _cmd_coverage(args: argparse.Namespace) -> int:
    from memspec.cli.coverage import requirement_coverage

    _check_profiles(args.profile, allow_protocol=True)
    rows = requirement_coverage(args.profile)
    missing = [row for row in rows if row.missing]
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "requirement": r.requirement.id,
                        "level": r.requirement.level,
                        "cases": list(r.cases),
                    }
                    for r in rows
                ],
                indent=2,
            )
        )
    else:
        width = max((len(r.requirement.id) for r in rows), default=10)
        for row in rows:
            status = "MISSING" if row.missing else f"{len(row.cases):>3} case(s)"
            first = f"  e.g. {row.cases[0]}" if row.cases else ""
            print(f"{row.requirement.id:<{width}}  {row.requirement.level:<10}  {status}{first}")
        covered = sum(1 for r in rows if r.cases)
        print(f"\n{len(rows)} requirements, {covered} covered, {len(missing)} MUST without a case")
    return EXIT_FAILED if missing else EXIT_OK


def _cmd_explain(args: argparse.Namespace) -> int:
    from memspec.cli.explain import explain

    for line in explain(args.id):
        print(line)
    return EXIT_OK


def _cmd_lint(args: argparse.Namespace) -> int:
    from memspec.cli.lint import lint
    from memspec.corpus.cases import refuse_unreadable_nesting

    _check_profiles(args.profile, allow_protocol=False)
    notes: list[str] = []
    try:
        problems = lint(profiles=args.profile or None, notes=notes)
    except RecursionError:
        # lint parses each file itself: name the one its parser could not follow.
        for path in _fixture_files(args.profile):
            refuse_unreadable_nesting(path)
        raise
    for problem in problems:
        print(problem)
    for note in notes:
        print(note)
    if problems:
        print(f"{len(problems)} problem(s)")
        return EXIT_FAILED
    print("lint: clean")
    return EXIT_OK


def _fixture_files(profiles: Sequence[str]) -> list[Path]:
    """The fixture files lint reads: every one, or those of ``profiles``."""
    from memspec.corpus.cases import fixture_files
    from memspec.corpus.data import fixtures_dir

    root = fixtures_dir()
    return [
        path
        for path in fixture_files(root)
        if not profiles or path.relative_to(root).parts[0] in profiles
    ]


def _cmd_diff(args: argparse.Namespace) -> int:
    from memspec.reports.diff import diff_reports, render_diff
    from memspec.reports.merge import load_run

    result = diff_reports(
        load_run(Path(args.old)), load_run(Path(args.new)), across_suites=args.across_suites
    )
    for line in render_diff(result, markdown=args.markdown):
        print(line)
    return EXIT_FAILED if result.regressed else EXIT_OK


def _cmd_merge_reports(args: argparse.Namespace) -> int:
    from memspec.reports.merge import load_run, merge_runs

    output = Path(args.output)
    check_output = output.resolve()
    runs = [load_run(Path(path)) for path in args.reports]
    if any(run.path.resolve() == check_output for run in runs):
        raise UsageError(f"-o {output}: would overwrite one of the reports it merges")
    merged = merge_runs(runs)
    merged.write(output)
    print(f"merged {len(runs)} reports, {len(merged.records)} cases: {output}")
    if merged.nothing_ran:
        print(f"memspec: nothing ran in any shard: {merged.nothing_ran}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _cmd_badge(args: argparse.Namespace) -> int:
    from memspec.reports.badge import write_badges
    from memspec.reports.merge import load_run

    for path in write_badges(load_run(Path(args.report)), Path(args.output)):
        print(path)
    return EXIT_OK


def _cmd_matrix(args: argparse.Namespace) -> int:
    from memspec.reports.matrix import write_matrix
    from memspec.reports.merge import load_run

    runs = [load_run(Path(path)) for path in args.reports]
    print(write_matrix(runs, Path(args.output), args.label))
    return EXIT_OK


def _cmd_site(args: argparse.Namespace) -> int:
    from memspec.cli.site import build_site

    summary = build_site(Path(args.out), Path(args.reports) if args.reports else None)
    print(
        f"site: {len(summary.pages)} pages, {summary.requirements} requirements, "
        f"{summary.cases} cases, {summary.implementations} implementation report(s), "
        f"{summary.size / 1e6:.1f} MB in {summary.seconds:.1f} s: "
        f"{summary.out / 'index.html'}"
    )
    return EXIT_OK


def _cmd_new_adapter(args: argparse.Namespace) -> int:
    from memspec.cli.new_adapter import new_adapter

    written = new_adapter(args.lang, Path(args.dir), args.name)
    for line in written:
        print(line)
    return EXIT_OK
