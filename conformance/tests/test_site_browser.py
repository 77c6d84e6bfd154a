"""``memspec site``: the spec as a static site, checked in a real browser (headless
Chromium, as the matrix page is: ``test_matrix_browser``).

The site is built from the real implementations' reports when
``MEMSPEC_IMPLEMENTATION_REPORTS`` names them (``.ci/run`` does), otherwise from two real
runs made here (memref, and ``memdir_fakes.ThreeOps``, which gets some memdir/type cases
wrong); either way with one more report, a copy of a failing one whose implementation
name and messages are hostile markup. Every page is loaded from a file with Chromium's
console log on: no page may log anything. Links and anchors are checked against the DOM
Chromium built, so that ids made by the pages' script count and nothing else does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from browser import Browser, chromium
from conftest import HERE, Runner, run_memspec
from test_matrix_browser import Node, _artifacts, _Dom

from memspec.cli.explain import explain
from memspec.cli.site import page_name
from memspec.corpus.cases import load_cases
from memspec.corpus.compare import text_bytes
from memspec.corpus.requirements import load_requirements
from memspec.reports.report import read_report

HOSTILE_NAME = "<img src=x onerror=\"document.body.setAttribute('data-pwned', '1')\">evil"
HOSTILE_MESSAGE = (
    '</script><script>document.body.setAttribute("data-pwned", "2")</script>'
    '<b>bold</b> & "quoted" \u2028'
)
SELECTION = ("--profile", "memdir", "-k", "memdir/type")
PROPERTY = "memdir/frontmatter/property-agrees-with-reference"


def _run_reports(where: Path) -> list[Path]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    for name in ("PYTEST_ADDOPTS", "MEMSPEC_FIXTURES", "MEMSPEC_SPEC", "GITHUB_STEP_SUMMARY"):
        env.pop(name, None)
    made = []
    for name, adapter in (("memref", "reference"), ("three-ops", "python:memdir_fakes:ThreeOps")):
        report = where / f"{name}.jsonl"
        command = [sys.executable, "-m", "memspec", "run", "--adapter", adapter, *SELECTION]
        result = subprocess.run(
            [*command, "--report", str(report)],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert result.returncode in (0, 1), result.stdout[-2000:] + result.stderr[-2000:]
        made.append(report)
    return made


def _failing(record: dict[str, Any]) -> bool:
    return record.get("type") == "case" and record.get("outcome") in ("failed", "error", "xfailed")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chromium()
    where = tmp_path_factory.mktemp("site-reports")
    given = os.environ.get("MEMSPEC_IMPLEMENTATION_REPORTS")
    if given and Path(given).is_dir() and list(Path(given).glob("*.jsonl")):
        for path in sorted(Path(given).glob("*.jsonl")):
            shutil.copyfile(path, where / path.name)
    else:
        _run_reports(where)
    source = next(
        path
        for path in sorted(where.glob("*.jsonl"))
        if any(_failing(line) for line in read_report(path))
    )

    def hostile(line: dict[str, Any]) -> dict[str, Any]:
        if line["type"] == "header":
            return {**line, "implementation": {"name": HOSTILE_NAME, "version": "1&2"}}
        if _failing(line):
            return {**line, "message": HOSTILE_MESSAGE}
        return line

    (where / "zz-hostile.jsonl").write_text(
        "".join(json.dumps(hostile(line)) + "\n" for line in read_report(source)),
        encoding="utf-8",
    )
    return where


@pytest.fixture(scope="module")
def site(reports: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "out"
    result = run_memspec("site", str(out), "--reports", str(reports), cwd=out.parent)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith("site: ") and str(out / "index.html") in result.stdout
    return out


def _load(browser: Browser, page: Path, query: str = "") -> tuple[_Dom, list[str]]:
    """The DOM after the page's script ran, and what the page logged to the console."""
    loaded = browser.load(page.as_uri() + query)
    assert 'data-ready="1"' in loaded.html, (page, loaded.console)
    return _Dom(loaded.html), loaded.console


