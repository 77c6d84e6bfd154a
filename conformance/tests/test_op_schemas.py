"""Op signatures as data: the schemas keep the convention, every fixture fits them, the
reference's replies fit them, and the spec pages, explain and new-adapter show them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, Runner

from memspec.checked_reference import ResultChecked
from memspec.cli.lint import spec_ops
from memspec.cli.op_lint import check_fixtures, never_omitted, schema_problems
from memspec.corpus.cases import case_from_json, load_cases
from memspec.corpus.data import fixtures_dir, spec_dir
from memspec.corpus.op_schemas import (
    args_errors,
    arguments,
    ops_with_schemas,
    result_errors,
    signature,
)
from memspec.corpus.profiles import known_profiles
from tools.spec_tables import rewritten


def test_every_op_of_the_spec_has_a_schema_that_keeps_the_convention() -> None:
    ops = spec_ops()
    assert schema_problems(ops) == []
    for profile in known_profiles():
        assert {op for op in ops if op.startswith(f"{profile}.")} == {
            op for op in ops_with_schemas() if op.startswith(f"{profile}.")
        }


def test_every_fixture_fits_its_ops_schemas() -> None:
    check = check_fixtures(load_cases(), fixtures_dir())
    assert check.problems == []
    assert check.steps >= 2500
    invalid = [
        case.id
        for case in load_cases()
        if any(step.expect.error_kind == "invalid-args" for step in case.steps)
    ]
    assert sorted(check.structural + check.by_rule) == sorted(invalid)
    # What a schema cannot say: names shared by two waiters, milliseconds beyond 64 bits.
    assert "turnlog/manager/bad-wait-duplicate-name" in check.by_rule
    assert "turnlog/store/bad-index-huge-year" in check.by_rule
    assert "turnlog/write/bad-relative-project" in check.structural


def test_lint_flags_a_fixture_that_breaks_its_schema(tmp_path: Path) -> None:
    from memspec.corpus.cases import case_from_json

    good = {"id": "turnlog/filename/x", "description": "x", "requirements": ["TURNLOG-NAME-001"]}
    cases = [
        case_from_json(
            {**good, "op": "turnlog.filename", "args": {"title": "t"}, "expect": {"result": "a"}}
        ),
        case_from_json(
            {
                **good,
                "op": "turnlog.filename",
                "args": {"session_id": "s", "title": "t"},
                "expect": {"result": 5},
            }
        ),
        case_from_json(
            {
                **good,
                "op": "turnlog.filename",
                "args": {"title": 1},
                "expect": {"error": {"kind": "invalid-args"}},
            }
        ),
        case_from_json(
            {
                **good,
                "op": "turnlog.filename",
                "args": {"session_id": "s", "title": "t", "created": None},
                "expect": {"error": {"kind": "invalid-input"}},
            }
        ),
    ]
    check = check_fixtures(cases, tmp_path)
    assert len(check.problems) == 3, check.problems
    assert "expects a result but its args break the schema" in check.problems[0]
    assert "'session_id' is a required property" in check.problems[0]
    assert "the expected result breaks the schema" in check.problems[1]
    assert "expects error 'invalid-input'" in check.problems[2]
    assert check.structural == ["turnlog/filename/x"]


def test_lint_checks_the_observing_calls_of_crash_points(tmp_path: Path) -> None:
    from memspec.corpus.cases import case_from_json

    store = {"store_dir": "${ROOT}/s"}
    observe = [
        {"op": "turnlog.list_by_project", "args": {**store, "project_id": 3}, "before": []},
        {"op": "turnlog.list_by_session", "args": {**store, "session_id": "s"}, "before": 1},
    ]
    for item in observe:
        item.setdefault("after", [])
    subject = case_from_json(
        {
            "id": "turnlog/store/x",
            "description": "x",
            "requirements": ["TURNLOG-STORE-013"],
            "steps": [
                {
                    "op": "turnlog.index_files",
                    "args": {**store, "items": [], "now": "2030-01-01T00:00:00Z"},
                    "crash_points": {"observe": observe},
                    "expect": {"result": [], "tree": {}},
                }
            ],
        }
    )
    problems = check_fixtures([subject], tmp_path).problems
    assert len(problems) == 2, problems
    assert "observing turnlog.list_by_project: its args break the schema" in problems[0]
    assert "observing turnlog.list_by_session: its before result breaks" in problems[1]


@pytest.mark.parametrize(
    ("value", "fits"),
    [
        ("12026-01-01T00:00:00Z", True),
        ("2026-09-09t14:30:05.123456789z", True),
        ("2026-01-01T00:00:00+23:59", True),
        ("2026-13-01T00:00:00Z", False),
        ("2026-01-01T00:00:60Z", False),
        ("2026-01-01T00:00:00", False),
        ("2026-01-01T00:00:00.1234567890Z", False),
        ("2026-01-01T00:00:00+24:00", False),
        ("-2026-01-01T00:00:00Z", False),
    ],
)
def test_instants_take_exactly_the_documented_forms(value: str, fits: bool) -> None:
    assert (args_errors("memdir.age", {"mtime": value, "now": value}) == []) is fits


@pytest.mark.parametrize(
    ("text", "fits"),
    [("x", True), ({"base64": "/w=="}, True), ({"base64": ""}, True), ({"base64": "%%%"}, False),
     ({"base64": "/w"}, False), ({"base64": "/w==\n"}, False), ({"base64": "/w==", "x": 1}, False)],
)  # fmt: skip
def test_text_is_a_string_or_strict_base64(text: Any, fits: bool) -> None:
    assert (args_errors("memdir.parse_frontmatter", {"content": text}) == []) is fits


def test_int64_keeps_its_range_and_refuses_fractions() -> None:
    base = {"store_dir": "/s", "path": "/p", "now": "2026-01-01T00:00:00Z"}
    assert args_errors("turnlog.upsert", {**base, "created_at": 9223372036854775807}) == []
    assert args_errors("turnlog.upsert", {**base, "created_at": 9223372036854775808})
    assert args_errors("turnlog.upsert", {**base, "created_at": -9223372036854775808}) == []
    assert args_errors("turnlog.upsert", {**base, "created_at": 1.0})


class _Inner:
    def __init__(self, result: Any) -> None:
        self.result = result

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"id": message["id"], "result": self.result}


def test_a_reply_that_breaks_its_result_schema_becomes_an_error() -> None:
    checked = ResultChecked(_Inner({"allowed": True, "reason": "fine"}))
    reply = checked.handle({"id": 3, "op": "memdir.check_write_path", "args": {}})
    assert reply["id"] == 3 and "result" not in reply
    assert reply["error"]["kind"] == "internal"
    assert "result schema of memdir.check_write_path" in reply["error"]["message"]
    assert "'fine' is not one of" in reply["error"]["message"]
    fine = ResultChecked(_Inner({"allowed": True, "reason": "ok"}))
    assert fine.handle({"id": 4, "op": "memdir.check_write_path", "args": {}})["result"]
    start = ResultChecked(_Inner({"anything": 1}))
    assert start.handle({"id": 1, "op": "start", "args": {}})["result"] == {"anything": 1}


def test_result_schemas_refuse_results_of_the_wrong_shape() -> None:
    assert result_errors("memdir.read_last_consolidated_at", "2026-01-01T00:00:00+01:00")
    assert result_errors("memdir.read_last_consolidated_at", "2026-01-01T00:00:00.10Z")
    assert result_errors("memdir.read_last_consolidated_at", "2026-01-01T00:00:00.1Z") == []
    assert result_errors("turnlog.is_indexed", 1)


def test_operations_tables_show_the_schemas_arguments() -> None:
    for page in sorted(spec_dir().glob("*.md")):
        text = page.read_text(encoding="utf-8")
        _, changed = rewritten(text)
        assert changed == [], f"{page.name}: run python -m tools.spec_tables --write ({changed})"
    row = next(
        line
        for line in (spec_dir() / "turnlog.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `turnlog.filename` |")
    )
    assert "`created_at`? (instant or null = `null`), `session_id` (text), `title` (text)" in row


def test_explain_op_prints_the_signature(memspec_cli: Runner) -> None:
    result = memspec_cli("explain", "turnlog.filename")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [*signature("turnlog.filename")]
    assert "  created_at: instant or null, optional, default null — " in result.stdout
    assert "  title: text, required — " in result.stdout
    assert result.stdout.count("\n") > 5


def test_a_profile_op_without_a_schema_is_a_lint_problem(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(DATA / "schemas" / "ops", schemas)
    (schemas / "demo" / "echo.json").unlink()
    (schemas / "demo" / "stray.json").write_text(
        json.dumps({"$id": "x", "title": "demo.stray", "$defs": {"args": {"type": "object"}}}),
        encoding="utf-8",
    )
    result = memspec_cli("lint", env={**demo_env, "MEMSPEC_OP_SCHEMAS": str(schemas)})
    assert result.returncode == 1
    assert "demo.echo: no op schema" in result.stdout
    assert "schema demo.stray: no spec Operations table names demo.stray" in result.stdout
    assert "schema demo.stray: $defs must hold exactly args and result" in result.stdout


def test_lint_prints_how_invalid_args_cases_were_classified(memspec_cli: Runner) -> None:
    result = memspec_cli("lint", "--profile", "turnlog")
    assert result.returncode == 0, result.stdout
    assert "are refused by a rule the schema cannot state" in result.stdout


def test_every_argument_has_a_description() -> None:
    for op in ops_with_schemas():
        for argument in arguments(op):
            assert argument.description, (op, argument.name)


def test_a_path_is_a_path_in_the_args_and_a_result_path_in_the_result(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(DATA / "schemas" / "ops", schemas)
    echo = schemas / "demo" / "echo.json"
    schema = json.loads(echo.read_text(encoding="utf-8"))
    wire = "https://memspec.dev/schemas/ops/wire.json#/$defs/"
    schema["$defs"]["args"]["properties"]["value"] = {"$ref": f"{wire}result-path"}
    schema["$defs"]["args"]["properties"]["value"]["description"] = "A value."
    schema["$defs"]["result"] = {"$ref": f"{wire}path", "description": "The value."}
    echo.write_text(json.dumps(schema), encoding="utf-8")
    result = memspec_cli("lint", env={**demo_env, "MEMSPEC_OP_SCHEMAS": str(schemas)})
    assert result.returncode == 1
    assert (
        "schema demo.echo: args/properties/value is a result-path; a path in the args is a path"
        in result.stdout
    )
    assert "schema demo.echo: result is a path; a path in the result is a result-path" in (
        result.stdout
    )


def _line_case(args: dict[str, Any], expect: dict[str, Any]) -> Any:
    return case_from_json(
        {
            "id": "automemory/index-line/x",
            "description": "d",
            "requirements": ["AUTOMEMORY-LINE-001"],
            "op": "automemory.index_line",
            "args": args,
            "expect": expect,
        }
    )


def test_lint_lists_an_optional_argument_that_no_case_leaves_out() -> None:
    problem = "automemory.index_line: no case leaves out the optional argument 'description'"
    given = _line_case({"filename": "a.md", "description": "d"}, {"result": "- [a](a.md) — d"})
    assert problem in never_omitted([given], ["automemory"])
    # A case refused for its args does not show that the argument may be left out.
    refused = _line_case({"filename": 5}, {"error": {"kind": "invalid-args"}})
    assert problem in never_omitted([given, refused], ["automemory"])
    left_out = _line_case({"filename": "a.md"}, {"result": "- [a](a.md)"})
    assert problem not in never_omitted([given, left_out], ["automemory"])
    assert never_omitted(load_cases(fixtures_dir())) == []
