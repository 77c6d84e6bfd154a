"""Both containment checks against an independent model, on generated symlink layouts.

The model cleans paths segment by segment and resolves symbolic links by reading them
one at a time, sharing no code with memref.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memref.memdir import check_write_path, is_in_memory_dir

LINKS = {
    "lo": "{T}/outside/f.md",
    "ld": "{T}/outside/missing.md",
    "li": "a.md",
    "lp": "..",
    "lr": "{T}/memory",
    "lsib": "{T}/memory_backup",
    "ldir": "{T}/outside",
    "lrel": "../outside/f.md",
    "lin": "d",
}
SEGMENTS = [
    "a.md",
    "d",
    "x.md",
    *LINKS,
    "new.md",
    "..",
    ".",
    "",
    "..foo.md",
    "...",
    "a\\..\\b",
    "x\x00y",
    "%2e%2e",
]
BASES = [
    "{T}/memory",
    "{T}/memory/",
    "{T}/./memory",
    "{T}/memoryx",
    "{T}/memory_backup",
    "{T}/outside",
    "{T}",
    "relative",
    "",
]


def model_clean(path: str) -> str:
    absolute = path.startswith("/")
    out: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if out and out[-1] != "..":
                out.pop()
            elif not absolute:
                out.append("..")
        else:
            out.append(segment)
    joined = "/".join(out)
    return "/" + joined if absolute else (joined or ".")


def model_parts(path: str) -> list[str]:
    return [part for part in model_clean(path).split("/") if part]


def model_inside(path: str, root: str) -> str:
    inner, outer = model_parts(path), model_parts(root)
    if inner == outer:
        return "root"
    return "inside" if inner[: len(outer)] == outer and len(inner) > len(outer) else "outside"


def model_resolve(path: str) -> str:
    pending = [part for part in reversed(path.split("/")) if part not in ("", ".")]
    resolved = "/"
    hops = 0
    while pending:
        name = pending.pop()
        if name == "..":
            resolved = os.path.dirname(resolved) or "/"
            continue
        candidate = os.path.join(resolved, name)
        if os.path.islink(candidate):
            hops += 1
            assert hops < 40, "the generated layouts have no loops"
            target = os.readlink(candidate)
            if target.startswith("/"):
                resolved = "/"
            pending.extend(part for part in reversed(target.split("/")) if part not in ("", "."))
        else:
            resolved = candidate
    return resolved


def model_write(memory_dir: str, path: str) -> tuple[bool, str]:
    if not memory_dir or not path:
        return False, "empty"
    if "\x00" in memory_dir + path:
        return False, "nul"
    if not path.startswith("/"):
        return False, "relative"
    if ".." in path.replace("\\", "/").split("/"):
        return False, "dotdot"
    lexical = model_inside(path, memory_dir)
    if lexical != "inside":
        return False, lexical
    resolved = model_inside(model_resolve(path), model_resolve(memory_dir))
    if resolved == "root":
        return False, "root"
    if resolved == "outside":
        return False, "symlink-escape"
    return True, "ok"


def model_lexical(app_home: str, path: str, cwd: str) -> bool:
    if not app_home or not path:
        return False
    root = os.path.join(cwd, app_home, "memory")
    return model_inside(os.path.join(cwd, path), root) == "inside"


def build(base: Path, links: list[str], memory_is_link: bool) -> str:
    top = str(base)
    (base / "outside").mkdir()
    (base / "outside" / "f.md").write_text("x")
    (base / "memory_backup").mkdir()
    memory = base / ("real_memory" if memory_is_link else "memory")
    (memory / "d").mkdir(parents=True)
    (memory / "a.md").write_text("a")
    (memory / "d" / "x.md").write_text("x")
    for name in links:
        os.symlink(LINKS[name].format(T=top), memory / name)
    if memory_is_link:
        os.symlink(memory, base / "memory")
    return top


queries = st.tuples(st.sampled_from(BASES), st.lists(st.sampled_from(SEGMENTS), max_size=3))


@settings(max_examples=300, deadline=None)
@given(
    links=st.lists(st.sampled_from(sorted(LINKS)), unique=True),
    memory_is_link=st.booleans(),
    memory_dir=st.sampled_from(["{T}/memory", "{T}/memory/", "{T}/./memory"]),
    query=queries,
)
def test_check_write_path_agrees_with_the_model(
    links: list[str], memory_is_link: bool, memory_dir: str, query: tuple[str, list[str]]
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        top = build(Path(os.path.realpath(scratch)), links, memory_is_link)
        base, segments = query
        path = "/".join([base.format(T=top), *segments]) if segments else base.format(T=top)
        directory = memory_dir.format(T=top)
        got = check_write_path(directory, path)
        assert (got.allowed, got.reason) == model_write(directory, path), (directory, path)


@settings(max_examples=300, deadline=None)
@given(
    app_home=st.sampled_from(["{T}", "{T}/", "{T}/.", "{T}/x/..", "rel", "", "/"]),
    query=queries,
    cwd=st.sampled_from(["{T}", "/", "{T}/memory"]),
)
def test_is_in_memory_dir_agrees_with_the_model(
    app_home: str, query: tuple[str, list[str]], cwd: str
) -> None:
    top = "/t/home"
    base, segments = query
    path = "/".join([base.format(T=top), *segments]) if segments else base.format(T=top)
    home, where = app_home.format(T=top), cwd.format(T=top)
    path = path.replace("\x00", "")
    assert is_in_memory_dir(home, path, where) == model_lexical(home, path, where), (
        home,
        path,
        where,
    )
