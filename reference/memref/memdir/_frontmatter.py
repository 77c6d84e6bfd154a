"""The flat ``key: value`` frontmatter block between two ``---`` lines."""

from __future__ import annotations

from memref._gostr import SPACE_CHARS, is_space, to_lower, trim_space

__all__ = ["frontmatter_of_lines", "map_of_lines_general", "parse_frontmatter"]

# The characters of SPACE_CHARS that are ASCII: all trim_space strips from ASCII text.
_ASCII_SPACES = "".join(char for char in SPACE_CHARS if char.isascii())


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _split_line(line: str) -> tuple[str, str] | None:
    trimmed = trim_space(line)
    if not trimmed or trimmed.startswith("#"):
        return None
    raw_key, colon, raw_value = trimmed.partition(":")
    if not colon:
        return None
    key = to_lower(trim_space(raw_key))
    value = _unquote(trim_space(raw_value))
    if not key or not value:
        return None
    return key, value


def _block_end(lines: list[str]) -> int:
    """The index of the closing ``---`` line; -1 without an opening and a closing one."""
    if not lines[0].startswith("---") or trim_space(lines[0]) != "---":
        return -1
    for index in range(1, len(lines)):
        line = lines[index]
        # trim_space(line) == "---" needs "---" in the line; most lines lack it.
        if "---" in line and trim_space(line) == "---":
            return index
    return -1


def _merged(top_level: dict[str, str], indented: dict[str, str]) -> dict[str, str]:
    keys = dict.fromkeys([*top_level, *indented])
    return {key: top_level.get(key, indented.get(key, "")) for key in keys}


def map_of_lines_general(lines: list[str]) -> dict[str, str]:
    """``_map_of`` by way of ``_split_line``, one call per line: the plain statement of it."""
    top_level: dict[str, str] = {}
    indented: dict[str, str] = {}
    for line in lines:
        pair = _split_line(line)
        if pair is not None:
            claims = indented if is_space(line[0]) else top_level
            claims.setdefault(*pair)
    return _merged(top_level, indented)


def frontmatter_of_lines(lines: list[str], *, ascii_text: bool = False) -> dict[str, str]:
    """``parse_frontmatter("\\n".join(lines))[0]`` for lines without a ``"\\n"``.

    One pass over the lines: ``_block_end`` and ``map_of_lines_general`` with
    ``_split_line`` inlined. The trimmed line that is ``---`` closes the block (it is
    neither empty nor a comment, and it is tested before any ``key: value``). The
    line is trimmed at both ends, so the key needs only its right end trimmed and the
    value only its left end; a line is indented when trimming changed its first
    character. When the caller knows the lines are ASCII (``ascii_text``), trimming
    needs only the ASCII spaces and lowering only ``str.lower``.
    """
    first = lines[0]
    if not first.startswith("---"):
        return {}
    spaces = _ASCII_SPACES if ascii_text else SPACE_CHARS
    if first.strip(spaces) != "---":
        return {}
    top_level: dict[str, str] = {}
    indented: dict[str, str] | None = None
    for index in range(1, len(lines)):
        line = lines[index]
        trimmed = line.strip(spaces)
        if not trimmed or trimmed[0] == "#":
            continue
        if trimmed == "---":
            return top_level if indented is None else _merged(top_level, indented)
        key, colon, value = trimmed.partition(":")
        if not colon:
            continue
        value = value.lstrip(spaces)
        if not value:
            continue
        last = value[-1]
        if (last == '"' or last == "'") and len(value) >= 2 and value[0] == last:
            value = value[1:-1]
            if not value:
                continue
        key = key.rstrip(spaces)
        if not key:
            continue
        key = key.lower() if ascii_text else to_lower(key)
        if line[0] != trimmed[0]:
            if indented is None:
                indented = {}
            indented.setdefault(key, value)
        elif key not in top_level:
            top_level[key] = value
    return {}


def parse_frontmatter(content: str) -> tuple[dict[str, str], str]:
    """Split ``content`` into its frontmatter map and its body.

    Without an opening ``---`` line, or without a closing one, the map is empty
    and the body is the whole input. A key on a top-level line (not starting with
    white space) wins over the same key on an indented line; otherwise the first
    occurrence wins.
    """
    if not content.startswith("---"):
        return {}, content
    lines = content.split("\n")
    end = _block_end(lines)
    if end < 0:
        return {}, content
    frontmatter = map_of_lines_general(lines[1:end])
    body = "\n".join(lines[end + 1 :]).removeprefix("\n")
    return frontmatter, body
