"""The conformance matrix page, checked in a real browser (headless Chromium).

The page is made from real reports: memref in process and ``memdir_fakes.ThreeOps``, a
port that implements three memdir ops (one wrongly) and claims only memdir, plus a third
report carrying hostile text. Chromium renders it from a file (``--dump-dom`` reads the
DOM after the page's script ran, ``--screenshot`` keeps a picture); the page's
``?open=AREA&case=ID`` parameters open an area and a case through the same function a
click calls. Without Chromium the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from conftest import HERE

from memspec.report import read_report
from memspec.requirements import load_requirements

SELECTION = (
    "--profile",
    "memdir",
    "--profile",
    "turnlog",
    "-k",
    "memdir/type or memdir/age or turnlog/filename",
)
HOSTILE = (
    '</script><script>document.body.setAttribute("data-pwned", "1")</script>'
    "<img src=x onerror=\"document.body.setAttribute('data-pwned', '2')\">"
    ' & \u2028 \U0001f600 "quoted" <b>bold</b>'
)
TYPE_CASE = "memdir/type/known-user"
DIVERGENT_CASE = "memdir/age/365-days-minus-1ns-age-days"


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    message = (
        "headless Chromium is needed for the matrix page tests and is not installed "
        "(apt-get install -y chromium)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _artifacts() -> Path:
    base = Path(os.environ.get("MEMSPEC_ARTIFACTS") or HERE / "artifacts")
    base.mkdir(parents=True, exist_ok=True)
    return base


def _browser(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    command = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=120,
        check=False,
    )


def dump_dom(page: Path, tmp: Path, query: str = "") -> str:
    result = _browser("--dump-dom", page.as_uri() + query, profile=tmp / "chromium")
    assert result.returncode == 0 and "data-ready" in result.stdout, result.stderr[-2000:]
    return result.stdout


def screenshot(page: Path, tmp: Path, target: Path, query: str = "") -> None:
    result = _browser(
        f"--screenshot={target}",
        "--window-size=1400,900",
        "--hide-scrollbars",
        page.as_uri() + query,
        profile=tmp / "chromium",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class _Dom(HTMLParser):
    """The elements of a dumped DOM, each as (tag, attributes), and its text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def find(self, tag: str, **wanted: str) -> list[dict[str, str]]:
        return [
            a
            for t, a in self.elements
            if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in wanted.items())
        ]


def _cells(dom: _Dom) -> dict[tuple[str, int], tuple[int, int]]:
    return {
        (a["data-row"], int(a["data-impl"])): (int(a["data-passed"]), int(a["data-total"]))
        for a in dom.find("td")
        if "data-row" in a
    }


def _expected_cells(reports: list[Path]) -> dict[tuple[str, int], tuple[int, int]]:
    """Pass counts per (row, implementation), computed from the reports themselves."""
    tally: dict[tuple[str, int], Counter[str]] = {}
    all_ids: set[str] = set()
    for column, report in enumerate(reports):
        for record in read_report(report):
            if record["type"] != "case":
                continue
            all_ids.add(record["id"])
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
    """memref, ThreeOps (both real runs) and a copy of ThreeOps's report with hostile text."""
    _chromium()
    where = tmp_path_factory.mktemp("matrix-reports")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("MEMSPEC_FIXTURES", None)
    env.pop("MEMSPEC_SPEC", None)
    made = []
    for name, adapter in (("memref", "reference"), ("three-ops", "python:memdir_fakes:ThreeOps")):
        report = where / f"{name}.jsonl"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "memspec",
                "run",
                "--adapter",
                adapter,
                *SELECTION,
                "--report",
                str(report),
            ],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert result.returncode in (0, 1), result.stderr[-2000:]
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
    evil.write_text(
        "".join(json.dumps(hostile(line)) + "\n" for line in read_report(made[1])), encoding="utf-8"
    )
    return [*made, evil]


