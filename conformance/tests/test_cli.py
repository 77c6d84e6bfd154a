"""The command line as users meet it: exit codes, one-line errors, no tracebacks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, Runner, fake_cmd, fakes_env, run_memspec


def _one_line_usage_error(result: object, needle: str) -> None:
    stderr: str = result.stderr  # type: ignore[attr-defined]
    assert result.returncode == 2, (result.returncode, stderr)  # type: ignore[attr-defined]
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("memspec: error:") and needle in lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "--adapter", "docker:foo"], "unknown adapter 'docker:foo'"),
        (["run", "--adapter", "python:only-module"], "expected python:MODULE:ATTR"),
        (["run", "--adapter", "python:no_such_module_x:Thing"], "cannot import"),
        (["run", "--adapter", "cmd:"], "empty command line"),
        (["run", "--adapter", "cmd:'unclosed"], "No closing quotation"),
        (["run", "--profile", "nosuch"], "unknown profile 'nosuch'"),
        (["run", "--hypothesis-profile", "fast"], "invalid choice"),
        (["run", "--bogus"], "unrecognized arguments"),
        (["run", "--tree-owner", "nobody"], "expected UID:GID"),
        (["explain", "NOPE-X-001"], "no requirement, case or op 'NOPE-X-001'"),
        (["explain", "memories.nope"], "no requirement, case or op 'memories.nope'"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(
    args: list[str], needle: str, demo_env: dict[str, str], memspec_cli: Runner
) -> None:
    _one_line_usage_error(memspec_cli(*args, env=demo_env), needle)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("[[expected_failure]\ncase = 1", "not valid TOML"),
        ('[[expected_failure]]\ncase = "demo/echo/plain"\n', "needs the keys"),
        (
            '[[expected_failure]]\ncase = "demo/echo/plain"\nreason = "a"\n',
            "(demo/echo/plain): no record of how the case fails; regenerate it with "
            "memspec run --expectations",
        ),
        (
            '[[expected_failure]]\ncase = "demo/echo/plain"\nreason = "a"\nobserved = []\n',
            "'observed' must be a non-empty array of tables",
        ),
        (
            '[[expected_failure]]\ncase = "demo/echo/plain"\nreason = "a"\n'
            'signature = ["step 1: result"]\n',
            "entry 1: the older form (a signature of check names, without what was observed); "
            "regenerate it with memspec run --expectations",
        ),
        (
            '[[expected_failure]]\ncase = "demo/echo/plain"\nreason = "a"\n'
            'observed = [{ check = "step 1: result", digest = "XYZ" }]\n',
            "digest 'XYZ' is not 12 lower-case hex digits",
        ),
        ('[[expected_failure]]\ncase = "demo/echo/plain"\nreason = ""\n', "non-empty strings"),
        ("surprise = 1\n", "unknown key 'surprise'"),
        (
            '[[expected_failure]]\ncase = "demo/echo/plain"\nreason = "a"\n'
            'observed = [{ check = "x" }]\n'
            '[[expected_failure]]\ncase = "demo/echo/plain"\nreason = "b"\n'
            'observed = [{ check = "x" }]\n',
            "listed twice",
        ),
    ],
)
def test_malformed_expectations_file_exit_2(
    content: str, needle: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    path = tmp_path / "expect.toml"
    path.write_text(content, encoding="utf-8")
    _one_line_usage_error(memspec_cli("run", "--expectations", str(path), env=demo_env), needle)


def test_missing_expectations_file_exit_2(demo_env: dict[str, str], memspec_cli: Runner) -> None:
    _one_line_usage_error(
        memspec_cli("run", "--expectations", "nope.toml", env=demo_env), "not found"
    )


def _broken_corpus(tmp_path: Path, demo_env: dict[str, str], case: object) -> dict[str, str]:
    corpus = tmp_path / "fixtures"
    shutil.copytree(DATA / "fixtures", corpus)
    (corpus / "demo" / "echo" / "broken.json").write_text(json.dumps(case), encoding="utf-8")
    return {**demo_env, "MEMSPEC_FIXTURES": str(corpus)}


@pytest.mark.parametrize(
    ("case", "needle"),
    [
        (
            {
                "id": "demo/echo/broken",
                "description": "x",
                "requirements": ["DEMO-ECHO-001"],
                "op": "demo.echo",
                "args": {},
            },
            "breaks the case schema",
        ),
        (
            {
                "id": "demo/echo/elsewhere",
                "description": "x",
                "requirements": ["DEMO-ECHO-001"],
                "op": "demo.echo",
                "args": {},
                "expect": {"result": 1},
            },
            "does not match its path",
        ),
        ("not an object", "breaks the case schema"),
    ],
)
def test_fixture_that_breaks_the_schema_exit_2(
    case: object, needle: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    env = _broken_corpus(tmp_path, demo_env, case)
    _one_line_usage_error(memspec_cli("run", env=env), needle)


def test_lint_reports_every_problem(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    env = _broken_corpus(
        tmp_path,
        demo_env,
        {
            "id": "demo/echo/broken",
            "description": "x",
            "requirements": ["DEMO-ECHO-999"],
            "op": "demo.nosuch",
            "args": {},
            "expect": {"result": 1},
        },
    )
    result = memspec_cli("lint", env=env)
    assert result.returncode == 1
    assert "unknown requirement id DEMO-ECHO-999" in result.stdout
    assert "op 'demo.nosuch' is not in any spec operations table" in result.stdout


def test_lint_clean_corpus(demo_env: dict[str, str], memspec_cli: Runner) -> None:
    result = memspec_cli("lint", env=demo_env)
    assert result.returncode == 0 and "lint: clean" in result.stdout


def test_coverage_fails_only_for_an_uncovered_must(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    result = memspec_cli("coverage", "--profile", "demo", env=demo_env)
    assert result.returncode == 0, result.stdout
    assert "DEMO-ECHO-001" in result.stdout and "6 case(s)" in result.stdout
    spec = tmp_path / "spec"
    shutil.copytree(DATA / "spec", spec)
    with (spec / "demo.md").open("a", encoding="utf-8") as page:
        page.write("\n- **DEMO-ECHO-003** (MUST): Nobody tests this.\n")
    result = memspec_cli(
        "coverage", "--profile", "demo", "--json", env={**demo_env, "MEMSPEC_SPEC": str(spec)}
    )
    assert result.returncode == 1
    rows = {row["requirement"]: row for row in json.loads(result.stdout)}
    assert rows["DEMO-ECHO-003"]["cases"] == [] and rows["DEMO-ECHO-002"]["level"] == "SHOULD"


def test_explain_prints_requirement_text_and_cases(
    demo_env: dict[str, str], memspec_cli: Runner
) -> None:
    result = memspec_cli("explain", "DEMO-ECHO-001", env=demo_env)
    assert result.returncode == 0
    assert "answers its `value` argument unchanged" in result.stdout
    assert "demo/echo/plain: echo plain" in result.stdout


def test_explain_a_case_prints_its_fixture(demo_env: dict[str, str], memspec_cli: Runner) -> None:
    result = memspec_cli("explain", "demo/echo/plain", env=demo_env)
    assert result.returncode == 0 and json.loads(result.stdout)["args"] == {"value": "hello"}


def test_smoke_tells_broken_from_working(demo_env: dict[str, str], memspec_cli: Runner) -> None:
    good = memspec_cli("smoke", "--adapter", fake_cmd("good"), env=demo_env)
    assert good.returncode == 0 and "speaks the protocol" in good.stdout
    bad = memspec_cli("smoke", "--adapter", fake_cmd("bad-start"), env=demo_env)
    assert bad.returncode == 3 and "adapter broken" in bad.stdout
    assert "not a conformance result" in bad.stdout


def test_no_case_selected_is_a_usage_error(demo_env: dict[str, str], memspec_cli: Runner) -> None:
    result = memspec_cli(
        "run", "--adapter", "python:fakes:Echo", "-k", "no_such_case_anywhere", env=demo_env
    )
    assert result.returncode == 2 and "no case selected" in result.stderr


def test_snapshot_update_is_refused_for_other_adapters(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "memspec.pytest_plugin",
            "--pyargs",
            "memspec.suite",
            "--memspec-adapter",
            fake_cmd("good"),
            "--snapshot-update",
            "-q",
        ],
        cwd=tmp_path,
        env=demo_env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 4
    assert "only the reference adapter may write snapshots" in result.stderr


def test_run_loads_no_pytest_plugin_but_those_the_suite_uses(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """pyfakefs, pytest-benchmark and pytest-xdist are installed here, each a plugin
    pytest would load on its own; a run without ``-n`` has none of them."""
    probe = tmp_path / "probe"
    env = fakes_env()
    env["MEMSPEC_PLUGIN_PROBE"] = str(probe)
    result = memspec_cli(
        "run", "--adapter", "python:memdir_fakes:PluginProbe", "--case",
        "memdir/age/1000-days-minus-1ns-age-days", env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert probe.read_text(encoding="utf-8") == ""


def test_outputs_named_through_symlinks_are_written_through_and_stay_links(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """Each link points at a file not made yet; a rename would put a regular file in the
    link's place, and checking the report path beforehand once removed the link."""
    names = ("report", "expectations", "merged")
    for name in names:
        (tmp_path / f"{name}.link").symlink_to(f"{name}.target")
    run = memspec_cli(
        "run", "--case", "memdir/type/empty", "--shard", "1/1", "--report", "report.link",
        "--write-expectations", "expectations.link",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr
    merge = memspec_cli("merge-reports", "-o", "merged.link", "report.target")
    assert merge.returncode == 0, merge.stdout + merge.stderr
    for name in names:
        assert (tmp_path / f"{name}.link").readlink() == Path(f"{name}.target")
    for name in ("report", "merged"):
        lines = (tmp_path / f"{name}.target").read_text(encoding="ascii").splitlines()
        assert [json.loads(line)["type"] for line in lines] == ["header", "case", "footer"]
    assert "memref" in (tmp_path / "expectations.target").read_text(encoding="utf-8")


def test_a_report_to_standard_output_sent_to_a_file_is_written_into_that_file(
    tmp_path: Path,
) -> None:
    """``/proc/self/fd/1`` is what ``/dev/stdout`` links to: a rename over it would have
    replaced ``/dev/stdout`` itself (as root), and over this name it cannot be done."""
    output = tmp_path / "output"
    with output.open("w", encoding="utf-8") as stdout:
        result = subprocess.run(
            [sys.executable, "-m", "memspec", "run", "--case", "memdir/type/empty",
             "--report", "/proc/self/fd/1"],
            cwd=tmp_path, stdout=stdout, stderr=subprocess.PIPE, text=True, check=False,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    text = output.read_text(encoding="utf-8")
    lines = [
        json.loads(line[line.index('{"type"') :]) for line in text.splitlines() if '{"type"' in line
    ]
    assert [line["type"] for line in lines] == ["header", "case", "footer"]
    assert "1 passed" in text


@pytest.mark.parametrize("args", [("--version",), ("frobnicate",), ("lint",), ("coverage",)])
def test_a_forked_command_answers_as_a_new_interpreter_does(
    args: tuple[str, ...], demo_env: dict[str, str], tmp_path: Path
) -> None:
    """The tests' ``memspec`` commands are forked (``forked_cli``): the same arguments,
    folder and environment give the same exit status and output as a new interpreter."""
    forked = run_memspec(*args, cwd=tmp_path, env=demo_env)
    new = run_memspec(*args, cwd=tmp_path, env=demo_env, fork=False)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        new.returncode,
        new.stdout,
        new.stderr,
    )
    assert forked.stdout or forked.stderr
