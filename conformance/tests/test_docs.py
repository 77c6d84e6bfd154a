"""Every case id and requirement id the documentation quotes exists, and a quoted
requirement says what the spec says."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from memspec.corpus.cases import load_cases
from memspec.corpus.registry import registered_cases
from memspec.corpus.requirements import load_requirements

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "spec").glob("*.md"))]
_PROFILES = sorted(p.name for p in (REPO / "fixtures").iterdir() if not p.name.startswith("_"))
CASE_ID = re.compile(
    rf"\b((?:{'|'.join(_PROFILES)})/[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*"
    r"(?:/crash-points)?)\b"
)
REQUIREMENT_ID = re.compile(r"\b([A-Z]+-[A-Z]+-\d{3})\b")
QUOTED_ITEM = re.compile(
    r"^- \*\*([A-Z]+-[A-Z]+-\d{3})\*\* \((?:MUST|SHOULD|MAY)[A-Z ]*\): "
    r"(.*?)(?: \.\.\.)?$"
)


@functools.cache
def _known_cases() -> frozenset[str]:
    cases = load_cases()
    known = {case.id for case in cases} | {entry.id for entry in registered_cases()}
    known |= {
        f"{case.id}/crash-points" for case in cases if any(step.crash_points for step in case.steps)
    }
    return frozenset(known)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_quoted_ids_exist(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    cases = _known_cases()
    requirements = _requirement_ids()
    missing_cases = sorted(set(CASE_ID.findall(text)) - cases)
    missing_requirements = sorted(
        set(REQUIREMENT_ID.findall(text)) - requirements - {"PROFILE-AREA-NNN"}
    )
    assert missing_cases == [] and missing_requirements == []


@functools.cache
def _requirement_ids() -> frozenset[str]:
    return frozenset(r.id for r in load_requirements())


def test_quoted_requirements_match_the_spec() -> None:
    by_id = {r.id: r for r in load_requirements()}
    defining = {r.page for r in by_id.values()}
    for page in PAGES:
        if page.parent.name == "spec" and page.name in defining:
            continue
        for line in page.read_text(encoding="utf-8").splitlines():
            match = QUOTED_ITEM.match(line.strip())
            if match and match.group(1) in by_id:
                assert by_id[match.group(1)].text.startswith(match.group(2)), line


def test_the_checks_see_a_wrong_quote() -> None:
    assert CASE_ID.findall("see `memdir/frontmatter/crlf-values-are-clean`") == [
        "memdir/frontmatter/crlf-values-are-clean"
    ]
    assert "memdir/frontmatter/crlf-values-are-clean" not in _known_cases()


@pytest.mark.parametrize("profile", _PROFILES)
def test_the_spec_readme_names_every_profile(profile: str) -> None:
    """spec/README.md is copied into every adapter skeleton and into the site: each profile
    is a row of its table of pages and a word of its list of profiles."""
    readme = (REPO / "spec" / "README.md").read_text(encoding="utf-8")
    assert f"| [{profile}.md]({profile}.md) | profile `{profile}`:" in readme
    listed = re.search(r"A profile is the unit an implementation claims: ([^.]*)\.", readme)
    assert listed is not None
    assert f"`{profile}`" in listed.group(1)
