"""parse_selected (Go encoding/json semantics) and find_relevant."""

from __future__ import annotations

from pathlib import Path

import pytest
from memdir_support import T0, Writer

from memref._time import NS_PER_HOUR
from memref.memdir import (
    MemoryHeader,
    build_query,
    find_relevant,
    parse_selected,
    scan_memory_files,
)


@pytest.mark.parametrize(
    ("reply", "selected"),
    [
        ('{"selected_memories": ["a.md", "b.md"]}', ["a.md", "b.md"]),
        ("null", None),
        ('{"selected_memories": "a.md"}', None),
        ('{"selected_memories": ["a.md", 1]}', None),
        ('{"selected_memories": ["a.md", {}]}', None),
        ('["a.md"]', None),
        ('prose {y} then {"selected_memories": ["a.md"]}', None),
        ('Sure!\n```json\n{"selected_memories": ["a.md"]}\n```', ["a.md"]),
        ('{"Selected_Memories": ["a.md"]}', ["a.md"]),
        ('{"SELECTED_MEMORIES": ["a.md"]}', ["a.md"]),
        ('{"\u017felected_memories": ["a.md"]}', ["a.md"]),
        ('{"selected\\u005fmemories": ["a.md"]}', ["a.md"]),
        ('{"selected_memories": ["a"], "SELECTED_memories": ["b"]}', ["b"]),
        ('{"selected_memories": ["a"], "selected_memories": null}', None),
        ('{"selected_memories": ["a", null]}', ["a", ""]),
        ('{"selected_memories": []}', []),
        ("{}", None),
        ('{"other": [1, {"x": true}], "selected_memories": ["a"]}', ["a"]),
        ('{"x": NaN, "selected_memories": ["a"]}', None),
        ('{"x": 1' + "0" * 5000 + ', "selected_memories": ["a"]}', ["a"]),
        ('[{"selected_memories": ["a"]}]', ["a"]),
        ('"{\\"selected_memories\\": [\\"a\\"]}"', None),
        ('\u00a0{"selected_memories": ["a"]}\u2003', ["a"]),
        ('\ufeff{"selected_memories": ["a"]}', ["a"]),
        ('{"selected_memories": ["\\ud800"]}', ["\ufffd"]),
        ('{"selected_memories": ["a"]} trailing', ["a"]),
        ('{"selected_memories": ["a"]', None),
        ("} {", None),
        ("", None),
        ("[" * 5000 + "]" * 5000, None),
    ],
)
def test_parse_selected(reply: str, selected: list[str] | None) -> None:
    assert parse_selected(reply) == selected


class Recorder:
    """A model stub that records its calls and answers with a fixed reply or failure."""

    def __init__(self, reply: str | None = None, error: Exception | None = None) -> None:
        self.reply = reply
        self.error = error
        self.calls: list[tuple[str, int]] = []

    def __call__(self, user: str, max_tokens: int) -> str:
        self.calls.append((user, max_tokens))
        if self.error is not None:
            raise self.error
        assert self.reply is not None
        return self.reply


FM = "---\ntype: {}\ndescription: {}\n---\n"


@pytest.fixture
def memory(tmp_path: Path, write: Writer) -> Path:
    write("a.md", FM.format("feedback", "migrations run in CI"), T0 - 2 * NS_PER_HOUR)
    write("b.md", FM.format("user", "prefers short answers"), T0 - NS_PER_HOUR)
    write("MEMORY.md", "- index", T0)
    return tmp_path


def selected(headers: list[MemoryHeader]) -> list[str]:
    return [header.filename for header in headers]


def test_filters_to_valid_and_excludes_hallucinations(memory: Path) -> None:
    # evva recall_test.go FiltersToValidAndExcludesHallucinations
    model = Recorder('{"selected_memories": ["a.md", "ghost.md", "MEMORY.md"]}')
    assert selected(find_relevant(model, "q", str(memory))) == ["a.md"]


def test_manifest_shape_and_recent_tools(memory: Path) -> None:
    # evva recall_test.go ManifestShapeAndRecentTools
    model = Recorder('{"selected_memories": []}')
    assert find_relevant(model, "fix the migration", str(memory), ["bash", "edit"]) == []
    assert model.calls == [
        (
            "Query: fix the migration\n\nAvailable memories:\n"
            "- [user] b.md (2026-05-01T11:00:00Z): prefers short answers\n"
            "- [feedback] a.md (2026-05-01T10:00:00Z): migrations run in CI\n\n"
            "Recently used tools: bash, edit",
            256,
        )
    ]


def test_no_tools_line_without_tools(memory: Path) -> None:
    model = Recorder("{}")
    find_relevant(model, "q", str(memory))
    assert model.calls[0][0].endswith("migrations run in CI")


def test_client_error_returns_nothing(memory: Path) -> None:
    # evva recall_test.go ClientErrorReturnsNil
    model = Recorder(error=RuntimeError("boom"))
    assert find_relevant(model, "q", str(memory)) == []
    assert len(model.calls) == 1


def test_empty_dir_skips_side_query(tmp_path: Path) -> None:
    # evva recall_test.go EmptyDirSkipsSideQuery
    model = Recorder('{"selected_memories": ["a.md"]}')
    assert find_relevant(model, "q", str(tmp_path)) == []
    assert model.calls == []


def test_already_surfaced_excluded_before_selection(memory: Path) -> None:
    # evva recall_test.go AlreadySurfacedExcludedBeforeSelection
    model = Recorder('{"selected_memories": ["a.md", "b.md"]}')
    result = find_relevant(model, "q", str(memory), already_surfaced=["a.md"])
    assert selected(result) == ["b.md"]
    assert "a.md" not in model.calls[0][0]


def test_everything_surfaced_skips_the_query(memory: Path) -> None:
    model = Recorder('{"selected_memories": ["a.md"]}')
    assert find_relevant(model, "q", str(memory), already_surfaced=["a.md", "b.md"]) == []
    assert model.calls == []


def test_no_client_or_dir(memory: Path) -> None:
    # evva recall_test.go NilClientOrDir
    assert find_relevant(None, "q", str(memory)) == []
    model = Recorder('{"selected_memories": ["a.md"]}')
    assert find_relevant(model, "q", "") == []
    assert model.calls == []


def test_tolerates_fenced_json(memory: Path) -> None:
    # evva recall_test.go ToleratesFencedJSON
    model = Recorder('Sure!\n```json\n{"selected_memories": ["a.md"]}\n```')
    assert selected(find_relevant(model, "q", str(memory))) == ["a.md"]


def test_newest_first_at_most_five_without_duplicates(tmp_path: Path, write: Writer) -> None:
    for i in range(8):
        write(f"m{i}.md", "x", T0 + i)
    reply = '{"selected_memories": ["m0.md", "m0.md", "m1.md", "m2.md", "m3.md", "m4.md", "m7.md"]}'
    assert selected(find_relevant(Recorder(reply), "q", str(tmp_path))) == [
        "m7.md",
        "m4.md",
        "m3.md",
        "m2.md",
        "m1.md",
    ]


def test_build_query(memory: Path) -> None:
    headers = scan_memory_files(str(memory))
    assert build_query("x", headers[:1], []) == (
        "Query: x\n\nAvailable memories:\n"
        "- [user] b.md (2026-05-01T11:00:00Z): prefers short answers"
    )
