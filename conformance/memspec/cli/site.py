"""``memspec site OUT``: the spec as a static site, each requirement with its cases and,
given reports, every implementation's result for them.

One HTML page per spec page (``spec/README.md`` is ``conventions.html``), a home page,
the fixture files under ``fixtures/``, a search index (``search.js``) and, with reports,
the conformance matrix (``matrix/index.html``) linking back into the pages. The pages
need no server and no network: a stylesheet and two scripts beside them, no external
asset. Every string from a fixture, a report or an implementation's name is escaped.
Requirements, cases and properties come from the same views as ``memspec explain``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import memspec
from memspec.cli.explain import PropertyView, RequirementView, property_view, requirement_views
from memspec.cli.markdown import Hooks, render_markdown
from memspec.corpus.cases import Case, Expectation, Step, crash_points_id, load_cases
from memspec.corpus.compare import is_text_pattern, text_bytes
from memspec.corpus.data import fixtures_dir, spec_dir
from memspec.corpus.divergences import PAGE as DIVERGENCES
from memspec.corpus.divergences import entries_named, read_divergence_page
from memspec.corpus.registry import RegisteredCase, registered_cases
from memspec.exceptions import UsageError
from memspec.judge.messages import json_text
from memspec.reports.matrix import column_labels, shown_text, write_matrix
from memspec.reports.merge import RunReport, load_run

__all__ = ["SiteSummary", "build_site", "page_name"]

_TEMPLATES = Path(__file__).resolve().parent
_FOLD = 4
"""A requirement with more cases than this shows them folded."""
_COPY_LIMIT = 64 * 1024
"""A case whose JSON is longer is not embedded for copying: its fixture file is linked."""
_HEX_LIMIT = 256
_MESSAGE_LIMIT = 3000
_FAILING = frozenset({"failed", "error", "xfailed"})
_SYMBOL = {
    "passed": "✓",
    "xpassed": "✓",
    "failed": "✗",
    "error": "✗",
    "xfailed": "✗",
    "skipped": "–",
}
_CLASS = {
    "passed": "p",
    "xpassed": "p",
    "failed": "f",
    "error": "f",
    "xfailed": "f",
    "skipped": "s",
}
_SAYS = {
    "passed": "passed",
    "xpassed": "passed (listed as an expected failure)",
    "failed": "failed",
    "error": "failed with an error",
    "xfailed": "failed (an expected failure)",
    "skipped": "skipped",
}


def page_name(markdown: str) -> str:
    """The site's file for a spec page: ``memdir.md`` is ``memdir.html``."""
    return "conventions.html" if markdown == "README.md" else markdown[: -len(".md")] + ".html"


def _e(text: object) -> str:
    """Escaped for HTML; a lone surrogate (fixtures hold some on purpose) as ``\\udXXX``."""
    shown = str(text)
    if not shown.isascii():
        shown = shown.encode("utf-8", "backslashreplace").decode("utf-8")
    return html.escape(shown, quote=True)


@dataclass
class SiteSummary:
    out: Path
    pages: list[str]
    requirements: int
    cases: int
    implementations: int
    seconds: float = 0.0
    size: int = 0


@dataclass
class _Implementation:
    label: str
    run: RunReport
    records: dict[str, dict[str, Any]]


@dataclass
class _Site:
    cases: dict[str, Case]
    registered: dict[str, RegisteredCase]
    views: dict[str, RequirementView]
    home: dict[str, str]
    """Case id to the requirement whose item shows it in full."""
    requirement_page: dict[str, str]
    divergences: Any
    implementations: list[_Implementation]
    search: list[list[str]] = field(default_factory=list)

    def case_href(self, case_id: str, page: str = "") -> str | None:
        base = case_id.removesuffix("/crash-points")
        requirement = self.home.get(base)
        if requirement is None:
            return None
        target = self.requirement_page[requirement]
        return ("" if target == page else target) + "#" + case_id

    def requirement_href(self, requirement_id: str, page: str = "") -> str | None:
        target = self.requirement_page.get(requirement_id)
        if target is None:
            return None
        return ("" if target == page else target) + "#" + requirement_id

    def entries_of(self, case_id: str) -> list[str]:
        """The divergence entries a case names or that list it."""
        base = case_id.removesuffix("/crash-points")
        names: set[str] = set(self.divergences.listing(case_id) | self.divergences.listing(base))
        case = self.cases.get(base)
        if case is not None and case.divergence:
            names.update(entries_named(case.divergence, case.profile)[0])
        entry = self.registered.get(case_id)
        if entry is not None:
            names.update(entry.divergences)
        return sorted(name for name in names if name in self.divergences.entries)


