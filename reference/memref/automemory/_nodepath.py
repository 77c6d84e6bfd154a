"""Node's POSIX ``path.normalize``, ``path.join`` and ``path.dirname``: lexical, no file system."""

from __future__ import annotations

__all__ = ["dirname", "join", "normalize"]


def normalize(path: str) -> str:
    """``path.posix.normalize``: ``.`` and ``..`` resolved, ``//`` collapsed, a trailing
    ``/`` kept, ``""`` becomes ``.``."""
    if not path:
        return "."
    absolute = path.startswith("/")
    trailing = path.endswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not absolute:
                parts.append("..")
            continue
        parts.append(part)
    joined = "/".join(parts)
    if not joined and not absolute:
        joined = "."
    if joined and trailing:
        joined += "/"
    return "/" + joined if absolute else joined


def join(*parts: str) -> str:
    """``path.posix.join``: the non-empty parts joined with ``/``, then normalised."""
    kept = [part for part in parts if part]
    return normalize("/".join(kept)) if kept else "."


def dirname(path: str) -> str:
    """``path.posix.dirname``."""
    if not path:
        return "."
    end = len(path.rstrip("/"))
    if end == 0:
        return "/"
    cut = path.rfind("/", 0, end)
    if cut < 0:
        return "."
    head = path[:cut].rstrip("/")
    return head or "/"
