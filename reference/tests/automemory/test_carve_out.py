"""The lexical carve-out and the strict one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memref.automemory import carve_out, carve_out_lexical
from memref.automemory._carve_out import normalise_component

D = "/home/u/.claude/projects/-home-u-p/memory/"


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        (D, True),
        (D + "a.md", True),
        (D + "MEMORY.md", True),
        (D[:-1], False),
        (D + ".git/config", False),
        (D + "x/../.git", False),
        (D + ".gi\u200ct", False),
        (D + ".g\u200bit", True),
        (D + "SK\u0130LLS", True),
        (D + "\u017fkills", False),
        (D + "../memoryx/a", False),
        (D.replace("/memory/", "/MEMORY/"), False),
    ],
)
def test_seed_table(path: str, allowed: bool) -> None:
    assert carve_out_lexical(path, D) is allowed


def test_normalisation() -> None:
    assert normalise_component("CONFIG. ") == "config"
    assert normalise_component(".git::$DATA") == ".git"
    assert normalise_component("...") == "..."


def test_strict_refuses_a_link_out(tmp_path: Path) -> None:
    (tmp_path / "mem").mkdir()
    (tmp_path / "out").mkdir()
    os.symlink(tmp_path / "out", tmp_path / "mem" / "link")
    directory = f"{tmp_path}/mem/"
    assert carve_out_lexical(f"{directory}link/x.md", directory)
    assert not carve_out(f"{directory}link/x.md", directory)
    assert carve_out(f"{directory}x.md", directory)