def _divergence_anchor(name: str) -> str:
    return "div-" + name.replace("#", "-")


def _divergence_link(name: str) -> str:
    href = f"{page_name(DIVERGENCES)}#{_divergence_anchor(name)}"
    return f'<a class="divref" href="{href}">{_e(name)}</a>'


# Values, trees and expectations of a case.


_NOT_ASCII = re.compile("([^\x00-\x7f])")


def _marked(text: str) -> str:
    """``text`` escaped for HTML, each character that is not ASCII in a span whose title
    names its code point, so that one a host has no font for (a box) can be told on hover."""
    if text.isascii():
        return _e(text)
    return "".join(
        _e(part)
        if index % 2 == 0
        else f'<span class="cp" title="{_code_point(part)}">{_e(part)}</span>'
        for index, part in enumerate(_NOT_ASCII.split(text))
    )


def _code_point(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, '')}".strip()


def _text(text: str) -> str:
    if text == "":
        return '<span class="dim">(empty text)</span>'
    parts = shown_text(text)
    inner = "".join(
        _marked(part) if index % 2 == 0 else f'<span class="esc">{_e(part)}</span>'
        for index, part in enumerate(parts)
    )
    return f'<pre class="text">{inner}</pre>'


def _hex(data: bytes) -> str:
    lines = []
    for offset in range(0, min(len(data), _HEX_LIMIT), 16):
        chunk = data[offset : offset + 16]
        lines.append(f"{offset:04x}  " + " ".join(f"{byte:02x}" for byte in chunk))
    more = len(data) - _HEX_LIMIT
    tail = f"\n… {more} more bytes" if more > 0 else ""
    return (
        f'<div class="dim">{len(data)} bytes, in hex</div>'
        f'<pre class="hex">{_e(chr(10).join(lines))}{tail}</pre>'
    )


def _value(value: Any) -> str:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict) and set(value) == {"base64"}:
        data = text_bytes(value)
        if data is not None:
            return _hex(data)
    decoded: list[str] = []
    shown = json.dumps(_decoded(value, "", decoded), indent=1, ensure_ascii=False)
    if len(shown) > _MESSAGE_LIMIT:
        shown = shown[:_MESSAGE_LIMIT] + f"… ({len(shown) - _MESSAGE_LIMIT} more characters)"
    note = (
        f'<div class="dim decoded">{_e(", ".join(decoded))}: a JSON text, shown decoded</div>'
        if decoded
        else ""
    )
    return f'{note}<pre class="json">{_marked(shown)}</pre>'


def _decoded(value: Any, where: str, decoded: list[str]) -> Any:
    """``value`` with each text that holds a JSON object or array replaced by that JSON,
    so that it is not shown escaped twice; ``decoded`` gets the pointer of each."""
    inner = json_text(value)
    if inner is not None:
        decoded.append(where or "/")
        return inner
    if isinstance(value, dict) and not is_text_pattern(value):
        return {key: _decoded(item, f"{where}/{key}", decoded) for key, item in value.items()}
    if isinstance(value, list):
        return [_decoded(item, f"{where}/{i}", decoded) for i, item in enumerate(value)]
    return value