@pytest.fixture(scope="module")
def page(reports: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("matrix")
    result = subprocess.run(
        [sys.executable, "-m", "memspec", "matrix", *map(str, reports), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return out / "index.html"


def test_the_page_is_self_contained(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text.replace("http://www.w3.org", "")
    assert "https://" not in text
    assert "<link" not in text and "src=" not in text.split('id="memspec-data"')[0]
    data = text.split('id="memspec-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data  # the embedded JSON cannot close its element


def test_cell_counts_in_the_browser_equal_the_reports(
    reports: list[Path], page: Path, tmp_path: Path
) -> None:
    dom = _Dom(dump_dom(page, tmp_path))
    (body,) = dom.find("body")
    assert body["data-ready"] == "1" and "data-pwned" not in body
    (matrix,) = dom.find("table", id="matrix")
    assert matrix["data-cols"] == "3"
    expected = _expected_cells(reports)
    assert _cells(dom) == expected
    assert expected[("memdir/type", 0)] == (27, 27)
    assert expected[("memdir/type", 1)] == (21, 27)
    assert expected[("turnlog", 1)] == (0, 0)  # not claimed
    assert matrix["data-rows"] == str(len({row for row, _ in expected}))
    headers = [a["title"] for a in dom.find("th") if "data-impl" in a]
    assert headers[0].startswith("memref ") and headers[1].startswith("three-ops 0.0.1")
    assert headers[2].startswith("<i>evil</i> 1&2")  # shown as text
    assert dom.find("tr", data_case=TYPE_CASE) == []  # no case rows until an area opens


def test_opening_an_area_and_a_case_shows_requirement_args_expectation_and_answers(
    reports: list[Path], page: Path, tmp_path: Path
) -> None:
    query = f"?open={quote('memdir/type')}&case={quote(TYPE_CASE)}"
    html = dump_dom(page, tmp_path, query)
    dom = _Dom(html)
    (panel,) = dom.find("section", id="area")
    area_ids = {
        r["id"]
        for path in reports
        for r in read_report(path)
        if r["type"] == "case" and r["id"].startswith("memdir/type/")
    }
    assert panel["data-area"] == "memdir/type" and panel["data-cases"] == str(len(area_ids))
    assert {a["data-case"] for a in dom.find("tr") if "data-case" in a} == area_ids
    assert len(dom.find("div", data_case_detail=TYPE_CASE)) == 1
    text = "".join(dom.text)
    requirement = next(r for r in load_requirements() if r.id == "MEMDIR-TYPE-001")
    assert requirement.text in text
    assert '"raw": "user"' in text  # the args
    assert '"type": "user"' in text  # the expected result
    three_ops = next(r["message"] for r in read_report(reports[1]) if r.get("id") == TYPE_CASE)
    assert three_ops.splitlines()[0] in text  # each implementation's answer
    assert HOSTILE in text  # hostile text arrives as text ...
    assert "data-pwned" not in dom.find("body")[0]  # ... and runs nothing
    assert not [t for t, _ in dom.elements if t == "img"]
    assert len([t for t, _ in dom.elements if t == "script"]) == 2


def test_a_case_with_a_recorded_divergence_shows_it(page: Path, tmp_path: Path) -> None:
    from memspec.cases import load_cases

    case = next(c for c in load_cases(profiles=["memdir"]) if c.id == DIVERGENT_CASE)
    assert case.divergence
    dom = _Dom(dump_dom(page, tmp_path, f"?open=memdir/age&case={quote(DIVERGENT_CASE)}"))
    assert case.divergence in "".join(dom.text)
    assert dom.find("p", **{"class": "div"})


def test_screenshot_of_the_page_with_a_case_open(page: Path, tmp_path: Path) -> None:
    target = _artifacts() / "matrix.png"
    screenshot(page, tmp_path, target, f"?open=memdir/type&case={quote(TYPE_CASE)}")
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
        lines = [header]
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
        path = where / f"port{column}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        paths.append(path)
    return paths


def test_twenty_implementations_and_three_thousand_cases(memspec_cli: Any, tmp_path: Path) -> None:
    _chromium()
    reports = _synthetic_reports(tmp_path, 20, 3000)
    out = tmp_path / "big"
    result = memspec_cli("matrix", *map(str, reports), "-o", str(out))
    assert result.returncode == 0, result.stderr
    page = out / "index.html"
    started = time.monotonic()
    dom = _Dom(dump_dom(page, tmp_path, "?open=memdir/area-0"))
    assert time.monotonic() - started < 60
    assert _cells(dom) == _expected_cells(reports)
    opened = {a["data-case"] for a in dom.find("tr") if "data-case" in a}
    assert opened and all(case.startswith("memdir/area-0/") for case in opened)
    screenshot(page, tmp_path, _artifacts() / "matrix-20.png", "?open=memdir/area-0")


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
