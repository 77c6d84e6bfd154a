"""The conformance matrix page, checked in a real browser (headless Chromium).

The page is made from real reports of real runs: memref (labelled ``main`` by
``memspec run --label``), one shard of memref's run, two builds of ``quote-port``, a
turnlog port that claims turnlog alone (``turnlog_fakes``; one build misreads
TURNLOG-WRITE-004, the other is fixed and labelled by ``memspec matrix --label``),
``memdir_fakes.ThreeOps``, a port that implements three memdir ops (one wrongly) and
claims only memdir, and a copy of ThreeOps's report carrying hostile text. Chromium
(``browser``) renders the page from a file in a 1400x1000 viewport, and the DOM is read
after the page's script ran; screenshots are kept as pictures. The page's
``?open=AREA&case=ID`` parameters open an area and a case through the same function a
click calls.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser import WINDOW, Browser, chromium
from conftest import HERE, run_memspec

from memspec.corpus.cases import load_cases
from memspec.corpus.profiles import known_profiles
from memspec.corpus.requirements import load_requirements
from memspec.reports.report import OUTCOMES, read_report

SELECTION = (
    "--profile",
    "memdir",
    "--profile",
    "turnlog",
    "-k",
    # The page shows any kind of case alike: the costly ones (each crash point, each
    # worker of a concurrent step, a run of its own) add nothing to it.
    "(memdir/type or memdir/age or turnlog/filename or turnlog/write) "
    "and not crash-points and not concurrent",
)
HOSTILE = (
    '</script><script>document.body.setAttribute("data-pwned", "1")</script>'
    "<img src=x onerror=\"document.body.setAttribute('data-pwned', '2')\">"
    ' & \u2028 \U0001f600 "quoted" <b>bold</b>'
)
TYPE_CASE = "memdir/type/known-user"
DIVERGENT_CASE = "memdir/age/365-days-minus-1ns-age-days"
TREE_CASE = "turnlog/write/escape-title"
# The reports, in the page's column order: (name, adapter, run options, matrix label).
COLUMNS = (
    ("memref", "reference", ("--label", "main"), ""),
    ("memref-shard", "reference", ("--label", "main", "--shard", "1/2"), ""),
    ("quote-before", "python:turnlog_fakes:QuotePort", ("--label", "pr-41"), ""),
    ("quote-after", "python:turnlog_fakes:QuotePortFixed", (), "pr-42"),
    ("three-ops", "python:memdir_fakes:ThreeOps", (), ""),
)
EVIL = len(COLUMNS)


def _artifacts() -> Path:
    base = Path(os.environ.get("MEMSPEC_ARTIFACTS") or HERE / "artifacts")
    base.mkdir(parents=True, exist_ok=True)
    return base


def dump_dom(browser: Browser, page: Path, query: str = "") -> str:
    html = browser.load(page.as_uri() + query).html
    assert "data-ready" in html, html[-2000:]
    return html


def screenshot(browser: Browser, page: Path, target: Path, query: str = "") -> None:
    browser.screenshot(page.as_uri() + query, target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def all(self, tag: str = "", **wanted: str) -> list[Node]:
        """Every element below this one with the tag (any, when empty) and attributes."""
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if (not tag or child.tag == tag) and all(
                    child.attrs.get(k.replace("_", "-")) == v for k, v in wanted.items()
                ):
                    found.append(child)
                found += child.all(tag, **wanted)
        return found

    def has_class(self, name: str) -> bool:
        return name in self.attrs.get("class", "").split()


_VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class _Dom(HTMLParser):
    """A dumped DOM as a tree of nodes, and its elements in document order."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.elements.append((tag, node.attrs))
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)

    @property
    def text(self) -> str:
        return self.root.text

    def find(self, tag: str, **wanted: str) -> list[dict[str, str]]:
        return [node.attrs for node in self.root.all(tag, **wanted)]


