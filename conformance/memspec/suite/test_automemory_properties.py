"""Properties of the automemory profile, driven through the adapter under test.

Each states an invariant the spec implies, one or more per area; none compares with the
reference.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Literal

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memspec.corpus.registry import suite_case
from memspec.suite._support import expect_equal, object_with, result, scratch_folder, text_of
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


def _picked(answer: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: answer[name] for name in names}


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
    again = result(memspec_adapter, "automemory.constants", {})
    expect_equal("automemory.constants", {}, first, again, what="result after another call")


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
    args = {"path": path}
    key = result(memspec_adapter, "automemory.project_key", args)
    units = path.encode("utf-16-le")
    sanitized = "".join(
        chr(unit) if chr(unit).isascii() and chr(unit).isalnum() else "-"
        for unit in (int.from_bytes(units[i : i + 2], "little") for i in range(0, len(units), 2))
    )
    if len(sanitized) <= 200:
        expect_equal("automemory.project_key", args, sanitized, key)
    else:
        hashed = object_with(result(memspec_adapter, "automemory.path_hash", args), "base36")
        suffix = text_of(hashed["base36"], "base36 of the path's hash")
        expect_equal("automemory.project_key", args, sanitized[:200] + "-" + suffix, key)


@suite_case("automemory/project-key/property-hash-in-range", "AUTOMEMORY-KEY-004")
@settings(deadline=None)
@given(path=paths)
def test_path_hash_is_a_signed_32_bit_value(memspec_adapter: Adapter, path: str) -> None:
    """The hash is a signed 32-bit integer and its base-36 form is its absolute value."""
    args = {"path": path}
    hashed = object_with(result(memspec_adapter, "automemory.path_hash", args), "hash", "base36")
    number, base36 = hashed["hash"], hashed["base36"]
    assert type(number) is int and -(2**31) <= number < 2**31, "the hash is a signed 32-bit integer"
    assert isinstance(base36, str) and re.fullmatch("[0-9a-z]+", base36), (
        "base36 is lower-case base-36 digits"
    )
    expect_equal("automemory.path_hash", args, abs(number), int(base36, 36), what="base36 value")


@suite_case("automemory/memory-dir/property-validated-form", "AUTOMEMORY-DIR-001")
@settings(deadline=None)
@given(value=st.text(alphabet="/\\.a~b:\u00e9e\u0301", max_size=24))
@example(value="/a\u0301")  # shorter than four units once in NFC
@example(value="/a/..\\")  # a '..' that the trailing backslash hid from normalising
def test_validated_directories_are_normal(memspec_adapter: Adapter, value: str) -> None:
    """A validated directory is absolute and ends in exactly one '/'; one that is settled
    (no empty, '.' or '..' component, and three units before its '/') validates to
    itself."""
    args = {"value": value, "expand_tilde": True, "home": "/home/u"}
    directory = result(memspec_adapter, "automemory.validate_memory_path", args)
    if directory is None:
        return
    assert isinstance(directory, str), "a validated directory is null or text"
    assert directory.startswith("/") and directory.endswith("/"), (
        "a validated directory is absolute and ends in '/'"
    )
    # NFC comes after the length check (steps 4 and 5): "/a\u0301" gives "/\u00e1/".
    assert not directory.endswith("//") and len(unicodedata.normalize("NFD", directory)) >= 4, (
        "a validated directory ends in exactly one '/' and is at least 4 units long before NFC"
    )
    # Normalising comes before a trailing backslash is removed (`/x/..\` gives `/x/../`), and
    # NFC after the length check: such a result is refused when validated again.
    components = directory[1:-1].split("/")
    if len(directory) < 4 or any(part in ("", ".", "..") for part in components):
        return
    revalidated = {**args, "value": directory}
    again = result(memspec_adapter, "automemory.validate_memory_path", revalidated)
    expect_equal("automemory.validate_memory_path", revalidated, directory, again)


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
    args = {"text": "\n".join(lines)}
    measures = ("unit_count", "line_count", "line_truncated", "unit_truncated")
    loaded = object_with(
        result(memspec_adapter, "automemory.load_index", args), *measures, "content"
    )
    trimmed = args["text"].strip(" \n")
    units, line_count = len(trimmed), trimmed.count("\n") + 1
    over_lines, over_units = line_count > 200, units > 25_000
    wanted = {
        "unit_count": units,
        "line_count": line_count,
        "line_truncated": over_lines,
        "unit_truncated": over_units,
    }
    expect_equal("automemory.load_index", args, wanted, _picked(loaded, *measures))
    content = text_of(loaded["content"], "the loaded content")
    if not (over_lines or over_units):
        expect_equal("automemory.load_index", args, trimmed, content, what="content")
        return
    kept, marker, warning = content.partition("\n\n> WARNING: MEMORY.md is ")
    assert marker and warning.endswith("move detail into topic files."), (
        "a truncated index ends with the warning"
    )
    assert trimmed.startswith(kept), "what is kept of a truncated index is not a prefix"
    assert len(kept) <= 25_000 and kept.count("\n") + 1 <= 200, (
        "what is kept of a truncated index passes a cap"
    )


@suite_case("automemory/index/property-size-wording", "AUTOMEMORY-IDX-010")
@settings(deadline=None)
@given(units=st.integers(min_value=0, max_value=2**40))
def test_size_wording_matches_its_magnitude(memspec_adapter: Adapter, units: int) -> None:
    """The size is written in bytes below 1024 and otherwise in the unit of its magnitude,
    with at most one decimal that is never 0."""
    args = {"units": units}
    text = result(memspec_adapter, "automemory.format_size", args)
    if units < 1024:
        expect_equal("automemory.format_size", args, f"{units} bytes", text)
        return
    suffix = "KB" if units < 1024**2 else "MB" if units < 1024**3 else "GB"
    assert isinstance(text, str) and text.endswith(suffix), "the size is not in its unit"
    number = text.removesuffix(suffix)
    assert re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", number) and not number.endswith(".0"), (
        "the size is a decimal number, without a decimal 0"
    )
    power = {"KB": 1, "MB": 2, "GB": 3}[suffix]
    assert abs(Fraction(number) - Fraction(units, 1024**power)) <= Fraction(1, 20), (
        "the size is off by more than half a tenth of its unit"
    )


@suite_case(
    "automemory/index/property-comment-free-text-unchanged",
    "AUTOMEMORY-IDX-013",
)
@settings(deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=_NO_SURROGATE), max_size=120))
def test_text_without_comments_is_unchanged(memspec_adapter: Adapter, text: str) -> None:
    """Text without '<!--' comes back unchanged, its line endings included."""
    args = {"text": text.replace("<!--", "<!-")}
    stripped = object_with(
        result(memspec_adapter, "automemory.strip_html_comments", args), "stripped", "content"
    )
    expect_equal(
        "automemory.strip_html_comments",
        args,
        {"stripped": False, "content": args["text"]},
        _picked(stripped, "stripped", "content"),
    )


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
    args = {"content": "\n".join(["x" * width] * lines)}
    units = len(args["content"])
    reminder = object_with(
        result(memspec_adapter, "automemory.size_reminder", args), "text", "over_cap"
    )
    by_units, by_lines = Fraction(units, 25_000), Fraction(lines, 200)
    by_lines_wins = by_lines > by_units
    fraction = max(by_units, by_lines)
    text = reminder["text"]
    assert (text is None) == (fraction < Fraction(4, 5)), (
        "a reminder is given exactly when the larger fraction reaches 0.8"
    )
    over = text is not None and (lines > 200 if by_lines_wins else units > 25_000)
    expect_equal("automemory.size_reminder", args, over, reminder["over_cap"], what="over_cap")
    if text is None:
        return
    assert isinstance(text, str), "a reminder is text"
    assert text.startswith("Error: " if over else "The memory index"), (
        "the reminder opens otherwise"
    )
    assert ("-line read limit" in text) is by_lines_wins, (
        "the reminder names the line limit exactly when the lines' fraction is the larger"
    )


@suite_case("automemory/index-line/property-fits-150", "AUTOMEMORY-LINE-001", "AUTOMEMORY-LINE-003")
@settings(deadline=None)
@given(stem=simple_words, description=st.text(alphabet="ab cd\te", max_size=300))
def test_index_line_fits_its_width(memspec_adapter: Adapter, stem: str, description: str) -> None:
    """A line opens with its link and, with a description, is at most 150 units wide."""
    filename = f"{stem}.md"
    args = {"filename": filename, "description": description}
    line = result(memspec_adapter, "automemory.index_line", args)
    link = f"- [{stem}]({filename})"
    collapsed = " ".join(description.split())
    if not collapsed:
        expect_equal("automemory.index_line", args, link, line)
        return
    assert isinstance(line, str), "an index line is text"
    assert line.startswith(link + " \u2014 "), "the line does not open with its link and a dash"
    assert _units(line) <= 150, "the line is wider than 150 units"


@suite_case("automemory/frontmatter/property-no-block", "AUTOMEMORY-FM-001")
@settings(deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=_NO_SURROGATE), max_size=200))
def test_text_without_opener_is_all_body(memspec_adapter: Adapter, text: str) -> None:
    """A text that does not open with '---' has no frontmatter and is all body."""
    if text.lstrip("\ufeff").startswith("---"):
        text = "x" + text
    args = {"text": text}
    judged = ("body", "name", "type", "metadata")
    parsed = object_with(result(memspec_adapter, "automemory.parse_memory_file", args), *judged)
    expect_equal(
        "automemory.parse_memory_file",
        args,
        {"body": text, "name": None, "type": None, "metadata": {}},
        _picked(parsed, *judged),
    )


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
    args = {"text": text}
    judged = ("name", "description", "type", "metadata", "body")
    parsed = object_with(result(memspec_adapter, "automemory.parse_memory_file", args), *judged)
    wanted = {
        "name": name,
        "description": description,
        "type": memory_type,
        "metadata": {"node_type": "memory", "type": memory_type},
        "body": body.lstrip("\n").lstrip(_JS_SPACE),
    }
    expect_equal("automemory.parse_memory_file", args, wanted, _picked(parsed, *judged))


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
    args = {
        "mtime": format_instant(mtime * _NS_PER_MS),
        "now": format_instant(now * _NS_PER_MS),
        "path": "/m/a.md",
    }
    fresh = object_with(
        result(memspec_adapter, "automemory.freshness", args), "days", "caveat", "header"
    )
    days = max(0, (now - mtime) // _DAY_MS)
    expect_equal("automemory.freshness", args, days, fresh["days"], what="days")
    assert (fresh["caveat"] == "") == (days <= 1), "a caveat is given exactly from 2 days"
    header = fresh["header"]
    assert isinstance(header, str) and header.endswith("Memory: /m/a.md:"), (
        "the header does not end with the memory's path"
    )


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
    assert not strict or lexical, "the strict check allows what the lexical one refuses"


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
        args = {"dir": directory}
        headers = result(memspec_adapter, "automemory.scan_memory_files", args)
    assert isinstance(headers, list), "a scan is a list"
    found = [object_with(h, "filename", "description", "type", what="a header") for h in headers]
    listed = {text_of(h["filename"], "a file name"): [h["description"], h["type"]] for h in found}
    assert len(listed) == len(headers), "a file is listed twice"
    wanted = {f"{stem}.md": list(fields) for stem, fields in files.items()}
    expect_equal(
        "automemory.scan_memory_files",
        args,
        wanted,
        listed,
        what="files listed (description, type)",
    )
