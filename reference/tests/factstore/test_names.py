"""Names, types, scopes and ids: full-match names, scope by type, and resolution that
never leaves the two store directories."""

from __future__ import annotations

from pathlib import Path

import pytest

from memref.errors import OpError
from memref.factstore import resolve, scope_for_type, valid_name, valid_type

from .support import store


@pytest.mark.parametrize("name", ["a", "a-b", "a1-2b", "0"])
def test_valid_names(name: str) -> None:
    assert valid_name(name)


@pytest.mark.parametrize(
    "name", ["", "A", "a_b", "a.b", "a/b", "-a", "a-", "a--b", "a\n", "\na", "a b", "é"]
)
def test_invalid_names_including_a_trailing_newline(name: str) -> None:
    assert not valid_name(name)


def test_types_and_scopes() -> None:
    assert [valid_type(t) for t in ("user", "feedback", "project", "reference")] == [True] * 4
    assert not valid_type("User") and not valid_type("user ")
    assert scope_for_type("user") == scope_for_type("feedback") == "global"
    assert scope_for_type("reference") == scope_for_type("anything") == "project"


def test_bare_ids_resolve_by_what_exists(tmp_path: Path) -> None:
    dirs = store(tmp_path)
    assert resolve(dirs, "x").path == str(tmp_path / "p" / "x.md")
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "x.md").write_text("g")
    assert resolve(dirs, "x").path == str(tmp_path / "g" / "x.md")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x.md").write_text("p")
    with pytest.raises(OpError) as caught:
        resolve(dirs, "x")
    assert caught.value.kind == "invalid-input"
    assert caught.value.message == (
        '"x" exists in both scopes; qualify it as "project/x" or "global/x"'
    )


@pytest.mark.parametrize(
    "fact_id",
    [
        "../x",
        "project/../x",
        "/etc/passwd",
        "global/a/b",
        "project/",
        "/x",
        "project//x",
        "..",
        "global/..",
    ],
)
def test_no_id_escapes_the_store(fact_id: str, tmp_path: Path) -> None:
    with pytest.raises(OpError) as caught:
        resolve(store(tmp_path), fact_id)
    assert caught.value.kind == "invalid-input"