def _cells(dom: _Dom) -> dict[tuple[str, int], tuple[int, int]]:
    return {
        (a["data-row"], int(a["data-impl"])): (int(a["data-passed"]), int(a["data-total"]))
        for a in dom.find("td")
        if "data-row" in a
    }


def _expected_cells(reports: list[Path]) -> dict[tuple[str, int], tuple[int, int]]:
    """Pass counts per (row, implementation), computed from the reports themselves."""
    tally: dict[tuple[str, int], Counter[str]] = {}
    for column, report in enumerate(reports):
        for record in read_report(report):
            if record["type"] != "case":
                continue
            parts = record["id"].split("/")
            area = "/".join(parts[:2]) if len(parts) > 2 else f"{parts[0]}/(other)"
            for key in ("all", parts[0], area):
                tally.setdefault((key, column), Counter())[record["outcome"]] += 1
    rows = {key for key, _ in tally}
    return {
        (row, column): (
            tally.get((row, column), Counter())["passed"],
            sum(n for o, n in tally.get((row, column), Counter()).items() if o != "skipped"),
        )
        for row in rows
        for column in range(len(reports))
    }


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The reports of ``COLUMNS`` (real runs), then a copy of ThreeOps's with hostile text."""
    chromium()
    where = tmp_path_factory.mktemp("matrix-reports")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    for name in ("PYTEST_ADDOPTS", "MEMSPEC_FIXTURES", "MEMSPEC_SPEC", "GITHUB_STEP_SUMMARY"):
        env.pop(name, None)
    made = []
    for name, adapter, options, _ in COLUMNS:
        report = where / f"{name}.jsonl"
        result = run_memspec(
            "run", "--adapter", adapter, *SELECTION, *options, "--report", str(report),
            cwd=where, env=env, timeout=600,
        )  # fmt: skip
        assert result.returncode in (0, 1), result.stdout[-2000:] + result.stderr[-2000:]
        made.append(report)

    def hostile(line: dict[str, Any]) -> dict[str, Any]:
        if line["type"] == "header":
            return {
                **line,
                "implementation": {"name": "<i>evil</i>", "version": "1&2", "language": "c"},
            }
        if line["type"] == "case" and line["outcome"] == "failed":
            return {**line, "message": HOSTILE}
        return line

    evil = where / "evil.jsonl"
    three_ops = made[[name for name, *_ in COLUMNS].index("three-ops")]
    evil.write_text(
        "".join(json.dumps(hostile(line)) + "\n" for line in read_report(three_ops)),
        encoding="utf-8",
    )
    return [*made, evil]


def _column(name: str) -> int:
    return [column for column, *_ in COLUMNS].index(name)


