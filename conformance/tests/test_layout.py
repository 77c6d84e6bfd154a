"""The layout mirrors the spec: a fixture area has its spec section, reference module,
generator and tests, all named alike (CONTRIBUTING.md, "Layout")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROFILES = sorted(p.name for p in (REPO / "fixtures").iterdir() if not p.name.startswith("_"))
AREAS = [
    (profile, area.name)
    for profile in PROFILES
    for area in sorted((REPO / "fixtures" / profile).iterdir())
    if area.is_dir() and not area.name.startswith("_")
]

# Areas whose cases are answered by another area's module, with the reason.
NO_OWN_MODULE = {
    ("memorytool", "drift"): "cases of other ports' drift, answered by the actions and soul "
    "modules",
}


def _sections(profile: str) -> set[str]:
    text = (REPO / "spec" / f"{profile}.md").read_text(encoding="utf-8")
    return {m.lower() for m in re.findall(r"^## (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize(("profile", "area"), AREAS, ids=[f"{p}/{a}" for p, a in AREAS])
def test_an_area_has_its_four_hops(profile: str, area: str) -> None:
    name = area.replace("-", "_")
    missing = []
    if (profile, area) not in NO_OWN_MODULE and not (
        REPO / "reference" / "memref" / profile / f"_{name}.py"
    ).is_file():
        missing.append(f"reference/memref/{profile}/_{name}.py")
    if not (REPO / "tools" / "fixtures" / profile / f"{name}.py").is_file():
        missing.append(f"tools/fixtures/{profile}/{name}.py")
    if not (REPO / "reference" / "tests" / profile / f"test_{name}.py").is_file():
        missing.append(f"reference/tests/{profile}/test_{name}.py")
    if area.replace("-", " ") not in _sections(profile):
        missing.append(f"spec/{profile}.md section '## {area.replace('-', ' ').capitalize()}'")
    assert missing == []


def test_every_profile_has_its_page_package_and_generators() -> None:
    for profile in PROFILES:
        assert (REPO / "spec" / f"{profile}.md").is_file()
        assert (REPO / "reference" / "memref" / profile / "_ops.py").is_file()
        assert (REPO / "tools" / "fixtures" / profile / "__init__.py").is_file()