def _pages(site: Path) -> list[Path]:
    return [*sorted(site.glob("*.html")), site / "matrix" / "index.html"]


@pytest.fixture(scope="module")
def doms(site: Path, browser: Browser) -> dict[Path, _Dom]:
    loaded = {}
    for page in _pages(site):
        dom, console = _load(browser, page)
        assert console == [], (page.name, console)
        loaded[page] = dom
    return loaded


_BY_ID: dict[int, dict[str, Node]] = {}


def _by_id(dom: _Dom) -> dict[str, Node]:
    """Each element of the page by its id (made once per page)."""
    if id(dom) not in _BY_ID:
        found: dict[str, Node] = {}
        stack = [dom.root]
        while stack:
            node = stack.pop()
            if "id" in node.attrs:
                found.setdefault(node.attrs["id"], node)
            stack.extend(child for child in node.children if isinstance(child, Node))
        _BY_ID[id(dom)] = found
    return _BY_ID[id(dom)]


def _resolves(site: Path, doms: dict[Path, _Dom], page: Path, href: str) -> bool:
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return False  # the site links nowhere outside itself
    target = Path(os.path.normpath(page.parent / unquote(parts.path))) if parts.path else page
    if not target.is_file() or site not in target.parents:
        return False
    if not parts.fragment:
        return True
    return target in doms and unquote(parts.fragment) in _by_id(doms[target])


def test_every_page_is_generated_for_every_spec_page(site: Path) -> None:
    spec = Path(__file__).resolve().parents[2] / "spec"
    expected = {page_name(path.name) for path in spec.glob("*.md")} | {"index.html"}
    assert {path.name for path in site.glob("*.html")} == expected
    assert {"conventions.html", "protocol.html", "divergences.html"} <= expected
    for profile in {case.profile for case in load_cases()}:
        assert (site / f"{profile}.html").is_file()


def test_the_home_page_says_which_verdicts_are_statistical(site: Path) -> None:
    home = (site / "index.html").read_text("utf-8")
    assert "<th>statistical verdicts</th>" in home
    assert "none: the observer decides crash points, concurrency, readers and races" in home


def test_pages_render_without_console_output_and_every_link_resolves(
    site: Path, doms: dict[Path, _Dom]
) -> None:
    broken = []
    checked = 0
    for page, dom in doms.items():
        for tag, attrs in dom.elements:
            for attribute in ("href", "src"):
                if attribute in attrs and tag in ("a", "link", "script"):
                    checked += 1
                    if not _resolves(site, doms, page, attrs[attribute]):
                        broken.append((page.name, attrs[attribute]))
    assert broken == [] and checked > 5_000
    # The matrix builds its links into the site only when a case opens: its data holds them.
    matrix = site / "matrix" / "index.html"
    text = matrix.read_text(encoding="utf-8")
    data = json.loads(text.split('id="memspec-data">', 1)[1].split("</script>", 1)[0])
    assert data["links"]
    assert [h for h in data["links"].values() if not _resolves(site, doms, matrix, h)] == []


def test_every_requirement_has_an_anchor_and_a_visible_level(
    site: Path, doms: dict[Path, _Dom]
) -> None:
    for requirement in load_requirements():
        dom = doms[site / page_name(requirement.page)]
        item = _by_id(dom)[requirement.id]
        assert item.attrs["data-level"] == requirement.level
        (level,) = [node for node in item.all("span") if node.has_class("level")]
        assert level.text == requirement.level