def _fields(rows: Iterable[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{_e(name)}</th><td>{shown}</td></tr>" for name, shown in rows)
    return f'<table class="fields">{body}</table>' if body else ""


def _tree(tree: Mapping[str, Any], title: str) -> str:
    if not tree:
        return f'<div class="h">{_e(title)}</div><div class="dim">empty</div>'
    rows = []
    for path, spec in sorted(tree.items()):
        facts = []
        content = ""
        if spec.get("dir"):
            what = "directory"
        elif "symlink" in spec:
            what = "symlink to " + str(spec["symlink"])
        elif spec.get("fifo"):
            what = "fifo"
        elif spec.get("socket"):
            what = "socket"
        elif "lines_any_order" in spec:
            what = "file, these lines in any order"
            content = _text("".join(f"{line}\n" for line in spec["lines_any_order"]))
        elif "entries_any_order" in spec:
            what = "file, these entries in any order"
            content = _text(str(spec["separator"]).join(spec["entries_any_order"]))
        elif "text_pattern" in spec:
            what = "file matching the pattern"
            content = _text(str(spec["text_pattern"]))
        elif spec.get("file"):
            what = "file, any content"
        elif "base64" in spec:
            what = "file"
            content = _value({"base64": spec["base64"]})
        else:
            what = "file"
            content = _text(str(spec.get("text", "")))
        if "mode" in spec:
            mode = spec["mode"]
            facts.append(f"mode {mode if isinstance(mode, str) else format(mode, '#o')}")
        for key in ("mtime", "mtime_ns", "size", "fill"):
            if key in spec:
                facts.append(f"{key} {spec[key]}")
        described = what + (f" ({', '.join(facts)})" if facts else "")
        rows.append(
            f'<tr data-tree-entry="{_e(path)}"><th><code>{_e(path)}</code></th>'
            f"<td><div>{_e(described)}</div>{content}</td></tr>"
        )
    return f'<div class="h">{_e(title)}</div><table class="tree">{"".join(rows)}</table>'


def _expectation(expect: Expectation) -> str:
    rows: list[tuple[str, str]] = []
    if expect.has_result:
        rows.append(("result", _value(expect.result)))
    if expect.error_kind is not None:
        rows.append(("error", f"<code>{_e(expect.error_kind)}</code>"))
        if expect.error_message is not None:
            rows.append(("error message", _text(expect.error_message)))
    if expect.results is not None:
        rows.append(("results (any order)", "".join(_value(item) for item in expect.results)))
    parts = [_fields(rows)]
    if expect.any_of is not None:
        choices = "".join(f"<li>{_expectation(choice)}</li>" for choice in expect.any_of)
        parts.append(f'<div class="h">each reply, one of</div><ol>{choices}</ol>')
    if expect.tree is not None:
        parts.append(_tree(expect.tree, "tree expected after the step"))
    return "".join(parts)


def _how(step: Step) -> str:
    notes = []
    if step.concurrent:
        notes.append(
            f"sent from {step.concurrent.workers} connections at once, "
            f"{step.concurrent.repeat} time(s) each"
        )
    if step.race:
        notes.append(
            f"sent {step.race.repeat} times while {step.race.swap} is swapped for a link to "
            f"{step.race.outside}, over and over"
        )
    if step.crash_points:
        notes.append("then every filesystem mutation of the step fails in turn (crash points)")
    if step.hold_lock:
        notes.append("while another process holds the lock")
    if step.readers:
        notes.append("while readers read the tree")
    if step.capture:
        notes.append("captures " + ", ".join(f"{k} = {v}" for k, v in step.capture.items()))
    return "".join(f'<div class="note">{_e(note)}</div>' for note in notes)


def _case_body(site: _Site, case: Case, page: str, rid: str) -> str:
    parts = []
    facts: list[tuple[str, str]] = []
    others = [r for r in case.requirements if r != rid]
    if others:
        facts.append(("also covers", _requirement_links(site, others, page)))
    if case.requires:
        facts.append(("needs", _e(", ".join(case.requires))))
    if case.host:
        facts.append(("host", _e(", ".join(case.host))))
    if case.source:
        facts.append(("source", _e(case.source)))
    if case.divergence:
        facts.append(("divergence", _e(case.divergence)))
    entries = site.entries_of(case.id)
    if entries:
        facts.append(("divergence rows", ", ".join(_divergence_link(name) for name in entries)))
    if case.setup:
        facts.append(("set-up", _value(list(case.setup))))
    if case.tree_ignore:
        facts.append(("ignored in trees", _e(", ".join(case.tree_ignore))))
    parts.append(_fields(facts))
    parts.append(_tree(case.tree, "tree before"))
    for number, step in enumerate(case.steps, 1):
        title = f"step {number}: " if len(case.steps) > 1 else ""
        parts.append(
            f'<div class="step"><div class="op">{_e(title)}<code>{_e(step.op)}</code></div>'
            f"{_how(step)}{_fields((name, _value(v)) for name, v in step.args.items())}"
            f'<div class="h">expected</div>{_expectation(step.expect)}</div>'
        )
    parts.append(_case_tools(case))
    return "".join(parts)


def _case_tools(case: Case) -> str:
    assert case.path is not None
    relative = case.path.resolve().relative_to(fixtures_dir().resolve()).as_posix()
    link = f'<a href="fixtures/{_e(relative)}">fixture file</a>'
    text = case.path.read_text(encoding="utf-8")
    if len(text) > _COPY_LIMIT:
        return f'<div class="tools">{link} <span class="dim">({len(text)} bytes)</span></div>'
    compact = json.dumps(json.loads(text), ensure_ascii=True, separators=(",", ":"))
    safe = compact.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (
        f'<div class="tools">{link} <button type="button" class="copy">Copy as JSON</button>'
        f'<script type="application/json" class="case-json">{safe}</script></div>'
    )


def _property_body(site: _Site, view: PropertyView, page: str, rid: str) -> str:
    entry = view.entry
    rows: list[tuple[str, str]] = [("kind", _e(entry.kind + " test of the suite"))]
    if not entry.counts_as_coverage:
        rows.append(("coverage", "does not count as coverage (regression check)"))
    others = [r for r in entry.requirements if r != rid]
    if others:
        rows.append(("also covers", _requirement_links(site, others, page)))
    if view.checks:
        rows.append(("checks", f'<pre class="prose">{_e(chr(10).join(view.checks))}</pre>'))
    if view.inputs:
        items = "".join(
            f"<li><code>{_e(line)}</code>" + (f" — {_e(summary)}" if summary else "") + "</li>"
            for line, summary in view.inputs
        )
        rows.append(("inputs drawn from", f"<ul>{items}</ul>"))
    reach = "".join(
        f"<li>{_divergence_link(name)}: {_e(row or '(not on spec/divergences.md)')}</li>"
        for name, row in view.divergences
    )
    rows.append(("divergences it can reach", f"<ul>{reach}</ul>" if reach else "none"))
    return _fields(rows)


def _requirement_links(site: _Site, ids: Sequence[str], page: str) -> str:
    links = []
    for rid in ids:
        href = site.requirement_href(rid, page)
        links.append(f'<a href="{_e(href)}">{_e(rid)}</a>' if href else _e(rid))
    return ", ".join(links)


# Results.


def _chips(site: _Site, case_id: str) -> str:
    chips = []
    for number, implementation in enumerate(site.implementations):
        record = implementation.records.get(case_id)
        if record is None:
            continue
        outcome = str(record.get("outcome", ""))
        chips.append(
            f'<span class="chip {_CLASS.get(outcome, "s")}" data-impl="{number}" '
            f'title="{_e(implementation.label)}: {_e(_SAYS.get(outcome, outcome))}">'
            f"{_SYMBOL.get(outcome, '?')}</span>"
        )
    return f'<span class="chips">{"".join(chips)}</span>' if chips else ""


def _results_table(site: _Site, case_id: str) -> str:
    rows = []
    for number, implementation in enumerate(site.implementations):
        record = implementation.records.get(case_id)
        if record is None:
            continue
        outcome = str(record.get("outcome", ""))
        message = str(record.get("message", ""))
        if len(message) > _MESSAGE_LIMIT:
            message = message[:_MESSAGE_LIMIT] + f"… ({len(message) - _MESSAGE_LIMIT} more)"
        detail = ""
        if outcome in _FAILING:
            entries = site.entries_of(case_id)
            rows_html = ", ".join(_divergence_link(name) for name in entries)
            detail = (
                f'<div class="divs">divergence row: {rows_html}</div>'
                if entries
                else '<div class="divs dim">no divergence row lists this case</div>'
            )
            if message:
                detail += f'<pre class="said">{_e(message)}</pre>'
        elif outcome == "skipped":
            detail = f'<div class="said">{_e(message or "no reason given")}</div>'
        rows.append(
            f'<tr data-impl="{number}" data-outcome="{_e(outcome)}">'
            f"<th>{_e(implementation.label)}</th>"
            f'<td><span class="chip {_CLASS.get(outcome, "s")}">{_SYMBOL.get(outcome, "?")}</span> '
            f"{_e(_SAYS.get(outcome, outcome))}</td><td>{detail}</td></tr>"
        )
    if not rows:
        return ""
    return f'<div class="h">results</div><table class="results">{"".join(rows)}</table>'


def _requirement_results(site: _Site, rid: str) -> tuple[str, bool]:
    cells = []
    failing = False
    for number, implementation in enumerate(site.implementations):
        tally: dict[str, int] = {}
        for record in implementation.records.values():
            if rid in record.get("requirements", ()):
                kind = _CLASS.get(str(record.get("outcome", "")), "s")
                tally[kind] = tally.get(kind, 0) + 1
        if not tally:
            continue
        failing = failing or bool(tally.get("f"))
        worst = "f" if tally.get("f") else "p" if tally.get("p") else "s"
        counts = " ".join(
            f"{symbol} {tally[kind]}"
            for kind, symbol in (("p", "✓"), ("f", "✗"), ("s", "–"))
            if tally.get(kind)
        )
        said = ", ".join(
            f"{tally[kind]} {name}"
            for kind, name in (("p", "passed"), ("f", "failed"), ("s", "skipped"))
            if tally.get(kind)
        )
        cells.append(
            f'<span class="tally {worst}" data-impl="{number}" title="{_e(implementation.label)}: '
            f'{_e(said)}"><b>{_e(implementation.label)}</b> {_e(counts)}</span>'
        )
    if not cells:
        return "", False
    return f'<div class="tallies">{"".join(cells)}</div>', failing


# Pages.


def _requirement_block(site: _Site, rid: str, page: str) -> str:
    view = site.views.get(rid)
    if view is None:
        return ""
    tallies, failing = _requirement_results(site, rid)
    items = []
    listed = [case.id for case in view.cases] + list(view.regression_only)
    for case_id in listed:
        items.append(_case_item(site, case_id, rid, page))
    count = len(listed)
    noun = "case" if count == 1 else "cases"
    summary = _e(f"{count} {noun}" if count else "no case")
    failing_cases = sum(1 for case_id in listed if _fails_somewhere(site, case_id))
    if failing_cases:
        summary += f', <span class="fold-fails">{failing_cases} failing</span>'
    inner = "".join(items)
    opened = " open" if count <= _FOLD else ""
    block = (
        f'<details class="cases"{opened}><summary>{summary}</summary>{inner}</details>'
        if count
        else f'<div class="cases dim">{summary}</div>'
    )
    marker = ' data-fails="1"' if failing else ""
    return f'<div class="req-extra"{marker}>{tallies}{block}</div>'


def _fails_somewhere(site: _Site, case_id: str) -> bool:
    """Whether a case (or its crash points) failed for some implementation of the reports."""
    ids = (case_id, crash_points_id(case_id))
    return any(
        str(implementation.records.get(one, {}).get("outcome", "")) in _FAILING
        for implementation in site.implementations
        for one in ids
    )


def _case_item(site: _Site, case_id: str, rid: str, page: str) -> str:
    case = site.cases.get(case_id)
    entry = site.registered.get(case_id)
    description = case.description if case else entry.description if entry else ""
    kind = "fixture" if case else entry.kind if entry else "case"
    if site.home.get(case_id) != rid:
        href = site.case_href(case_id, page) or "#"
        return (
            f'<div class="case-ref"><a class="cid" href="{_e(href)}">{_e(case_id)}</a> '
            f"{_chips(site, case_id)} <span>{_e(description)}</span></div>"
        )
    if case is not None:
        body = _case_body(site, case, page, rid)
    elif entry is not None:
        body = _property_body(site, property_view(entry), page, rid)
    else:
        body = ""
    body += _results_table(site, case_id)
    if case is not None and any(step.crash_points for step in case.steps):
        crash = crash_points_id(case_id)
        body += (
            f'<div class="crash" id="{_e(crash)}"><div class="h">crash points: '
            f"<code>{_e(crash)}</code> {_chips(site, crash)}</div>"
            f"{_results_table(site, crash)}</div>"
        )
    badge = "" if kind == "fixture" else f'<span class="kind">{_e(kind)}</span> '
    return (
        f'<details class="case" id="{_e(case_id)}"><summary><code class="cid">{_e(case_id)}</code> '
        f"{badge}{_chips(site, case_id)} <span>{_e(description)}</span></summary>"
        f'<div class="case-body">{body}</div></details>'
    )


_RID = re.compile(r"\b[A-Z]+-[A-Z]+-\d{3}\b")
_CID = re.compile(r"\b[a-z0-9]+(?:/[a-z0-9][a-z0-9-]*){2,}\b")


def _hooks(site: _Site, markdown: str) -> Hooks:
    page = page_name(markdown)
    pages = {path.name for path in spec_dir().glob("*.md")}

    def link(target: str) -> str | None:
        base, _, fragment = target.partition("#")
        if not base:
            return target
        if base in pages:
            return page_name(base) + (f"#{fragment}" if fragment else "")
        return None  # a file outside the spec: its name stays, without a dead link

    def words(text: str) -> str:
        out = []
        last = 0
        for match in re.finditer(f"{_RID.pattern}|{_CID.pattern}", text):
            token = match.group(0)
            href = (
                site.requirement_href(token, page)
                if _RID.fullmatch(token)
                else site.case_href(token, page)
            )
            if href is None:
                continue
            out.append(html.escape(text[last : match.start()]))
            out.append(f'<a href="{_e(href)}">{_e(token)}</a>')
            last = match.end()
        out.append(html.escape(text[last:]))
        return "".join(out)

    def code(text: str) -> str | None:
        if _CID.fullmatch(text):
            return site.case_href(text, page)
        if _RID.fullmatch(text):
            return site.requirement_href(text, page)
        return None

    hooks = Hooks(
        link=link,
        words=words,
        code=code,
        requirement=lambda rid, level: _requirement_block(site, rid, page),
    )
    if markdown == DIVERGENCES:
        hooks.heading_id, hooks.row_id = _divergence_anchors(site)
    return hooks


def _divergence_anchors(site: _Site) -> tuple[Any, Any]:
    """Ids for the sections and table rows of spec/divergences.md, by entry name."""
    rows: dict[str, list[str]] = {}
    for name in site.divergences.entries:
        profile, _, row = name.partition("#")
        rows.setdefault(profile, []).append(row)
    seen: dict[str, int] = {}
    profile_of = re.compile(r"^`([a-z][a-z0-9]*)`")

    def heading_id(level: int, text: str, section: str) -> str | None:
        found = profile_of.match(section)
        if level != 3 or not found or found.group(1) not in rows:
            return None
        profile = found.group(1)
        names = rows[profile]
        index = seen.get(profile, 0)
        seen[profile] = index + 1
        if all(row.isdigit() for row in names):
            return _divergence_anchor(f"{profile}#{names[index]}") if index < len(names) else None
        leading = re.match(r"^`([a-z0-9][a-z0-9-]*)`", text)
        if leading and leading.group(1) in names:
            return _divergence_anchor(f"{profile}#{leading.group(1)}")
        return None

    def row_id(section: str, cells: list[str]) -> str | None:
        found = profile_of.match(section)
        if not found or not cells:
            return None
        name = f"{found.group(1)}#{cells[0].strip('`')}"
        if name not in site.divergences.entries:
            return None
        return "row-" + name.replace("#", "-")

    return heading_id, row_id


def _layout(title: str, body: str, nav: str, *, failing_filter: bool, root: str = "") -> str:
    template = (_TEMPLATES / "site.html").read_text(encoding="utf-8")
    toolbar = (
        '<label class="filter"><input type="checkbox" id="only-failing"> only requirements '
        "where an implementation fails</label>"
        if failing_filter
        else ""
    )
    return (
        template.replace("@@TITLE@@", _e(title))
        .replace("@@ROOT@@", root)
        .replace("@@NAV@@", nav)
        .replace("@@TOOLBAR@@", toolbar)
        .replace("@@VERSION@@", _e(memspec.__version__))
        .replace("@@BODY@@", body)
    )


def _nav(pages: Sequence[tuple[str, str]], current: str, matrix: bool) -> str:
    links = [("index.html", "Home"), *pages]
    if matrix:
        links.append(("matrix/index.html", "Matrix"))
    return "".join(
        f'<a href="{_e(href)}"'
        + (' aria-current="page"' if href == current else "")
        + f">{_e(text)}</a>"
        for href, text in links
    )


def _page_title(markdown: str, text: str) -> str:
    first = next((line for line in text.splitlines() if line.startswith("# ")), "")
    return re.sub(r"[`*]", "", first[2:]).strip() or markdown


def _home(site: _Site, pages: Sequence[tuple[str, str, str]], matrix: bool) -> str:
    rows = []
    for href, short, title in pages:
        count = sum(1 for page in site.requirement_page.values() if page == href)
        rows.append(
            f'<tr><td><a href="{_e(href)}">{_e(short)}</a></td><td>{_e(title)}</td>'
            f"<td>{count or ''}</td></tr>"
        )
    parts = [
        "<h1>memspec: the specification, with its cases</h1>",
        "<p>Every requirement of the spec pages, the cases that pin it with their inputs and "
        "expected results, and, where reports were given, how each implementation did.</p>",
        '<div class="table"><table><thead><tr><th>page</th><th>what</th><th>requirements</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>",
        f"<p>{len(site.views)} requirements, {len(site.cases)} fixture cases, "
        f"{len(site.registered)} tests of the suite (properties, snapshots, protocol checks).</p>",
    ]
    if site.implementations:
        items = []
        for number, implementation in enumerate(site.implementations):
            counts = implementation.run.footer.get("counts", {})
            said = ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
            claimed = ", ".join(implementation.run.claimed_profiles())
            statistical = str(implementation.run.settings.get("statistical", "not recorded"))
            items.append(
                f'<tr data-impl="{number}"><th>{_e(implementation.label)}</th>'
                f"<td>{_e(claimed)}</td><td>{_e(said)}</td><td>{_e(statistical)}</td></tr>"
            )
        parts.append(
            '<h2 id="implementations">Implementations</h2>'
            '<div class="table"><table><thead><tr><th>implementation</th><th>profiles</th>'
            "<th>outcomes</th><th>statistical verdicts</th></tr></thead>"
            f"<tbody>{''.join(items)}</tbody></table></div>"
        )
        if matrix:
            parts.append(
                '<p>All results side by side: <a href="matrix/index.html">the matrix</a>.</p>'
            )
    else:
        parts.append(
            '<p class="dim">No reports were given (<code>memspec site OUT --reports DIR</code>): '
            "the pages show the cases without results.</p>"
        )
    return "".join(parts)


def _load_reports(directory: Path | None) -> list[RunReport]:
    if directory is None:
        return []
    if not directory.is_dir():
        raise UsageError(f"--reports {directory}: no such directory")
    paths = sorted(directory.glob("*.jsonl"))
    if not paths:
        raise UsageError(f"--reports {directory}: holds no report (*.jsonl)")
    return [load_run(path) for path in paths]


def _search_entries(site: _Site) -> list[list[str]]:
    entries: list[list[str]] = []
    for rid, view in site.views.items():
        requirement = view.requirement
        entries.append(
            [
                "r",
                rid,
                f"{requirement.level}: {requirement.text}"[:300],
                site.requirement_href(rid) or "",
            ]
        )
    for case_id, case in site.cases.items():
        names = " ".join(sorted({step.op for step in case.steps}))
        href = site.case_href(case_id)
        if href:
            entries.append(["c", case_id, f"{case.description[:200]} [{names}]", href])
    for case_id, registered in site.registered.items():
        href = site.case_href(case_id)
        if href:
            entries.append(
                ["p", case_id, f"{registered.kind}: {registered.description[:200]}", href]
            )
    ops: dict[str, str] = {}
    for case in site.cases.values():
        for step in case.steps:
            ops.setdefault(step.op, site.case_href(case.id) or "")
    for op, href in sorted(ops.items()):
        profile = op.split(".", 1)[0]
        target = f"{profile}.html#operations" if (spec_dir() / f"{profile}.md").is_file() else href
        entries.append(["o", op, f"operation of profile {profile}", target])
    for name in site.divergences.entries:
        entries.append(
            ["d", name, "divergence row", f"divergences.html#{_divergence_anchor(name)}"]
        )
    return entries


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def build_site(out: Path, reports: Path | None = None) -> SiteSummary:
    """Write the site to ``out`` (made or emptied of a previous site first)."""
    started = time.monotonic()
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / ".memspec-site").is_file():
        raise UsageError(f"{out}: not empty and not a memspec site; choose a new directory")
    runs = _load_reports(reports)
    cases = {case.id: case for case in load_cases()}
    registered = {entry.id: entry for entry in registered_cases()}
    views = {view.requirement.id: view for view in requirement_views()}
    requirement_page = {rid: page_name(view.requirement.page) for rid, view in views.items()}
    home: dict[str, str] = {}
    for case_id, requirements in [
        *((case_id, case.requirements) for case_id, case in cases.items()),
        *((case_id, entry.requirements) for case_id, entry in registered.items()),
    ]:
        first = next((r for r in requirements if r in views), None)
        if first:
            home[case_id] = first
    labels = column_labels(runs, ())
    implementations = [
        _Implementation(label, run, {str(r["id"]): r for r in run.records})
        for label, run in zip(labels, runs, strict=True)
    ]
    site = _Site(
        cases,
        registered,
        views,
        home,
        requirement_page,
        read_divergence_page(spec_dir() / DIVERGENCES),
        implementations,
    )
    if out.is_dir():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / ".memspec-site").write_text("a site written by memspec site\n", encoding="utf-8")
    markdowns = sorted(spec_dir().glob("*.md"), key=lambda p: (p.name != "README.md", p.name))
    order = ["README.md", "protocol.md"]
    markdowns.sort(
        key=lambda p: (order.index(p.name) if p.name in order else 2, p.name == DIVERGENCES, p.name)
    )
    texts = {path.name: path.read_text(encoding="utf-8") for path in markdowns}
    pages = [
        (
            page_name(name),
            "conventions" if name == "README.md" else name[:-3],
            _page_title(name, text),
        )
        for name, text in texts.items()
    ]
    matrix = bool(runs)
    nav = [(href, short) for href, short, _ in pages]
    written = []
    for name, text in texts.items():
        href = page_name(name)
        rendered = render_markdown(text, _hooks(site, name))
        body = f'<article id="content">{rendered.html}</article>'
        has_requirements = bool(rendered.requirements)
        _write(
            out / href,
            _layout(
                _page_title(name, text),
                body,
                _nav(nav, href, matrix),
                failing_filter=has_requirements and bool(implementations),
            ),
        )
        written.append(href)
    _write(
        out / "index.html",
        _layout(
            "memspec",
            _home(site, pages, matrix),
            _nav(nav, "index.html", matrix),
            failing_filter=False,
        ),
    )
    written.insert(0, "index.html")
    for asset in ("site.css", "site.js"):
        shutil.copyfile(_TEMPLATES / asset, out / asset)
    index = json.dumps(_search_entries(site), ensure_ascii=True, separators=(",", ":"))
    _write(out / "search.js", f"window.MEMSPEC_SEARCH = {index};\n")
    shutil.copytree(
        fixtures_dir(),
        out / "fixtures",
        ignore=lambda folder, names: [n for n in names if n.startswith((".", "_"))],
    )
    if matrix:
        links = {case_id: "../" + (site.case_href(case_id) or "index.html") for case_id in home}
        for case_id, case in cases.items():
            if any(step.crash_points for step in case.steps):
                links[crash_points_id(case_id)] = "../" + (
                    site.case_href(crash_points_id(case_id)) or ""
                )
        links.update(
            {
                rid: "../" + href
                for rid, href in ((r, site.requirement_href(r)) for r in views)
                if href
            }
        )
        write_matrix(runs, out / "matrix", (), links=links)
        written.append("matrix/index.html")
    size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    return SiteSummary(
        out,
        written,
        len(views),
        len(cases),
        len(implementations),
        time.monotonic() - started,
        size,
    )
