"""How a case fails, and not only that it does: the judge runs every check of a step and
names each one that failed, the signature lists them, and an expectations file pins it.

- A step whose reply and tree are both wrong reports both, each with its difference.
- A text the model reads is checked for a host path whether it is an error or not.
- ``--write-expectations`` writes each entry's observations: every failed check with the
  digest of what it observed and the value abridged; a listed case whose observations
  differ fails the run showing the listed and the observed value of each check that
  changed; an entry without observations, or in the older form, is refused in one line.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Runner, expected_failure, fake_cmd, outcomes

from memspec.corpus.cases import Case, case_from_json
from memspec.corpus.expectations import Expected
from memspec.corpus.observations import from_token
from memspec.corpus.op_schemas import forget_op_schemas
from memspec.exceptions import CaseFailure
from memspec.judge.model_text import host_path_leaks
from memspec.reports.report import read_report
from memspec.run.runner import run_case
from memspec.wire.adapters import Adapter

SCHEMAS = Path(__file__).resolve().parent / "data" / "schemas"


@pytest.fixture
def demo_schemas(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MEMSPEC_OP_SCHEMAS", str(SCHEMAS / "ops"))
    forget_op_schemas()
    yield
    monkeypatch.undo()
    forget_op_schemas()


def _failure(case: Case, fake: str) -> CaseFailure:
    adapter = Adapter(f"python:judge_fakes:{fake}")
    try:
        with pytest.raises(CaseFailure) as caught:
            run_case(case, adapter)
    finally:
        adapter.close()
    return caught.value


def _put_case() -> Case:
    return case_from_json(
        {
            "id": "demo/harness/put",
            "description": "d",
            "requirements": ["DEMO-ECHO-001"],
            "tree": {"d": {"dir": True}},
            "op": "demo.put_in",
            "args": {"root": "${ROOT}", "dir": "d", "name": "f.txt", "text": "a\nb\n"},
            "expect": {
                "result": "ok",
                "tree": {"d/f.txt": {"text": "a\nb\n", "mode": "0644"}},
            },
        }
    )


def test_a_wrong_reply_does_not_hide_the_damage_on_disk() -> None:
    failure = _failure(_put_case(), "WrongOnDiskToo")
    message = str(failure)
    assert message.startswith("demo.put_in: 2 checks fail (result, tree)"), message
    assert "  result: wrong result" in message
    assert 'expected: "ok"' in message and 'actual:   "done"' in message
    assert "  tree: the tree after the step differs" in message
    assert "d/f.txt: content differs" in message and "d/f.txt: mode 0600, expected 0644" in message
    checks = [token.partition(" @")[0] for token in failure.signature]
    assert checks == ["step 1: result", "step 1: tree d/f.txt mode", "step 1: tree d/f.txt content"]
    assert failure.values[0] == '{"result": "done"}'
    assert '"mode": "0600"' in failure.values[1] and failure.values[1] == failure.values[2]


def _tool_case() -> Case:
    return case_from_json(
        {
            "id": "demo/harness/success-text",
            "description": "d",
            "requirements": ["DEMO-ECHO-001"],
            "op": "demo.tool",
            "args": {"root": "${ROOT}", "path": "/memories/locked.txt"},
            "expect": {"result": {"content": {"text_pattern": "(?s).+"}, "is_error": False}},
        }
    )


@pytest.mark.usefixtures("demo_schemas")
def test_a_host_path_in_a_text_that_is_no_error_fails() -> None:
    failure = _failure(_tool_case(), "LeaksInSuccess")
    assert "holds a host path" in str(failure)
    assert "'${ROOT}/memories/locked.txt'" in str(failure)
    (token,) = failure.signature
    assert token.startswith("step 1: host path @")
    assert "${ROOT}/memories/locked.txt" in failure.values[0]


def test_the_memories_tool_result_is_checked_success_or_error() -> None:
    forget_op_schemas()
    root = "/tmp/memspec-x1"
    for op, result in (
        ("memories.call", {"content": f"denied: '{root}/memories/a'", "is_error": False}),
        ("memories.call", {"content": f"denied: '{root}/memories/a'", "is_error": True}),
        (
            "memories.session_script",
            {"events": [{"content": f"{root}/memories", "is_error": False}]},
        ),
    ):
        assert host_path_leaks(op, result, root) != [], (op, result)


# --- expectations pin the signature ------------------------------------------------------


def _entries(path: Path) -> list[dict[str, Any]]:
    return list(tomllib.loads(path.read_text(encoding="utf-8"))["expected_failure"])


def test_written_expectations_hold_each_cases_signature(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    written = tmp_path / "x.toml"
    result = memspec_cli(
        "run", "--adapter", fake_cmd("wrong"), "--write-expectations", str(written), env=demo_env
    )
    assert result.returncode == 1
    entries = {entry["case"]: entry for entry in _entries(written)}
    (observed,) = entries["demo/echo/bang-one"]["observed"]
    assert observed["check"] == "step 1: result" and observed["value"] == '{"result": "wrong"}'
    assert len(observed["digest"]) == 12
    crashed = tmp_path / "crash.toml"
    memspec_cli(
        "run", "--adapter", fake_cmd("crash"), "--write-expectations", str(crashed), env=demo_env
    )
    entries = {entry["case"]: entry for entry in _entries(crashed)}
    assert entries["demo/echo/bang-one"]["observed"] == [{"check": "no answer: crashed"}]
    again = memspec_cli(
        "run", "--adapter", fake_cmd("crash"), "--expectations", str(crashed), env=demo_env
    )
    assert again.returncode == 0, again.stdout


def test_a_listed_case_failing_another_way_fails_the_run_with_both_signatures(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    listed = tmp_path / "x.toml"
    listed.write_text(
        expected_failure("demo/echo/bang-one", "crashes", ("no answer: crashed", None))
        + expected_failure("demo/echo/bang-two", "wrong", ("step 1: result", {"result": "wrong"})),
        encoding="utf-8",
    )
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd("wrong"),
        "--expectations",
        str(listed),
        "--report",
        str(report),
        env=demo_env,
    )
    assert result.returncode == 1, result.stdout
    seen = outcomes(report)
    assert seen["demo/echo/bang-one"] == "failed" and seen["demo/echo/bang-two"] == "xfailed"
    record = next(r for r in read_report(report) if r.get("id") == "demo/echo/bang-one")
    (token,) = record["signature"]
    assert token.startswith("step 1: result @")
    assert "  no answer: crashed:\n    listed:   (failed)\n" in record["message"]
    assert "    observed: (this check did not fail)" in record["message"]
    assert "  step 1: result:\n    listed:   (this check did not fail)\n" in record["message"]
    assert "    observed: @" in record["message"] and '{"result": "wrong"}' in record["message"]
    assert "wrong result" in record["message"]
    assert "FAILED demo/echo/bang-one" in result.stdout


def test_rewriting_gives_signatures_to_entries_that_had_none(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    listed = tmp_path / "x.toml"
    listed.write_text(
        '# Our port.\n\n[[expected_failure]]\ncase = "demo/echo/bang-one"\nreason = "kept"\n',
        encoding="utf-8",
    )
    refused = memspec_cli(
        "run", "--adapter", fake_cmd("wrong"), "--expectations", str(listed), env=demo_env
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith(
        f"regenerate it with memspec run --expectations {listed} --write-expectations {listed}"
    )
    memspec_cli(
        "run",
        "--adapter",
        fake_cmd("wrong"),
        "--expectations",
        str(listed),
        "--write-expectations",
        str(listed),
        env=demo_env,
    )
    assert listed.read_text(encoding="utf-8").startswith("# Our port.\n\n[[expected_failure]]")
    entries = {entry["case"]: entry for entry in _entries(listed)}
    entry = entries["demo/echo/bang-one"]
    assert (entry["case"], entry["reason"]) == ("demo/echo/bang-one", "kept")
    assert [item["check"] for item in entry["observed"]] == ["step 1: result"]


# An interleaved step's checks: any non-empty part of those listed may fail.


def _entry(*tokens: str) -> Expected:
    return Expected("why", tuple(from_token(token) for token in tokens))


@pytest.mark.parametrize(
    ("listed", "observed", "matches"),
    [
        (("step 1: result @0123456789ab",), ("step 1: result @0123456789ab",), True),
        (("step 1: result @0123456789ab",), ("step 1: result @ba9876543210",), False),
        (
            ("interleaved steps: result (lost)", "interleaved steps: tree (lost or torn)"),
            ("interleaved steps: result (lost)",),
            True,
        ),
        (
            ("interleaved steps: result (lost)", "interleaved steps: tree (lost or torn)"),
            ("interleaved steps: tree (lost or torn)",),
            True,
        ),
        (
            ("interleaved steps: tree (lost or torn)",),
            ("interleaved steps: result (lost)", "interleaved steps: tree (lost or torn)"),
            False,
        ),
        (
            ("step 2: result @0123456789ab", "interleaved steps: tree (lost or torn)"),
            ("step 2: result @0123456789ab",),
            False,
        ),
        (
            ("step 2: result @0123456789ab", "interleaved steps: tree (lost or torn)"),
            ("step 2: result @ba9876543210", "interleaved steps: tree (lost or torn)"),
            False,
        ),
    ],
)
def test_of_an_interleaved_steps_checks_any_listed_part_may_fail(
    listed: tuple[str, ...], observed: tuple[str, ...], matches: bool
) -> None:
    assert _entry(*listed).matches(observed) is matches