def test_a_case_shows_its_inputs_trees_and_expectation_and_copies_as_json(
    site: Path, doms: dict[Path, _Dom]
) -> None:
    cases = load_cases()
    with_mode = next(c for c in cases if any("mode" in e for e in c.tree.values()))
    with_bytes = next(
        c
        for c in cases
        if any(
            isinstance(v, dict) and "base64" in v and text_bytes(v)
            for v in c.steps[0].args.values()
        )
    )
    for case in (with_mode, with_bytes):
        page = site / page_name(
            next(r.page for r in load_requirements() if r.id == case.requirements[0])
        )
        shown = _by_id(doms[page])[case.id]
        assert (
            case.description in " ".join(shown.text.split()) or case.description[:40] in shown.text
        )
        (link,) = [a for a in shown.all("a") if a.attrs.get("href", "").startswith("fixtures/")]
        assert case.path is not None
        assert (site / link.attrs["href"]).read_bytes() == case.path.read_bytes()
        (data,) = [s for s in shown.all("script") if s.has_class("case-json")]
        assert json.loads(data.text) == json.loads(case.path.read_text(encoding="utf-8"))
        assert shown.all("button", **{"class": "copy"})
    (mode_path, entry) = next((p, e) for p, e in with_mode.tree.items() if "mode" in e)
    shown = _by_id(doms[site / f"{with_mode.profile}.html"])[with_mode.id]
    row = shown.all("tr", data_tree_entry=mode_path)[0]
    assert f"mode {entry['mode']}" in row.text and entry["mode"].startswith("0")
    value = next(
        v for v in with_bytes.steps[0].args.values() if isinstance(v, dict) and text_bytes(v)
    )
    shown = _by_id(doms[site / f"{with_bytes.profile}.html"])[with_bytes.id]
    data = text_bytes(value) or b""
    assert "in hex" in shown.text and " ".join(f"{b:02x}" for b in data[:16]) in shown.text


def test_a_property_shows_what_explain_shows(site: Path, doms: dict[Path, _Dom]) -> None:
    shown = _by_id(doms[site / "memdir.html"])[PROPERTY]
    text = " ".join(shown.text.split())
    lines = explain(PROPERTY)
    drawn = lines[lines.index("Inputs drawn from:") + 1]
    name_and_strategy, _, summary = drawn.strip().partition(" — ")
    assert name_and_strategy in text and " ".join(summary.split()) in text
    assert "memdir#1" in text


def test_divergence_rows_link_to_their_cases_and_back(site: Path, doms: dict[Path, _Dom]) -> None:
    divergences = doms[site / "divergences.html"]
    section = next(n for n in divergences.root.all("h3") if n.attrs.get("id") == "div-memdir-1")
    assert section and divergences.root.all("tr", id="row-memdir-1")
    case = "memdir/frontmatter/top-level-wins-over-earlier-indented"
    assert [a for a in divergences.root.all("a") if a.attrs.get("href") == f"memdir.html#{case}"]
    shown = _by_id(doms[site / "memdir.html"])[case]
    assert [a for a in shown.all("a") if a.attrs.get("href") == "divergences.html#div-memdir-1"]


def test_results_per_case_and_requirement_and_the_failing_filter(
    reports: Path, site: Path, browser: Browser
) -> None:
    failing: dict[str, set[str]] = {}
    for path in sorted(reports.glob("*.jsonl")):
        for record in read_report(path):
            if _failing(record):
                for rid in record["requirements"]:
                    failing.setdefault(rid, set()).add(record["id"])
    requirements = {r.id: r for r in load_requirements()}
    # A requirement whose item shows a failing case in full: the case's first requirement.
    rid = next(
        record["requirements"][0]
        for record in read_report(reports / "zz-hostile.jsonl")
        if _failing(record) and record["requirements"]
    )
    page = site / page_name(requirements[rid].page)
    target = _artifacts() / "site-requirement.png"
    shown = browser.screenshot(page.as_uri() + f"?focus={rid}", target)
    assert shown.console == [] and 'data-ready="1"' in shown.html
    # A blank window of this size compresses to about 6 kB.
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 30_000
    dom = _Dom(shown.html)
    item = _by_id(dom)[rid]
    assert item.has_class("fails")
    tallies = [n for n in item.all("span") if n.has_class("tally")]
    assert len(tallies) >= 2 and any(n.has_class("f") for n in tallies)
    hostile = next(n for n in tallies if n.text.startswith(HOSTILE_NAME))  # as text
    assert hostile.has_class("f")
    rows = [row for row in item.all("tr") if row.attrs.get("data-outcome") in ("failed", "xfailed")]
    assert rows and HOSTILE_MESSAGE.replace("\u2028", "") in item.text.replace("\u2028", "")
    (body,) = dom.find("body")
    assert "data-pwned" not in body
    assert not [attrs for tag, attrs in dom.elements if tag == "img"]
    filtered, console = _load(browser, page, "?failing=1")
    assert console == []
    (body,) = filtered.find("body")
    on_page = {r for r in failing if page_name(requirements[r].page) == page.name}
    assert "only-failing" in body["class"]
    assert body["data-requirements-shown"] == str(len(on_page))


