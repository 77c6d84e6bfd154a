"""The right party is blamed, in one line: the harness's own faults (under a fixture or
a suite test) and bad options are never counted against the implementation, a reply a
property cannot read always is, and an adapter's slow start is not a broken one; a
fixture too deep to read and a terminal that cannot show a character are one line or an
escape, never a traceback; a request answered twice is the one blamed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, Runner, demo_records, expected_failure, failed_property, fake_cmd
from hand_reports import demo_environment, memspec
from memref_variants import variant_env

from memspec.corpus.cases import DEEPEST_NESTING, load_case, schema_errors
from memspec.exceptions import FixtureError, ProtocolViolation
from memspec.reports.report import read_report
from memspec.wire.adapters import Adapter


def _usage_error(result: Any) -> str:
    returncode, stderr = result.returncode, str(result.stderr)
    assert returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memspec: error: "), stderr
    return lines[0]


def test_the_start_handshake_has_its_own_timeout(
    demo_env: dict[str, str], memspec_cli: Runner
) -> None:
    slow = memspec_cli("run", "--adapter", fake_cmd("slow-start"), "--timeout", "1", env=demo_env)
    assert slow.returncode == 0, slow.stdout + slow.stderr
    short = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("slow-start"),
        "--timeout",
        "1",
        "--start-timeout",
        "0.5",
        env=demo_env,
    )
    assert short.returncode == 3
    assert "start handshake failed: no answer within 1 s" in short.stderr


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("--report", "--junit"),
        ("--report", "--summary"),
        ("--junit", "--summary"),
        ("--report", "--write-expectations"),
        ("--report", "--expectations"),
        ("--summary", "--expectations"),
    ],
)
def test_two_outputs_on_one_file_are_refused(
    first: str, second: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    same = tmp_path / "same"
    if second == "--expectations":
        same.write_text("", encoding="utf-8")
    result = memspec_cli(
        "run", "--adapter", fake_cmd("good"), first, str(same), second, str(same), env=demo_env
    )
    line = _usage_error(result)
    assert f"{first} and {second} name the same file" in line, line


def test_a_fault_of_the_harness_is_an_error_that_says_so(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    env = {**demo_env, "PYTEST_ADDOPTS": "-p harness_breaker"}
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("good"),
        "--report",
        str(report),
        "--case",
        "demo/echo/plain",
        env=env,
    )
    assert result.returncode == 1
    record = next(r for r in read_report(report) if r.get("id") == "demo/echo/plain")
    assert record["outcome"] == "error"
    assert record["signature"] == ["harness fault"]
    assert record["message"].startswith(
        "harness fault in demo/echo/plain, not counted against the implementation: "
        "FileNotFoundError: [Errno 2] No such file or directory"
    ), record["message"]
    assert "does not hold" not in record["message"]


SUITE_CASES = {
    "property": "turnlog/enabled/property-off-tokens",
    "differential": "turnlog/filename/property-agrees-with-reference",
    "snapshot": "turnlog/filename/snapshot-names",
    "protocol": "protocol/op/unknown-op",
}


def test_a_fault_of_the_harness_under_a_suite_test_is_an_error_that_says_so(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """Properties, differential properties, snapshots and protocol checks as fixtures:
    an exception of memspec's own code is an error that says so, even for a case listed
    as failing, and never a failure of the implementation."""
    report, expectations = tmp_path / "r.jsonl", tmp_path / "x.toml"
    expectations.write_text(
        "".join(
            expected_failure(case, "thought broken", ("does not hold", None))
            for case in SUITE_CASES.values()
        ),
        encoding="utf-8",
    )
    env = {**variant_env(), "PYTEST_ADDOPTS": "-p suite_breaker"}
    selected = [argument for case in SUITE_CASES.values() for argument in ("--case", case)]
    result = memspec_cli(
        "run", *selected, "--expectations", str(expectations), "--report", str(report), env=env
    )
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr
    records = {r["id"]: r for r in read_report(report) if r["type"] == "case"}
    for kind, case in SUITE_CASES.items():
        record = records[case]
        assert record["kind"] == kind
        assert (record["outcome"], record["signature"]) == ("error", ["harness fault"]), record
        assert record["message"].startswith(
            f"harness fault in {case}, not counted against the implementation: "
            "FileNotFoundError: [Errno 2] No such file or directory"
        ), record["message"]
        assert "does not hold" not in record["message"]


@pytest.mark.parametrize(
    ("fake", "case", "told"),
    [
        (
            "CreatesNothing",
            "memories/create/property-create-then-view",
            "memories.call: wrong content of /memories/",
        ),
        (
            "HermesTextNotJson",
            "hermes/storage/property-adds-read-back",
            "the tool result's text is not JSON",
        ),
    ],
)
def test_a_reply_a_property_cannot_read_is_the_implementations_failure(
    fake: str, case: str, told: str, memspec_cli: Runner, tmp_path: Path
) -> None:
    """A file the implementation did not write, or a text that is not the JSON it should
    hold, fails the property: the harness did not break."""
    record = failed_property(fake, case, memspec_cli, tmp_path / "r.jsonl")
    assert record["message"].startswith(f"property {case} does not hold: {told}"), record
    assert "harness fault" not in record["message"] and "Errno" not in record["message"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("-n", "99999999999"), "expected a whole number from 1 to 1024"),
        (("--tree-owner", "99999999999:1"), "a uid and a gid are below 4294967295"),
        (("--tree-owner", "\u00b2:1"), "expected UID:GID"),
        (("--start-timeout", "0"), "expected a positive, finite number"),
    ],
)
def test_bad_option_values_are_usage_errors(
    args: tuple[str, ...], needle: str, demo_env: dict[str, str], memspec_cli: Runner
) -> None:
    line = _usage_error(memspec_cli("run", "--adapter", fake_cmd("good"), *args, env=demo_env))
    assert needle in line, line


def _deep_corpus(tmp_path: Path, demo_env: dict[str, str]) -> tuple[dict[str, str], Path]:
    """The demo fixtures and one more, whose value nests 100,000 lists deep."""
    corpus = tmp_path / "fixtures"
    shutil.copytree(DATA / "fixtures", corpus)
    deep = corpus / "demo" / "echo" / "deep.json"
    value = "[" * 100_000 + "]" * 100_000
    deep.write_text(
        '{"id": "demo/echo/deep", "description": "d", "requirements": ["DEMO-ECHO-001"], '
        f'"op": "demo.echo", "args": {{"value": {value}}}, "expect": {{"result": 1}}}}',
        encoding="utf-8",
    )
    return {**demo_env, "MEMSPEC_FIXTURES": str(corpus)}, deep


@pytest.mark.parametrize("command", [("lint",), ("run", "--adapter", fake_cmd("good"))])
def test_a_fixture_nested_too_deeply_is_one_line_naming_it(
    command: tuple[str, ...], demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    env, deep = _deep_corpus(tmp_path, demo_env)
    result = memspec_cli(*command, env=env)
    assert "Traceback" not in result.stdout + result.stderr
    assert _usage_error(result) == f"memspec: error: {deep}: cannot read fixture: nested too deeply"


def test_a_fixture_nested_deeper_than_a_case_needs_breaks_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "demo" / "echo" / "deep.json"
    path.parent.mkdir(parents=True)
    value: Any = 1
    for _ in range(500):
        value = [value]
    case = {
        "id": "demo/echo/deep",
        "description": "d",
        "requirements": ["DEMO-ECHO-001"],
        "op": "demo.echo",
        "args": {"value": value},
        "expect": {"result": 1},
    }
    path.write_text(json.dumps(case), encoding="utf-8")
    assert schema_errors(case) == [f"(top): nested more than {DEEPEST_NESTING} levels deep"]
    with pytest.raises(FixtureError, match=r"breaks the case schema: .* levels deep"):
        load_case(path, tmp_path)


@pytest.fixture(scope="module")
def good_and_wrong_reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    where = tmp_path_factory.mktemp("reports")
    made = []
    for mode in ("good", "wrong"):
        report = where / f"{mode}.jsonl"
        result = memspec("run", "--adapter", fake_cmd(mode), "--report", str(report),
                         env=demo_environment(), cwd=where)  # fmt: skip
        assert result.returncode in (0, 1), result.stderr
        made.append(report)
    return made[0], made[1]


@pytest.mark.parametrize(
    ("args", "code", "escaped"),
    [
        (("explain", "DEMO-ECHO-001"), 0, "(MUST) \\u2014 spec/demo.md, \\xa7 Echo"),
        (("diff", "{good}", "{wrong}"), 1, "passed -> failed \\u2014 demo.echo"),
        (("diff", "--markdown", "{good}", "{wrong}"), 1, "fake-good 0 \\u2192 fake-wrong 0"),
        (("diff", "{good}", "{good}"), 0, "0 regressions"),
    ],
)
def test_a_terminal_that_cannot_show_a_character_gets_its_escape(
    args: tuple[str, ...],
    code: int,
    escaped: str,
    good_and_wrong_reports: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    good, wrong = good_and_wrong_reports
    filled = [arg.format(good=good, wrong=wrong) for arg in args]
    env = {**demo_environment(), "PYTHONIOENCODING": "ascii"}
    result = memspec(*filled, env=env, cwd=tmp_path)
    assert result.returncode == code, result.stderr
    assert result.stderr == ""
    assert escaped in result.stdout


def test_a_second_answer_at_once_is_blamed_on_the_request_it_answers(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli("run", "--adapter", fake_cmd("twice"), "--report", str(report),
                         env=demo_env)  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    records = {r["id"]: r for r in demo_records(report)}
    assert {case for case, r in records.items() if r["outcome"] != "passed"} == {
        "demo/echo/bang-one",
        "demo/echo/bang-two",
    }
    for case, value in (("demo/echo/bang-one", "!one"), ("demo/echo/bang-two", "!two")):
        message = records[case]["message"]
        assert records[case]["outcome"] == "error"
        assert "(demo.echo) was answered twice, the second answer right after the first" in message
        assert f'"result": "{value}"' in message
        assert "does not echo request id" not in message


def test_a_late_second_answer_names_the_request_it_answers_and_fails_no_other(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run", "--adapter", fake_cmd("twice-late"), "--report", str(report),
        "--case", "demo/echo/bang-one", "--case", "demo/echo/plain", env=demo_env,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    records = {r["id"]: r for r in demo_records(report)}
    # The second answer came in place of the answer to the next request, which is
    # innocent: it is read past, and the run fails on a problem naming the request.
    assert records["demo/echo/bang-one"]["outcome"] == "passed"
    assert records["demo/echo/plain"]["outcome"] == "passed"
    (problem,) = read_report(report)[-1]["problems"]
    assert re.search(
        r'protocol: request id \d+ \(demo.echo \{"value": "!one"\}\) was followed, after its '
        r"reply, by output no request asked for",
        problem,
    ), problem


def test_a_second_answer_to_the_last_request_is_caught_at_stop(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli("run", "--adapter", fake_cmd("twice-late"), "--report", str(report),
                         "--case", "demo/echo/bang-two", env=demo_env)  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    (record,) = demo_records(report)
    assert record["outcome"] == "error"
    assert re.search(
        r'request id \d+ \(demo.echo \{"value": "!two"\}\) was answered twice: its second '
        r"answer came in place of the answer to request id \d+ \(stop\)",
        record["message"],
    ), record["message"]


def test_an_adapter_answering_twice_is_caught_on_its_connection() -> None:
    adapter = Adapter(fake_cmd("twice"), timeout_s=5)
    try:
        assert adapter.call("demo.echo", {"value": "plain"}).result == "plain"
        with pytest.raises(ProtocolViolation, match=r"request id 3 \(demo.echo\) was answered"):
            adapter.call("demo.echo", {"value": "!x"})
        assert adapter.call("demo.echo", {"value": "again"}).result == "again"
        assert adapter.restarts == 1
    finally:
        adapter.close()
    late = Adapter(fake_cmd("twice-late"), timeout_s=5)
    assert late.call("demo.echo", {"value": "!x"}).result == "!x"
    with pytest.raises(ProtocolViolation, match=r"in place of the answer to request id 3 \(stop\)"):
        late.close()
