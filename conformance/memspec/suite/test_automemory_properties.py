"""Properties of the automemory profile, driven through the adapter under test.

Each states an invariant the spec implies, one or more per area; none compares with the
reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from memspec.corpus.compare import json_equal, text_bytes
from memspec.corpus.registry import suite_case
from memspec.suite._support import result, scratch_folder
from memspec.wire.adapters import Adapter
from memspec.wire.instants import format_instant

_NS_PER_MS = 1_000_000
_DAY_MS = 86_400_000
_TYPES = ("user", "feedback", "project", "reference")
_NO_SURROGATE: tuple[Literal["Cs"], ...] = ("Cs",)
_JS_SPACE = "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
_JS_SPACE += "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

paths = st.text(alphabet=st.characters(blacklist_categories=_NO_SURROGATE), max_size=260)
simple_words = st.from_regex(r"[a-z][a-z0-9_-]{0,15}", fullmatch=True).filter(
    lambda word: word not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n")
)
index_lines = st.lists(
    st.text(alphabet="abc xyz", max_size=300).map(lambda line: line.rstrip()),
    max_size=260,
)


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _text(value: Any) -> str:
    data = text_bytes(value)
    assert data is not None, value
    return data.decode("utf-8")


@contextmanager
def _directory(adapter: Adapter) -> Iterator[str]:
    with scratch_folder(adapter, prefix="memspec-automemory-") as directory:
        yield str(directory)


@suite_case("automemory/constants/property-stable", "AUTOMEMORY-CONST-002")
@settings(deadline=None, max_examples=20)
@given(path=paths)
def test_constants_are_stable(memspec_adapter: Adapter, path: str) -> None:
    """The constants are the same on every call, whatever happens in between."""
    first = result(memspec_adapter, "automemory.constants", {})
    result(memspec_adapter, "automemory.project_key", {"path": path})
    assert json_equal(first, result(memspec_adapter, "automemory.constants", {}))


@suite_case(
    "automemory/project-key/property-key-shape",
    "AUTOMEMORY-KEY-001",
    "AUTOMEMORY-KEY-002",
    "AUTOMEMORY-KEY-003",
)
@settings(deadline=None)
@given(path=paths)
def test_project_key_has_its_shape(memspec_adapter: Adapter, path: str) -> None:
    """The key has one character per UTF-16 unit of the path, alphanumerics kept and the
    rest '-', cut to 200 units and followed by the path's hash when longer."""
    key = result(memspec_adapter, "automemory.project_key", {"path": path})
    units = path.encode("utf-16-le")
    sanitized = "".join(
        chr(unit) if chr(unit).isascii() and chr(unit).isalnum() else "-"
        for unit in (int.from_bytes(units[i : i + 2], "little") for i in range(0, len(units), 2))
    )
    if len(sanitized) <= 200:
        assert key == sanitized
    else:
        hashed = result(memspec_adapter, "automemory.path_hash", {"path": path})
        assert key == sanitized[:200] + "-" + hashed["base36"]


@suite_case("automemory/project-key/property-hash-in-range", "AUTOMEMORY-KEY-004")
@settings(deadline=None)
@given(path=paths)
def test_path_hash_is_a_signed_32_bit_value(memspec_adapter: Adapter, path: str) -> None:
    """The hash is a signed 32-bit integer and its base-36 form is its absolute value."""
    hashed = result(memspec_adapter, "automemory.path_hash", {"path": path})
    assert -(2**31) <= hashed["hash"] < 2**31
    assert int(hashed["base36"], 36) == abs(hashed["hash"])
    assert hashed["base36"] == hashed["base36"].lower()


@suite_case("automemory/memory-dir/property-validated-form", "AUTOMEMORY-DIR-001")
@settings(deadline=None)
@given(value=st.text(alphabet="/\\.a~b:\u00e9e\u0301", max_size=24))
def test_validated_directories_are_normal(memspec_adapter: Adapter, value: str) -> None:
    """A validated directory is absolute, ends in exactly one '/', and validates to itself."""
    args = {"value": value, "expand_tilde": True, "home": "/home/u"}
    directory = result(memspec_adapter, "automemory.validate_memory_path", args)
    if directory is None:
        return
    assert directory.startswith("/") and directory.endswith("/")
    assert not directory.endswith("//") and len(directory) >= 4
    again = result(memspec_adapter, "automemory.validate_memory_path", {**args, "value": directory})
    assert again == directory