def test_search_finds_a_requirement_a_case_and_an_op(
    site: Path, doms: dict[Path, _Dom], browser: Browser
) -> None:
    case = "memdir/frontmatter/top-level-wins-over-earlier-indented"
    # Every page searches the whole site: from a page of a few kilobytes here.
    searching = site / "conventions.html"
    for query, wanted, href in (
        ("MEMDIR-FM-004", "MEMDIR-FM-004", "memdir.html#MEMDIR-FM-004"),
        (case, case, f"memdir.html#{case}"),
        ("memories.call", "memories.call", "memories.html#operations"),
    ):
        dom, console = _load(browser, searching, f"?q={query}")
        assert console == []
        (results,) = dom.root.all("ol", id="search-results")
        assert "hidden" not in results.attrs and int(results.attrs["data-count"]) >= 1
        first = results.all("li")[0]
        assert first.attrs["data-id"] == wanted
        (link,) = first.all("a")
        assert link.attrs["href"] == href
        assert _resolves(site, doms, searching, href)
    target = _artifacts() / "site-search.png"
    searched = browser.screenshot(
        (site / "index.html").as_uri() + "?q=frontmatter%20duplicate", target
    )
    assert searched.console == [] and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (results,) = _Dom(searched.html).root.all("ol", id="search-results")
    assert int(results.attrs["data-count"]) >= 2  # words of the text, not only ids


def test_the_site_is_self_contained(site: Path) -> None:
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        # (Fixtures quote URLs as data: only attributes would load anything.)
        assert not re.search(r'(?:src|href)="(?:[a-z]+:)?//', text)
    assert (site / "search.js").stat().st_size < 2_000_000


def test_site_refuses_bad_arguments(memspec_cli: Runner, tmp_path: Path) -> None:
    def usage_error(*args: str) -> str:
        result = memspec_cli("site", *args)
        assert result.returncode == 2, (result.stdout, result.stderr)
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith("memspec: error:")
        return str(line)

    assert "required" in usage_error()
    assert "no such directory" in usage_error(str(tmp_path / "o"), "--reports", str(tmp_path / "x"))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no report" in usage_error(str(tmp_path / "o"), "--reports", str(empty))
    file = tmp_path / "file"
    file.write_text("x", encoding="utf-8")
    assert "not a directory" in usage_error(str(file))
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine", encoding="utf-8")
    assert "not a memspec site" in usage_error(str(busy))
    assert (busy / "keep.txt").read_text(encoding="utf-8") == "mine"
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "r.jsonl").write_text("{}\n", encoding="utf-8")
    assert "not a memspec report" in usage_error(str(tmp_path / "o"), "--reports", str(junk))


def _failing_ids(reports: Path) -> set[str]:
    return {
        record["id"]
        for path in sorted(reports.glob("*.jsonl"))
        for record in read_report(path)
        if _failing(record)
    }