@pytest.fixture(scope="module")
def page(reports: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("matrix")
    labels = [argument for *_, label in COLUMNS for argument in ("--label", label)]
    result = run_memspec("matrix", *map(str, reports), *labels, "-o", str(out), cwd=out)
    assert result.returncode == 0, result.stderr
    return out / "index.html"


def _layout(dom: _Dom) -> dict[str, int]:
    (body,) = dom.find("body")
    return dict(json.loads(body["data-layout"]))


def test_the_page_is_self_contained(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text.replace("http://www.w3.org", "")
    assert "https://" not in text
    assert "<link" not in text and "src=" not in text.split('id="memspec-data"')[0]
    data = text.split('id="memspec-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data  # the embedded JSON cannot close its element


def test_cell_counts_in_the_browser_equal_the_reports(
    reports: list[Path], page: Path, browser: Browser
) -> None:
    dom = _Dom(dump_dom(browser, page))
    (body,) = dom.find("body")
    assert body["data-ready"] == "1" and "data-pwned" not in body
    (matrix,) = dom.find("table", id="matrix")
    assert matrix["data-cols"] == str(len(reports))
    expected = _expected_cells(reports)
    assert _cells(dom) == expected
    assert expected[("memdir/type", _column("memref"))] == (27, 27)
    assert expected[("memdir/type", _column("three-ops"))] == (21, 27)
    assert expected[("turnlog", _column("three-ops"))] == (0, 0)  # not claimed
    assert matrix["data-rows"] == str(len({row for row, _ in expected}))
    headers = [node for node in dom.root.all("th") if "data-impl" in node.attrs]
    assert headers[_column("memref")].text.startswith("memref ")
    assert headers[_column("three-ops")].text.startswith("three-ops 0.0.1")
    assert headers[EVIL].text.startswith("<i>evil</i> 1&2")  # shown as text
    assert dom.find("tr", data_case=TYPE_CASE) == []  # no case rows until an area opens


def test_reports_of_one_implementation_are_told_apart_by_name_version_and_label(
    page: Path, browser: Browser
) -> None:
    dom = _Dom(dump_dom(browser, page))
    headers = [node for node in dom.root.all("th") if "data-impl" in node.attrs]
    before, after = headers[_column("quote-before")], headers[_column("quote-after")]
    for header, label in ((before, "pr-41"), (after, "pr-42")):  # from run, from matrix
        assert header.attrs["data-label"] == label
        (shown,) = header.all("span", **{"class": "label"})
        assert shown.text == label
        assert header.text.startswith("quote-port 0.2.0")
    assert headers[_column("memref")].attrs["data-label"] == "main"
    assert "[" not in before.text + after.text  # no file names needed to tell them apart


def test_a_partial_run_is_a_marked_column(page: Path, browser: Browser) -> None:
    dom = _Dom(dump_dom(browser, page))
    column = _column("memref-shard")
    headers = [node for node in dom.root.all("th") if "data-impl" in node.attrs]
    shard = headers[column]
    assert shard.attrs["data-partial"] == "shard 1/2" and shard.has_class("partial")
    assert [mark.text for mark in shard.all("span", **{"class": "mark"})] == ["shard 1/2"]
    cells = [node for node in dom.root.all("td") if node.attrs.get("data-impl") == str(column)]
    assert cells and all(cell.has_class("partial") for cell in cells)
    whole = [node for node in dom.root.all("td") if node.attrs.get("data-impl") == "0"]
    assert not any(cell.has_class("partial") for cell in whole)


def test_profiles_not_claimed_are_named(page: Path, browser: Browser) -> None:
    dom = _Dom(dump_dom(browser, page))
    headers = [node for node in dom.root.all("th") if "data-impl" in node.attrs]
    three_ops = headers[_column("three-ops")]
    others = [profile for profile in sorted(known_profiles()) if profile != "memdir"]
    assert three_ops.attrs["data-unclaimed"] == " ".join(others)
    assert f"not claimed: {', '.join(others)}" in three_ops.text
    assert headers[_column("memref")].attrs["data-unclaimed"] == ""
    (everything,) = [
        node
        for node in dom.root.all("td", data_row="all")
        if node.attrs["data-impl"] == str(_column("three-ops"))
    ]
    assert f"1 of {len(known_profiles())} profiles claimed" in everything.text
    (turnlog,) = [
        node
        for node in dom.root.all("td", data_row="turnlog")
        if node.attrs["data-impl"] == str(_column("three-ops"))
    ]
    assert turnlog.text == "not claimed"


def test_the_page_uses_the_viewport(page: Path, browser: Browser) -> None:
    closed = _layout(_Dom(dump_dom(browser, page)))
    assert closed["viewport"] == WINDOW[1]
    assert closed["matrix"] <= closed["viewport"]
    opened = _layout(_Dom(dump_dom(browser, page, f"?open=memdir/type&case={TYPE_CASE}")))
    assert opened["area"] == opened["viewport"]  # the opened area reaches the window's foot
    assert opened["matrix"] <= opened["viewport"] // 2


def test_opening_an_area_and_a_case_shows_requirement_args_expectation_and_answers(
    reports: list[Path], page: Path, browser: Browser
) -> None:
    query = f"?open={quote('memdir/type')}&case={quote(TYPE_CASE)}"
    dom = _Dom(dump_dom(browser, page, query))
    (panel,) = dom.find("section", id="area")
    area_ids = {
        r["id"]
        for path in reports
        for r in read_report(path)
        if r["type"] == "case" and r["id"].startswith("memdir/type/")
    }
    assert panel["data-area"] == "memdir/type" and panel["data-cases"] == str(len(area_ids))
    assert {a["data-case"] for a in dom.find("tr") if "data-case" in a} == area_ids
    (detail,) = dom.root.all("div", data_case_detail=TYPE_CASE)
    requirement = next(r for r in load_requirements() if r.id == "MEMDIR-TYPE-001")
    (shown,) = detail.all("p", data_requirement="MEMDIR-TYPE-001")
    spans = re.findall(r"`([^`]+)`", requirement.text)
    assert spans and [code.text for code in shown.all("code")] == spans  # code spans rendered
    assert "`" not in shown.text
    assert shown.text.endswith(re.sub(r"`([^`]+)`", r"\1", requirement.text))
    fields = detail.all("table", **{"class": "fields"})
    arguments = {row.all("th")[0].text: row.all("td")[0].text for row in fields[0].all("tr")}
    assert arguments == {"raw": "user"}  # a text argument as text
    assert '"type": "user"' in fields[1].text  # the expected result
    assert "null" not in detail.text
    three_ops = next(
        r["message"] for r in read_report(reports[_column("three-ops")]) if r.get("id") == TYPE_CASE
    )
    text = dom.text
    assert three_ops.splitlines()[0] in text  # each implementation's answer
    assert HOSTILE in text  # hostile text arrives as text ...
    assert "data-pwned" not in dom.find("body")[0]  # ... and runs nothing
    assert not [t for t, _ in dom.elements if t == "img"]
    assert len([t for t, _ in dom.elements if t == "script"]) == 2


def test_file_contents_show_as_text_with_invisible_characters_escaped(
    reports: list[Path], page: Path, browser: Browser
) -> None:
    case = next(c for c in load_cases(profiles=["turnlog"]) if c.id == TREE_CASE)
    ((path, entry),) = case.steps[0].expect.tree.items()  # type: ignore[union-attr]
    content = entry["text"]
    assert "\r\t" in content and '\\"' in content and "\n" in content
    dom = _Dom(dump_dom(browser, page, f"?open=turnlog/write&case={quote(TREE_CASE)}"))
    (detail,) = dom.root.all("div", data_case_detail=TREE_CASE)
    (shown,) = detail.all("div", data_tree_entry=path)
    (text,) = shown.all("pre")
    # The file's own characters, line breaks as line breaks, and \r and tab as the run
    # output escapes them, marked.
    assert text.text == content.replace("\r", "\\r").replace("\t", "\\t")
    assert [esc.text for esc in text.all("span", **{"class": "esc"})] == ["\\r\\t"]
    answer = next(
        r["message"]
        for r in read_report(reports[_column("quote-before")])
        if r.get("id") == TREE_CASE
    )
    actual = next(line for line in answer.splitlines() if line.strip().startswith("actual:"))
    assert '\\\\ c "d\\r\\te' in actual  # the port's file, escaped as in the run output
    assert actual.strip() in dom.text


def test_a_case_with_a_recorded_divergence_shows_it(page: Path, browser: Browser) -> None:
    case = next(c for c in load_cases(profiles=["memdir"]) if c.id == DIVERGENT_CASE)
    assert case.divergence
    dom = _Dom(dump_dom(browser, page, f"?open=memdir/age&case={quote(DIVERGENT_CASE)}"))
    (shown,) = dom.root.all("p", **{"class": "div"})
    assert re.sub(r"`([^`]+)`", r"\1", case.divergence) in shown.text


def test_screenshots_of_the_page_with_a_case_open(page: Path, browser: Browser) -> None:
    for name, query in (
        ("matrix.png", f"?open=turnlog/write&case={quote(TREE_CASE)}"),
        ("matrix-type.png", f"?open=memdir/type&case={quote(TYPE_CASE)}"),
    ):
        target = _artifacts() / name
        screenshot(browser, page, target, query)
        assert target.stat().st_size > 10_000


def _synthetic_reports(where: Path, implementations: int, cases: int) -> list[Path]:
    profiles = ("memdir", "factstore", "memorytool", "turnlog")
    outcomes = ("passed",) * 6 + ("failed", "error", "skipped", "xfailed")
    paths = []
    for column in range(implementations):
        header = {
            "type": "header",
            "suite_version": "0.1.0",
            "protocol_version": "1.1.0",
            "implementation": {
                "name": f"port-with-a-long-name-{column}",
                "version": f"{column}.0",
                "language": "x",
            },
            "run_info": {},
        }
        lines: list[dict[str, Any]] = [header]
        for number in range(cases):
            outcome = outcomes[(number * 7 + column * 3) % len(outcomes)] if column else "passed"
            lines.append(
                {
                    "type": "case",
                    "id": f"{profiles[number % 4]}/area-{number % 37}/case-{number}",
                    "profile": profiles[number % 4],
                    "requirements": [],
                    "outcome": outcome,
                    "message": "" if outcome == "passed" else f"wrong answer {number}",
                    "duration_s": 0.0,
                }
            )
        tally = Counter(str(line["outcome"]) for line in lines[1:])
        counts = {outcome: tally[outcome] for outcome in OUTCOMES}
        lines.append({"type": "footer", "counts": counts, "interrupted": False})
        path = where / f"port{column}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        paths.append(path)
    return paths


def test_twenty_implementations_and_three_thousand_cases(
    memspec_cli: Any, tmp_path: Path, browser: Browser
) -> None:
    chromium()
    reports = _synthetic_reports(tmp_path, 20, 3000)
    out = tmp_path / "big"
    result = memspec_cli("matrix", *map(str, reports), "-o", str(out))
    assert result.returncode == 0, result.stderr
    page = out / "index.html"
    started = time.monotonic()
    dom = _Dom(dump_dom(browser, page, "?open=memdir/area-0"))
    assert time.monotonic() - started < 60
    assert _cells(dom) == _expected_cells(reports)
    opened = {a["data-case"] for a in dom.find("tr") if "data-case" in a}
    assert opened and all(case.startswith("memdir/area-0/") for case in opened)
    overview = _layout(_Dom(dump_dom(browser, page)))
    assert overview["matrix"] > 0.85 * overview["viewport"]  # a long matrix fills the window
    screenshot(browser, page, _artifacts() / "matrix-20.png", "?open=memdir/area-0")
    screenshot(browser, page, _artifacts() / "matrix-20-overview.png")


def test_matrix_refuses_bad_input(memspec_cli: Any, tmp_path: Path) -> None:
    def usage_error(*args: str) -> str:
        result = memspec_cli("matrix", *args)
        assert result.returncode == 2, result.stdout
        (line,) = result.stderr.strip().splitlines()
        return str(line)

    assert "no such report" in usage_error(str(tmp_path / "none.jsonl"), "-o", str(tmp_path))
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{}\n", encoding="utf-8")
    assert "not a memspec report" in usage_error(str(junk), "-o", str(tmp_path / "o"))
    (good,) = _synthetic_reports(tmp_path, 1, 3)
    assert "not a directory" in usage_error(str(good), "-o", str(good))
    assert "-o" in usage_error(str(good))
    assert "--label" in usage_error(str(good), "--label", "a", "--label", "b", "-o", "x")
