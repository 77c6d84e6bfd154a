"""The subprocess path costs what the protocol costs: ``memspec serve-reference`` starts
without the harness, and the extra connections of concurrent steps are started once per
run, not once per step (speed itself is measured in benchmarks/, never here)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from conftest import Runner
from memref_variants import variant_cmd, variant_env

from memspec.corpus.cases import load_cases
from memspec.reports.report import read_report

_START_AND_STOP = (
    '{"id": 1, "op": "start", "args": {"protocol_version": "1.1.0"}}\n'
    '{"id": 2, "op": "stop", "args": {}}\n'
)
# What the ``memspec`` console script runs, then the modules loaded by the end.
_CONSOLE_SCRIPT = (
    "import sys; from memspec.cli.entry import main; status = main(); "
    "sys.stderr.write(' '.join(sys.modules)); sys.exit(status)"
)
_HARNESS_PACKAGES = {"jsonschema", "referencing", "pytest", "_pytest", "pluggy", "hypothesis"}


def _loaded(code: str, *argv: str, stdin: str = "") -> set[str]:
    run = subprocess.run(
        [sys.executable, "-c", code, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert run.stdout.count("\n") == stdin.count("\n"), run.stdout  # one reply a request
    return set(run.stderr.split())


def _imported_modules(*argv: str) -> set[str]:
    """The modules the command loads beyond what the interpreter itself loads (site and
    the .pth files of this environment)."""
    before = _loaded("import sys; sys.stderr.write(' '.join(sys.modules))")
    return _loaded(_CONSOLE_SCRIPT, *argv, stdin=_START_AND_STOP) - before


def test_serve_reference_imports_memref_and_nothing_of_the_harness() -> None:
    """Besides memref and the standard library, only the package and its entry point:
    no command-line parser, no schema validator, no pytest, no package metadata."""
    modules = _imported_modules("serve-reference")
    assert "memref.serve" in modules
    own = {m for m in modules if m.split(".")[0] == "memspec"}
    assert own == {
        "memspec",
        "memspec.cli",
        "memspec.cli.entry",
        "memspec.wire",
        "memspec.wire.serve",
    }
    for module in modules:
        top = module.split(".")[0]
        assert top in sys.stdlib_module_names or top in ("memref", "memspec"), module
    assert not _HARNESS_PACKAGES & {m.split(".")[0] for m in modules}
    assert not {"argparse", "importlib.metadata"} & modules


def test_every_other_command_still_goes_through_the_command_line() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _CONSOLE_SCRIPT, "serve-reference", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0 and "usage: " in run.stdout


# The concurrent cases of two profiles, each with one step of eight workers.
CONCURRENT_CASES = (
    "factstore/write/concurrent-distinct-facts",
    "factstore/write/concurrent-same-fact",
    "turnlog/store/concurrent-index",
    "turnlog/write/concurrent-same-name",
)


def _run(memspec_cli: Runner, tmp_path: Path, adapter: str, *cases: str) -> dict[str, str]:
    report = tmp_path / "r.jsonl"
    memspec_cli(
        "run",
        "--adapter",
        adapter,
        *[argument for case in cases for argument in ("--case", case)],
        "--report",
        str(report),
        env=variant_env(),
    )
    return {r["id"]: r["outcome"] for r in read_report(report) if r["type"] == "case"}


def test_concurrent_steps_reuse_their_connections_across_cases(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """Four cases of eight workers each are answered by eight processes in all."""
    log = tmp_path / "requests.log"
    outcomes = _run(memspec_cli, tmp_path, variant_cmd("LogsRequests", str(log)), *CONCURRENT_CASES)
    assert outcomes == dict.fromkeys(CONCURRENT_CASES, "passed")
    concurrent_ops = {
        step.op
        for case in load_cases()
        if case.id in CONCURRENT_CASES
        for step in case.steps
        if step.concurrent
    }
    requests = [line.split(" ", 1) for line in log.read_text(encoding="utf-8").splitlines()]
    answering = Counter(pid for pid, op in requests if op in concurrent_ops)
    assert len(answering) == 8, answering


def test_a_worker_that_died_is_replaced_before_the_next_case(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """A worker dying in one case makes that case an error; the next concurrent case gets
    a fresh process in its place and passes."""
    marker = tmp_path / "died"
    outcomes = _run(
        memspec_cli,
        tmp_path,
        variant_cmd("DiesOnce", str(marker), "turnlog.write", "1"),
        "turnlog/write/concurrent-distinct-bodies",
        "turnlog/write/concurrent-same-name",
    )
    assert marker.exists()
    assert outcomes == {
        "turnlog/write/concurrent-distinct-bodies": "error",
        "turnlog/write/concurrent-same-name": "passed",
    }
