"""Removing block HTML comments from markdown, as the seed's loader does.

The seed lexes the text with ``marked`` and touches only top-level html blocks that
open with ``<!--`` (CommonMark html block type 2). This module implements that rule
for the documents the spec covers: a block opens on a line that starts, after at most
three spaces and outside a fenced code block, with ``<!--``; it ends with the line
holding the first ``-->`` after the opener, together with the newlines that follow.
Inside a block every ``<!--...-->`` is removed, and what is left is kept unless it is
blank. The work is done on pieces of lines, so arbitrarily long text streams through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from memref.automemory._units import JS_SPACE

__all__ = ["Stripper", "line_pieces", "normalised", "strip_html_comments"]

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_OPENER = re.compile(r" {0,3}<!--")
_INLINE = re.compile(r"<!--[\s\S]*?-->")


def normalised(chunks: Iterable[str]) -> Iterator[str]:
    """The chunks with CRLF and lone CR turned into LF, across chunk boundaries."""
    carry = ""
    for chunk in chunks:
        chunk = carry + chunk
        carry = ""
        if chunk.endswith("\r"):
            carry, chunk = "\r", chunk[:-1]
        if "\r" in chunk:
            chunk = chunk.replace("\r\n", "\n").replace("\r", "\n")
        if chunk:
            yield chunk
    if carry:
        yield "\n"


# A piece this long shows how its line starts; a shorter one waits for the next chunk.
_PREFIX = 64


def line_pieces(chunks: Iterable[str]) -> Iterator[str]:
    """The LF-normalised text cut after every LF (and at some chunk ends)."""
    carry = ""
    for chunk in chunks:
        chunk = carry + chunk
        carry = ""
        start = 0
        while True:
            cut = chunk.find("\n", start)
            if cut < 0:
                if len(chunk) - start < _PREFIX:
                    carry = chunk[start:]
                else:
                    yield chunk[start:]
                break
            yield chunk[start : cut + 1]
            start = cut + 1
    if carry:
        yield carry


class Stripper:
    """One pass over line pieces. ``run`` yields the text with stripped blocks removed;
    afterwards ``stripped`` says whether any block was stripped and ``last_block_open``
    whether the text ended inside a block that never closed (which is kept as it is).

    ``unclosed_last`` tells a second pass that the last block never closes.
    """

    def __init__(self, unclosed_last: bool = False, blocks: int = 0) -> None:
        self.stripped = False
        self.blocks = 0
        self._unclosed_last = unclosed_last
        self._total_blocks = blocks
        self.last_block_open = False

    def run(self, pieces: Iterable[str]) -> Iterator[str]:
        at_start = True
        fence = ""
        state = "text"  # text, block (before -->), rest (after -->), newlines, verbatim
        tail = ""
        rest: list[str] = []
        for piece in pieces:
            if state == "verbatim":
                yield piece
                continue
            if state == "newlines":
                if piece == "\n":
                    rest.append(piece)
                    continue
                yield from self._close_block(rest)
                rest = []
                state = "text"
            if state == "block":
                found = (tail + piece).find("-->")
                if found < 0:
                    tail = (tail + piece)[-2:]
                    at_start = piece.endswith("\n")
                    continue
                state, piece = "rest", piece[found - len(tail) + 3 :]
                tail = ""
                self.last_block_open = False
            if state == "rest":
                rest.append(piece)
                if piece.endswith("\n"):
                    state = "newlines"
                at_start = piece.endswith("\n")
                continue
            if at_start and not fence:
                opener = _OPENER.match(piece)
                if opener is not None:
                    self.blocks += 1
                    if self._unclosed_last and self.blocks == self._total_blocks:
                        state = "verbatim"
                        yield piece
                        continue
                    self.last_block_open = True
                    body = piece[opener.end() :]
                    found = body.find("-->")
                    if found < 0:
                        state, tail = "block", body[-2:]
                        at_start = piece.endswith("\n")
                        continue
                    self.last_block_open = False
                    state, rest = "rest", [body[found + 3 :]]
                    if piece.endswith("\n"):
                        state = "newlines"
                    at_start = piece.endswith("\n")
                    continue
            if at_start:
                fence = self._fence_after(fence, piece)
            at_start = piece.endswith("\n")
            yield piece
        if state in ("rest", "newlines"):
            yield from self._close_block(rest)

    def _close_block(self, rest: list[str]) -> Iterator[str]:
        self.stripped = True
        remainder = _INLINE.sub("", "".join(rest))
        if remainder.strip(JS_SPACE):
            yield remainder

    @staticmethod
    def _fence_after(fence: str, line: str) -> str:
        """The fence open after ``line`` (a line start), given the one open before it."""
        match = _FENCE.match(line)
        if not fence:
            return match.group(1) if match else ""
        if match is None:
            return fence
        run = match.group(1)
        closes = run[0] == fence[0] and len(run) >= len(fence)
        return "" if closes and not line[match.end() :].strip(" \t\n") else fence


def plan(pieces: Callable[[], Iterable[str]]) -> Callable[[], Stripper] | None:
    """A maker of strippers for emitting passes, or None when nothing is stripped."""
    probe = Stripper()
    for _ in probe.run(pieces()):
        pass
    if not probe.stripped:
        return None
    return lambda: Stripper(probe.last_block_open, probe.blocks)


def strip_html_comments(text: str) -> tuple[str, bool]:
    """``(content, stripped)``: the text without its block comments, LF line endings
    throughout when anything was stripped; the text unchanged otherwise."""
    if "<!--" not in text:
        return text, False

    def pieces() -> Iterable[str]:
        return line_pieces(normalised([text]))

    make = plan(pieces)
    if make is None:
        return text, False
    return "".join(make().run(pieces())), True
