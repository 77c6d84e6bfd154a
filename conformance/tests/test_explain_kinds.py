"""``memspec explain`` for every kind of case: a property says what it checks, what its
inputs are drawn from and which divergences it can reach; a fixture's description gives a
short expected value."""

from __future__ import annotations

from conftest import Runner

from memspec.cli.explain import explain
from memspec.corpus.cases import load_cases
from tools.fixtures._common import with_expectation


def test_a_property_shows_its_invariant_inputs_and_divergences() -> None:
    lines = explain("memdir/frontmatter/property-agrees-with-reference")
    text = "\n".join(lines)
    assert "Inputs drawn from:\n  content: frontmatter_documents() — Documents shaped like" in text
    assert "Divergences it can reach:\n  memdir#1: frontmatter | the first occurrence" in text
    plain = "\n".join(explain("turnlog/filename/property-grammar"))
    assert "  session_id: text(max_size=40)" in plain
    assert "Divergences it can reach: none" in plain


def test_explain_prints_a_property_on_the_command_line(memspec_cli: Runner) -> None:
    result = memspec_cli("explain", "memdir/frontmatter/property-agrees-with-reference")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == explain(
        "memdir/frontmatter/property-agrees-with-reference"
    )


def test_short_expected_values_are_in_the_description() -> None:
    case = next(c for c in load_cases(profiles=["turnlog"]) if c.id.endswith("memory-dir-empty"))
    assert case.description.endswith('Expected: ".ogcode/memory".')
    assert with_expectation("Missing.", {"error": {"kind": "invalid-args"}}) == (
        "Missing. Expected: error invalid-args."
    )
    assert with_expectation("Empty", {"result": ""}) == 'Empty. Expected: "".'
    assert with_expectation("No space\u00a0here.", {"result": "a\u00a0b"}) == (
        'No space\u00a0here. Expected: "a\\u00a0b".'
    )
    said = "The tag is `s1`."
    assert with_expectation(said, {"result": "s1"}) == said
    long_value = {"result": "x" * 100}
    assert with_expectation("Long.", long_value) == "Long."