@suite_case(
    "automemory/index/property-load-invariants",
    "AUTOMEMORY-IDX-003",
    "AUTOMEMORY-IDX-004",
    "AUTOMEMORY-IDX-006",
    "AUTOMEMORY-IDX-009",
)
@settings(deadline=None)
@given(lines=index_lines)
def test_loaded_index_keeps_its_invariants(memspec_adapter: Adapter, lines: list[str]) -> None:
    """The measures are those of the trimmed text; within the caps it is loaded whole,
    over them a prefix within both caps is followed by the warning."""
    text = "\n".join(lines)
    loaded = result(memspec_adapter, "automemory.load_index", {"text": text})
    trimmed = text.strip(" \n")
    assert loaded["unit_count"] == len(trimmed)
    assert loaded["line_count"] == trimmed.count("\n") + 1
    over_lines, over_units = loaded["line_count"] > 200, loaded["unit_count"] > 25_000
    assert (loaded["line_truncated"], loaded["unit_truncated"]) == (over_lines, over_units)
    content = _text(loaded["content"])
    if not (over_lines or over_units):
        assert content == trimmed
        return
    kept, marker, warning = content.partition("\n\n> WARNING: MEMORY.md is ")
    assert marker and warning.endswith("move detail into topic files.")
    assert trimmed.startswith(kept)
    assert len(kept) <= 25_000 and kept.count("\n") + 1 <= 200


@suite_case("automemory/index/property-size-wording", "AUTOMEMORY-IDX-010")
@settings(deadline=None)
@given(units=st.integers(min_value=0, max_value=2**40))
def test_size_wording_matches_its_magnitude(memspec_adapter: Adapter, units: int) -> None:
    """The size is written in bytes below 1024 and otherwise in the unit of its magnitude,
    with at most one decimal that is never 0."""
    text = result(memspec_adapter, "automemory.format_size", {"units": units})
    if units < 1024:
        assert text == f"{units} bytes"
        return
    suffix = "KB" if units < 1024**2 else "MB" if units < 1024**3 else "GB"
    number = text.removesuffix(suffix)
    assert number != text and not number.endswith(".0")
    power = {"KB": 1, "MB": 2, "GB": 3}[suffix]
    assert abs(Fraction(number) - Fraction(units, 1024**power)) <= Fraction(1, 20)


@suite_case(
    "automemory/index/property-comment-free-text-unchanged",
    "AUTOMEMORY-IDX-013",
)
@settings(deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=_NO_SURROGATE), max_size=120))
def test_text_without_comments_is_unchanged(memspec_adapter: Adapter, text: str) -> None:
    """Text without '<!--' comes back unchanged, its line endings included."""
    text = text.replace("<!--", "<!-")
    stripped = result(memspec_adapter, "automemory.strip_html_comments", {"text": text})
    assert stripped["stripped"] is False and _text(stripped["content"]) == text


@suite_case(
    "automemory/reminder/property-threshold",
    "AUTOMEMORY-REM-001",
    "AUTOMEMORY-REM-002",
    "AUTOMEMORY-REM-004",
)
@settings(deadline=None, max_examples=60)
@given(lines=st.integers(min_value=1, max_value=260), width=st.integers(min_value=1, max_value=200))
def test_reminder_follows_the_larger_fraction(
    memspec_adapter: Adapter, lines: int, width: int
) -> None:
    """A reminder appears exactly when the larger fraction reaches 0.8, and says 'over'
    exactly when the measure it reports passes its cap."""
    content = "\n".join(["x" * width] * lines)
    units = len(content)
    reminder = result(memspec_adapter, "automemory.size_reminder", {"content": content})
    by_units, by_lines = Fraction(units, 25_000), Fraction(lines, 200)
    by_lines_wins = by_lines > by_units
    fraction = max(by_units, by_lines)
    assert (reminder["text"] is None) == (fraction < Fraction(4, 5))
    if reminder["text"] is None:
        assert reminder["over_cap"] is False
        return
    over = lines > 200 if by_lines_wins else units > 25_000
    assert reminder["over_cap"] is over
    assert reminder["text"].startswith("Error: " if over else "The memory index")
    assert ("-line read limit" in reminder["text"]) is by_lines_wins


@suite_case("automemory/index-line/property-fits-150", "AUTOMEMORY-LINE-001", "AUTOMEMORY-LINE-003")
@settings(deadline=None)
@given(stem=simple_words, description=st.text(alphabet="ab cd\te", max_size=300))
def test_index_line_fits_its_width(memspec_adapter: Adapter, stem: str, description: str) -> None:
    """A line opens with its link and, with a description, is at most 150 units wide."""
    filename = f"{stem}.md"
    line = result(
        memspec_adapter,
        "automemory.index_line",
        {"filename": filename, "description": description},
    )
    link = f"- [{stem}]({filename})"
    assert line.startswith(link)
    collapsed = " ".join(description.split())
    if not collapsed:
        assert line == link
    else:
        assert line.startswith(link + " \u2014 ") and _units(line) <= 150