def test_a_folded_case_list_shows_how_many_of_its_cases_fail(
    reports: Path, site: Path, doms: dict[Path, _Dom]
) -> None:
    failing = _failing_ids(reports)
    checked = 0
    for requirement in load_requirements():
        item = _by_id(doms[site / page_name(requirement.page)]).get(requirement.id)
        folds = [d for d in item.all("details") if d.has_class("cases")] if item else []
        if not folds:
            continue
        (summary,) = folds[0].all("summary")[:1]
        listed = {n.attrs["id"] for n in folds[0].all("details") if n.has_class("case")}
        listed |= {a.text for a in folds[0].all("a") if a.has_class("cid")}
        # A case counts as failing when it, or its crash points, failed somewhere.
        count = sum(1 for c in listed if c in failing or f"{c}/crash-points" in failing)
        said = [n for n in summary.all("span") if n.has_class("fold-fails")]
        if count:
            assert [n.text for n in said] == [f"{count} failing"], requirement.id
            checked += 1
        else:
            assert not said, requirement.id
    assert checked, "no folded list holds a failing case"


def test_failing_only_hides_the_prose_bullets_of_every_section(
    reports: Path, tmp_path: Path, browser: Browser
) -> None:
    """The Tool section of hermes.html holds prose bullets (the result shapes) in the same
    list as its requirements: with one of them failing, failing-only shows that
    requirement and none of the prose."""
    header = read_report(sorted(reports.glob("*.jsonl"))[0])[0]
    case = next(c for c in load_cases() if c.requirements == ("HERMES-TOOL-001",))
    record = {
        "type": "case", "id": case.id, "profile": "hermes", "requirements": ["HERMES-TOOL-001"],
        "outcome": "failed", "message": "wrong", "duration_s": 0.1, "kind": "fixture",
        "ops": ["hermes.call"],
    }  # fmt: skip
    given = tmp_path / "reports"
    given.mkdir()
    counts = {"passed": 0, "failed": 1, "error": 0, "skipped": 0, "xfailed": 0, "xpassed": 0}
    footer = {"type": "footer", "counts": counts, "interrupted": False}
    (given / "one.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in (header, record, footer)), encoding="utf-8"
    )
    out = tmp_path / "out"
    made = run_memspec("site", str(out), "--reports", str(given), cwd=tmp_path)
    assert made.returncode == 0, made.stderr[-3000:]
    everything, console = _load(browser, out / "hermes.html")
    assert console == []
    (body,) = everything.find("body")
    assert int(body["data-prose-shown"]) > 0
    filtered, console = _load(browser, out / "hermes.html", "?failing=1")
    assert console == []
    (body,) = filtered.find("body")
    assert body["data-requirements-shown"] == "1"
    assert body["data-prose-shown"] == "0"


def test_the_focus_view_of_a_case_shows_its_requirement_text(
    reports: Path, site: Path, browser: Browser
) -> None:
    requirements = {r.id: r for r in load_requirements()}
    case = next(c for c in load_cases() if c.id == "memdir/type/known-user")
    rid = case.requirements[0]
    page = site / page_name(requirements[rid].page)
    dom, console = _load(browser, page, f"?focus={case.id}")
    assert console == []
    item = _by_id(dom)[rid]
    hidden = [n for n in item.children if isinstance(n, Node) and "hidden" in n.attrs]
    assert not hidden, [n.tag for n in hidden]
    assert rid in item.text and _by_id(dom)[case.id].attrs.get("open") is not None


def test_characters_beyond_ascii_show_their_code_points_and_json_texts_are_decoded(
    site: Path, doms: dict[Path, _Dom]
) -> None:
    case = "hermes/scan/add-fullwidth-folded"
    shown = _by_id(doms[site / "hermes.html"])[case]
    marks = {n.text: n.attrs.get("title", "") for n in shown.all("span") if n.has_class("cp")}
    assert marks["\uff49"] == "U+FF49 FULLWIDTH LATIN SMALL LETTER I", marks
    # The expected reply {"text": "<JSON>"} is shown as the JSON it holds, escaped once.
    notes = [n.text for n in shown.all("div") if n.has_class("decoded")]
    assert notes == ["/text: a JSON text, shown decoded"]
    (expected,) = [p for p in shown.all("pre") if p.has_class("json") and "Blocked" in p.text]
    assert '"success": false' in expected.text and '\\"' not in expected.text
