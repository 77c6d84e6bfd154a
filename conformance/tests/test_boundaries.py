"""The lines memspec keeps: the judge never imports the judged, the plugin stays out of
projects that did not ask for it, and the committed fixtures are what the generators
write."""

from __future__ import annotations

import ast
import filecmp
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MEMSPEC = REPO / "conformance" / "memspec"
ALLOWED = {
    MEMSPEC / "wire" / "adapters.py": {"memref.serve"},
    MEMSPEC / "wire" / "serve.py": {"memref.serve"},
}


def _imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_memspec_imports_memref_only_to_build_the_reference_adapter() -> None:
    offenders = {}
    for path in sorted(MEMSPEC.rglob("*.py")):
        memref = {m for m in _imported_modules(path) if m.split(".")[0] == "memref"}
        if memref - ALLOWED.get(path, set()):
            offenders[str(path.relative_to(REPO))] = sorted(memref)
    assert offenders == {}


def test_the_import_rule_sees_a_violation(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("from memref._time import parse_rfc3339\nimport memref.memdir\n")
    assert _imported_modules(sample) == {"memref._time", "memref.memdir"}


def test_generators_never_import_memref() -> None:
    for path in sorted((REPO / "tools" / "fixtures").rglob("*.py")):
        assert not {m for m in _imported_modules(path) if m.split(".")[0] == "memref"}, path


def test_a_scratch_project_is_untouched_by_the_installed_plugin(tmp_path: Path) -> None:
    """Its own ``profile`` marker and ``ci`` Hypothesis profile work as if memspec were
    not installed, and memref is never started."""
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent("""
        [tool.pytest.ini_options]
        markers = ["profile(name): this project's own marker"]
    """)
    )
    (tmp_path / "conftest.py").write_text(
        textwrap.dedent("""
        from hypothesis import settings
        settings.register_profile("ci", max_examples=7)
        settings.load_profile("ci")
    """)
    )
    (tmp_path / "test_scratch.py").write_text(
        textwrap.dedent("""
        import sys
        import pytest
        from hypothesis import given, settings, strategies as st

        @pytest.mark.profile("fast")
        def test_marked():
            assert "memref.serve" not in sys.modules

        def test_own_hypothesis_profile():
            assert settings().max_examples == 7

        @given(st.integers())
        def test_property(x):
            assert isinstance(x, int)
    """)
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout
    assert "memspec" not in result.stdout


def test_committed_fixtures_are_what_the_generators_write(tmp_path: Path) -> None:
    out = tmp_path / "fixtures"
    result = subprocess.run(
        [sys.executable, "-m", "tools.fixtures", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    committed = REPO / "fixtures"
    differences: list[str] = []

    def compare(left: Path, right: Path, prefix: str) -> None:
        comparison = filecmp.dircmp(left, right, ignore=["_snapshots"])
        differences.extend(f"{prefix}{n}: only generated" for n in comparison.left_only)
        differences.extend(f"{prefix}{n}: only committed" for n in comparison.right_only)
        _, mismatch, errors = filecmp.cmpfiles(left, right, comparison.common_files, shallow=False)
        differences.extend(f"{prefix}{n}: differs" for n in mismatch + errors)
        for name in comparison.common_dirs:
            compare(left / name, right / name, f"{prefix}{name}/")

    compare(out, committed, "")
    assert differences == []