@suite_case("automemory/frontmatter/property-no-block", "AUTOMEMORY-FM-001")
@settings(deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=_NO_SURROGATE), max_size=200))
def test_text_without_opener_is_all_body(memspec_adapter: Adapter, text: str) -> None:
    """A text that does not open with '---' has no frontmatter and is all body."""
    if text.lstrip("\ufeff").startswith("---"):
        text = "x" + text
    parsed = result(memspec_adapter, "automemory.parse_memory_file", {"text": text})
    assert _text(parsed["body"]) == text
    assert parsed["name"] is None and parsed["type"] is None and parsed["metadata"] == {}


@suite_case(
    "automemory/writer/property-round-trip",
    "AUTOMEMORY-WRITE-001",
    "AUTOMEMORY-WRITE-004",
    "AUTOMEMORY-FM-011",
    "AUTOMEMORY-FM-012",
)
@settings(deadline=None)
@given(
    name=simple_words,
    description=simple_words,
    memory_type=st.sampled_from(_TYPES),
    body=st.text(alphabet="ab\n#", max_size=40),
)
def test_written_file_reads_back(
    memspec_adapter: Adapter, name: str, description: str, memory_type: str, body: str
) -> None:
    """A file the writer emits parses back to its name, description, type and metadata."""
    text = result(
        memspec_adapter,
        "automemory.format_memory_file",
        {
            "name": name,
            "description": description,
            "metadata": {"type": memory_type},
            "body": body,
        },
    )
    parsed = result(memspec_adapter, "automemory.parse_memory_file", {"text": text})
    assert (parsed["name"], parsed["description"], parsed["type"]) == (
        name,
        description,
        memory_type,
    )
    assert parsed["metadata"] == {"node_type": "memory", "type": memory_type}
    assert _text(parsed["body"]) == body.lstrip("\n").lstrip(_JS_SPACE)


@suite_case(
    "automemory/freshness/property-days-floor", "AUTOMEMORY-FRESH-001", "AUTOMEMORY-FRESH-002"
)
@settings(deadline=None)
@given(
    mtime=st.integers(min_value=0, max_value=4_000_000_000_000),
    age=st.integers(min_value=-5 * _DAY_MS, max_value=1000 * _DAY_MS),
)
def test_days_are_floored_and_never_negative(
    memspec_adapter: Adapter, mtime: int, age: int
) -> None:
    """days is the floor of the elapsed days, never negative; a caveat exactly from 2."""
    now = max(0, mtime + age)
    fresh = result(
        memspec_adapter,
        "automemory.freshness",
        {
            "mtime": format_instant(mtime * _NS_PER_MS),
            "now": format_instant(now * _NS_PER_MS),
            "path": "/m/a.md",
        },
    )
    days = max(0, (now - mtime) // _DAY_MS)
    assert fresh["days"] == days
    assert (fresh["caveat"] == "") == (days <= 1)
    assert fresh["header"].endswith("Memory: /m/a.md:")


@suite_case("automemory/carve-out/property-strict-implies-lexical", "AUTOMEMORY-CARVE-005")
@settings(deadline=None)
@given(rest=st.text(alphabet="ab./:G\u0130\u017f ", max_size=20))
def test_strict_check_implies_the_lexical_one(memspec_adapter: Adapter, rest: str) -> None:
    """Whatever the strict check allows, the lexical check allows too."""
    with _directory(memspec_adapter) as directory:
        # Eight levels below the scratch folder, where nothing is made: the 20 units of
        # rest climb at most seven with "..", so no path leaves the folder.
        memory = f"{directory}/a/b/c/d/e/f/g/mem/"
        args = {"path": memory + rest, "dir": memory}
        strict = result(memspec_adapter, "automemory.carve_out", args)
        lexical = result(memspec_adapter, "automemory.carve_out_lexical", args)
    assert not strict or lexical


@suite_case("automemory/scan/property-lists-written-files", "AUTOMEMORY-SCAN-001")
@settings(deadline=None, max_examples=25)
@given(
    files=st.dictionaries(
        simple_words, st.tuples(simple_words, st.sampled_from(_TYPES)), min_size=1, max_size=6
    )
)
def test_scan_lists_what_was_written(
    memspec_adapter: Adapter, files: dict[str, tuple[str, str]]
) -> None:
    """Every memory file written is listed once with its description and type, and the
    index is not."""
    with _directory(memspec_adapter) as directory:
        for stem, (description, memory_type) in files.items():
            result(
                memspec_adapter,
                "automemory.write_memory_file",
                {
                    "path": f"{directory}/{stem}.md",
                    "name": stem,
                    "description": description,
                    "metadata": {"type": memory_type},
                    "body": "b\n",
                },
            )
        with open(f"{directory}/MEMORY.md", "w", encoding="utf-8") as index:
            index.write("- [x](x.md)\n")
        headers = result(memspec_adapter, "automemory.scan_memory_files", {"dir": directory})
    listed = {h["filename"]: (h["description"], h["type"]) for h in headers}
    assert len(listed) == len(headers)
    assert listed == {f"{stem}.md": fields for stem, fields in files.items()}
