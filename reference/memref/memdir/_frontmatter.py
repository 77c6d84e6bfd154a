"""The flat ``key: value`` frontmatter block between two ``---`` lines."""

from __future__ import annotations

from memref._gostr import is_space, to_lower, trim_space

__all__ = ["parse_frontmatter"]


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
    if trim_space(lines[0]) != "---":
        return {}, content
    end = next((i for i in range(1, len(lines)) if trim_space(lines[i]) == "---"), -1)
    if end < 0:
        return {}, content
    top_level: dict[str, str] = {}
    indented: dict[str, str] = {}
    for line in lines[1:end]:
        pair = _split_line(line)
        if pair is not None:
            claims = indented if is_space(line[0]) else top_level
            claims.setdefault(*pair)
    keys = dict.fromkeys([*top_level, *indented])
    frontmatter = {key: top_level.get(key, indented.get(key, "")) for key in keys}
    body = "\n".join(lines[end + 1 :]).removeprefix("\n")
    return frontmatter, body
