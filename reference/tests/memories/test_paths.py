"""memref.memories: paths below the root and the walk from descriptors (MEMORIES-PATH-*)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memref.memories import _paths
from memref.memories._errors import ToolFailure
from memref.memories._paths import MAX_LINKS, Root, resolve, virtual_segments

from .support import base_with, call, tree_of


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("/memories", []),
        ("/memories/", []),
        ("/memories//a/./b/", ["a", "b"]),
        ("/memories/%2e%2e/..\\x", ["%2e%2e", "..\\x"]),
        ("/memories/a/../b", ["a", "..", "b"]),
    ],
)
def test_segments_below_memories(path: str, segments: list[str]) -> None:
    assert virtual_segments(path) == segments


@pytest.mark.parametrize("path", ["/memoriesX", "/memories_backup/x", "", "memories/x", "/"])
def test_paths_not_below_memories_are_refused(path: str) -> None:
    with pytest.raises(ToolFailure) as refused:
        virtual_segments(path)
    assert refused.value.text == f"Path must start with /memories, got: {path}"


def _kind(base: str, path: str) -> tuple[str, tuple[str, ...]]:
    with Root(base) as root, resolve(root, path) as target:
        return target.kind, tuple(target.parts)


def test_links_are_followed_and_dotdot_taken_after_them(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"sub/deep/f.txt": "f", "x.txt": "x"})
    root = Path(base) / "memories"
    os.symlink("sub/deep", root / "l")
    os.symlink(str(root / "sub"), root / "abs")
    assert _kind(base, "/memories/l/f.txt") == ("file", ("sub", "deep", "f.txt"))
    assert _kind(base, "/memories/l/..") == ("dir", ("sub",))
    assert _kind(base, "/memories/abs/deep") == ("dir", ("sub", "deep"))
    assert _kind(base, "/memories/nope/../x.txt") == ("file", ("x.txt",))
    assert _kind(base, "/memories/x.txt/../x.txt") == ("file", ("x.txt",))
    assert _kind(base, "/memories/x.txt/y") == ("blocked", ("x.txt", "y"))
    assert _kind(base, "/memories/a/b") == ("missing", ("a", "b"))


@pytest.mark.parametrize(
    ("target", "path"),
    [
        ("../../outside", "/memories/l/secret.txt"),
        ("__OUTSIDE__", "/memories/l"),
        ("../memories/sub", "/memories/l"),
    ],
)
def test_links_out_of_the_root_are_refused(tmp_path: Path, target: str, path: str) -> None:
    base = base_with(tmp_path, {"sub": None})
    (tmp_path / "outside").mkdir()
    os.symlink(
        target.replace("__OUTSIDE__", str(tmp_path / "outside")), Path(base) / "memories" / "l"
    )
    with Root(base) as root, pytest.raises(ToolFailure, match="would escape /memories directory"):
        resolve(root, path)


def test_a_chain_of_links_is_followed_however_long(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"end.txt": "end"})
    root = Path(base) / "memories"
    for i in range(300):
        os.symlink(f"l{i + 1}" if i < 299 else "end.txt", root / f"l{i}")
    assert _kind(base, "/memories/l0")[0] == "file"


def test_a_link_met_again_while_its_target_is_resolved_is_a_loop(tmp_path: Path) -> None:
    base = base_with(tmp_path, {})
    root = Path(base) / "memories"
    os.symlink("b", root / "a")
    os.symlink("a/x", root / "b")
    with Root(base) as root_fd, pytest.raises(ToolFailure, match="too many levels"):
        resolve(root_fd, "/memories/a")


def test_a_link_used_twice_one_after_the_other_is_no_loop(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"d/x.txt": "x"})
    root = Path(base) / "memories"
    os.symlink("d", root / "l")
    assert _kind(base, "/memories/l/../l/x.txt")[0] == "file"


def test_links_that_multiply_without_a_loop_are_bounded(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"d/end.txt": "end"})
    root = Path(base) / "memories"
    os.symlink("d", root / "n0")
    for i in range(1, 16):  # n_i leads through n_(i-1) twice: 2^15 links to follow
        os.symlink(f"n{i - 1}/../n{i - 1}", root / f"n{i}")
    assert MAX_LINKS < 2**15
    with Root(base) as root_fd, pytest.raises(ToolFailure, match="too many levels"):
        resolve(root_fd, "/memories/n15/end.txt")


def test_a_root_that_is_a_link_is_followed_by_both_of_its_paths(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (tmp_path / "base").mkdir()
    os.symlink(str(real), tmp_path / "base" / "memories")
    os.symlink(str(real / "sub"), real / "by-real")
    os.symlink(str(tmp_path / "base" / "memories" / "sub"), real / "by-root")
    base = str(tmp_path / "base")
    assert _kind(base, "/memories/by-real") == ("dir", ("sub",))
    assert _kind(base, "/memories/by-root") == ("dir", ("sub",))


def test_the_walk_without_o_path_sees_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_paths, "_O_PATH", 0)
    test_links_are_followed_and_dotdot_taken_after_them(tmp_path)


def _swap_after_opening(
    name: str, monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]
) -> None:
    """Swap the tree right after the walk has opened the directory ``name``: the worst
    moment, between the check and the use of a path."""
    real_open = os.open
    done: list[bool] = []

    def opening(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, *args, **kwargs)
        if path == name and not done:
            done.append(True)
            swap()
        return fd

    monkeypatch.setattr(os, "open", opening)


def test_a_directory_swapped_for_a_link_after_the_check_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = base_with(tmp_path, {"d/secret.txt": "token: inside\n"})
    root = Path(base) / "memories"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("token: outside\n")

    def swap() -> None:
        os.rename(root / "d", root / "d.saved")
        os.symlink(str(outside), root / "d")

    _swap_after_opening("d", monkeypatch, swap)
    assert call(base, "create", path="/memories/d/pwn.txt", file_text="x").is_error is False
    monkeypatch.undo()
    assert tree_of(outside) == {"secret.txt": "token: outside\n"}
    assert (root / "d.saved" / "pwn.txt").read_text() == "x"


def test_a_swap_seen_before_the_open_is_refused(tmp_path: Path) -> None:
    base = base_with(tmp_path, {})
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(str(outside), Path(base) / "memories" / "d")
    reply = call(base, "str_replace", path="/memories/d/secret.txt", old_str="a", new_str="b")
    assert reply.content == "Path /memories/d/secret.txt would escape /memories directory"
