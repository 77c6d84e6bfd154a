"""The Markdown of the spec pages as HTML: the subset the pages use, with the standard
library alone.

Blocks: ATX headings, paragraphs, ``-`` and ``1.`` lists (nested by indentation, with lazy
continuation lines), pipe tables and fenced code. Inline: code spans, ``**strong**``,
``*emphasis*``, ``[links](target)`` and backslash escapes. Raw HTML is not passed through:
every character of the source reaches the page as text. ``Hooks`` let the caller anchor
requirement items, add blocks after them, give table rows ids and turn ids in the text
into links.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Hooks", "Page", "render_markdown", "slug"]

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( +|$)(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_LINK = re.compile(r"\[([^\]]*)\]\(([^()\s]*)\)")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_UNDERSCORE = re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])")
_REQUIREMENT_ITEM = re.compile(
    r"^\*\*(?P<id>[A-Z]+-[A-Z]+-\d{3})\*\* \((?P<level>MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)\):"
    r"\s*(?P<rest>.*)$",
    re.DOTALL,
)
_SLOT = re.compile("\x00(\\d+)\x00")


def slug(text: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as
    hyphens."""
    text = re.sub(r"[`*_\[\]]", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-") or "section"


@dataclass
class Hooks:
    """What the caller adds to a page."""

    link: Callable[[str], str | None] = lambda target: target
    """A link target as the page should hold it, or None to show the text without a link."""
    words: Callable[[str], str] = html.escape
    """Escaped HTML for a run of plain text (where ids may become links)."""
    code: Callable[[str], str | None] = lambda text: None
    """A link for a code span's whole text (a case id, say), or None."""
    requirement: Callable[[str, str], str] = lambda rid, level: ""
    """HTML placed inside a requirement's item, after its text."""
    row_id: Callable[[str, list[str]], str | None] = lambda section, cells: None
    """An id for a table row, from the current ``##`` section and the row's raw cells."""
    heading_id: Callable[[int, str, str], str | None] = lambda level, text, section: None
    """An id for a heading instead of its slug."""


@dataclass
class Page:
    html: str
    headings: list[tuple[int, str, str]] = field(default_factory=list)
    """Each heading: level, anchor, plain text."""
    requirements: list[str] = field(default_factory=list)


class _Renderer:
    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks
        self.page = Page("")
        self.section = ""
        self.slugs: dict[str, int] = {}

    # Inline text.

    def inline(self, text: str, *, linked: bool = True) -> str:
        slots: list[str] = []

        def keep(value: str) -> str:
            slots.append(value)
            return f"\x00{len(slots) - 1}\x00"

        def code(match: re.Match[str]) -> str:
            content = match.group(2).replace("\n", " ")
            if content.startswith(" ") and content.endswith(" ") and content.strip():
                content = content[1:-1]
            shown = f"<code>{html.escape(content)}</code>"
            target = self.hooks.code(content) if linked else None
            return keep(f'<a href="{html.escape(target)}">{shown}</a>' if target else shown)

        text = _CODE.sub(code, text)
        text = _ESCAPE.sub(lambda m: keep(html.escape(m.group(1))), text)

        def link(match: re.Match[str]) -> str:
            inner = self._plain(match.group(1), linked=False)
            target = self.hooks.link(match.group(2))
            if target is None:
                return keep(inner)
            return keep(f'<a href="{html.escape(target)}">{inner}</a>')

        text = self._plain(_LINK.sub(link, text), linked=linked)
        for _ in range(2):  # a link's text holds the slots of its code spans
            text = _SLOT.sub(lambda m: slots[int(m.group(1))], text)
        return text

    def _plain(self, text: str, *, linked: bool) -> str:
        """Text around slots escaped (ids linked when ``linked``), then emphasis."""
        parts = _SLOT.split(text)
        out = []
        for index, part in enumerate(parts):
            if index % 2:
                out.append(f"\x00{part}\x00")
            else:
                out.append(self.hooks.words(part) if linked else html.escape(part))
        text = "".join(out)
        text = _STRONG.sub(r"<strong>\1</strong>", text)
        text = _EMPHASIS.sub(r"<em>\1</em>", text)
        return _UNDERSCORE.sub(r"<em>\1</em>", text)

    # Blocks.

    def blocks(self, lines: list[str], tight: bool = False) -> str:
        out: list[str] = []
        paragraph: list[str] = []
        index = 0

        def flush() -> None:
            if paragraph:
                text = self.inline("\n".join(line.strip() for line in paragraph))
                out.append(text if tight else f"<p>{text}</p>")
                paragraph.clear()

        while index < len(lines):
            line = lines[index]
            if not line.strip():
                flush()
                index += 1
                continue
            fence = _FENCE.match(line)
            if fence:
                flush()
                index = self._fence(lines, index, fence, out)
                continue
            heading = _HEADING.match(line)
            if heading and not line.startswith(" "):
                flush()
                out.append(self._heading(len(heading.group(1)), heading.group(2)))
                index += 1
                continue
            if (
                line.lstrip().startswith("|")
                and index + 1 < len(lines)
                and _TABLE_RULE.match(lines[index + 1])
            ):
                flush()
                index = self._table(lines, index, out)
                continue
            item = _ITEM.match(line)
            if item and (not paragraph or not item.group(2)[0].isdigit()):
                flush()
                index = self._list(lines, index, out)
                continue
            paragraph.append(line)
            index += 1
        flush()
        return "\n".join(out)

    def _fence(self, lines: list[str], index: int, fence: re.Match[str], out: list[str]) -> int:
        indent, marker = len(fence.group(1)), fence.group(2)
        language = fence.group(3).strip().split(" ")[0]
        body: list[str] = []
        index += 1
        while index < len(lines):
            closing = _FENCE.match(lines[index])
            if closing and closing.group(2).startswith(marker) and not closing.group(3).strip():
                index += 1
                break
            line = lines[index]
            strip = min(indent, len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            index += 1
        kind = f' class="language-{html.escape(language)}"' if language else ""
        out.append(f"<pre><code{kind}>{html.escape(chr(10).join(body))}</code></pre>")
        return index

    def _heading(self, level: int, text: str) -> str:
        plain = re.sub(r"[`*]", "", text)
        if level == 2:
            self.section = text
        anchor = self.hooks.heading_id(level, text, self.section)
        if anchor is None:
            anchor = slug(text)
            count = self.slugs.get(anchor, 0)
            self.slugs[anchor] = count + 1
            if count:
                anchor = f"{anchor}-{count}"
        self.page.headings.append((level, anchor, plain))
        inner = self.inline(text)
        return (
            f'<h{level} id="{html.escape(anchor)}">{inner}'
            f'<a class="anchor" href="#{html.escape(anchor)}" aria-label="link to this section">'
            f"#</a></h{level}>"
        )

    def _cells(self, line: str) -> list[str]:
        line = line.strip()
        if line.startswith("|"):
            line = line[1:]
        if line.endswith("|") and not line.endswith("\\|"):
            line = line[:-1]
        cells: list[str] = []
        current = ""
        index = 0
        while index < len(line):
            char = line[index]
            if char == "\\" and index + 1 < len(line) and line[index + 1] == "|":
                current += "\\|"
                index += 2
                continue
            if char == "|":
                cells.append(current.strip())
                current = ""
            else:
                current += char
            index += 1
        cells.append(current.strip())
        return cells

    def _table(self, lines: list[str], index: int, out: list[str]) -> int:
        header = self._cells(lines[index])
        rule = self._cells(lines[index + 1])
        aligns = [
            "center"
            if cell.startswith(":") and cell.endswith(":")
            else "right"
            if cell.endswith(":")
            else ""
            for cell in rule
        ]

        def cell(tag: str, text: str, column: int) -> str:
            align = aligns[column] if column < len(aligns) else ""
            style = f' style="text-align:{align}"' if align else ""
            return f"<{tag}{style}>{self.inline(text)}</{tag}>"

        rows = ["<thead><tr>" + "".join(cell("th", c, n) for n, c in enumerate(header)) + "</tr>"]
        rows.append("</thead><tbody>")
        index += 2
        while index < len(lines) and lines[index].strip().startswith("|"):
            cells = self._cells(lines[index])
            cells = (cells + [""] * len(header))[: max(len(header), 1)]
            anchor = self.hooks.row_id(self.section, cells)
            opening = f'<tr id="{html.escape(anchor)}">' if anchor else "<tr>"
            rows.append(opening + "".join(cell("td", c, n) for n, c in enumerate(cells)) + "</tr>")
            index += 1
        out.append('<div class="table"><table>' + "".join(rows) + "</tbody></table></div>")
        return index

    def _list(self, lines: list[str], index: int, out: list[str]) -> int:
        first = _ITEM.match(lines[index])
        assert first is not None
        indent = len(first.group(1))
        ordered = first.group(2)[0].isdigit()
        items: list[list[str]] = []
        loose = False
        content = indent
        previous_blank = False
        while index < len(lines):
            line = lines[index]
            item = _ITEM.match(line)
            depth = len(line) - len(line.lstrip(" "))
            if item and len(item.group(1)) == indent:
                if item.group(2)[0].isdigit() != ordered:
                    break
                if previous_blank and items:
                    loose = True
                content = indent + len(item.group(2)) + max(1, min(len(item.group(3)), 4))
                items.append([item.group(4)])
                previous_blank = False
            elif not line.strip():
                following = next((later for later in lines[index + 1 :] if later.strip()), "")
                deeper = len(following) - len(following.lstrip(" "))
                again = _ITEM.match(following)
                if not following or (
                    deeper < content and not (again and len(again.group(1)) == indent)
                ):
                    break
                items[-1].append("")
                previous_blank = True
            elif depth >= content or (depth > indent and item):
                items[-1].append(line[min(depth, content) :])
                previous_blank = False
            elif (
                not previous_blank
                and not item
                and depth > indent - 1
                and not line.lstrip().startswith(("|", "#", "```"))
            ):
                items[-1].append(line.strip())
            else:
                break
            index += 1
        tag = "ol" if ordered else "ul"
        start = ""
        if ordered:
            number = int(first.group(2)[:-1])
            start = f' start="{number}"' if number != 1 else ""
        rendered = [self._item(item, tight=not loose) for item in items]
        out.append(f"<{tag}{start}>" + "".join(rendered) + f"</{tag}>")
        return index

    def _item(self, lines: list[str], tight: bool) -> str:
        requirement = _REQUIREMENT_ITEM.match(lines[0])
        if requirement is None:
            return f"<li>{self.blocks(lines, tight=tight)}</li>"
        rid, level = requirement.group("id"), requirement.group("level")
        self.page.requirements.append(rid)
        rest = [requirement.group("rest"), *lines[1:]]
        body = self.blocks(rest, tight=True)
        level_class = level.lower().replace(" ", "-")
        return (
            f'<li class="req" id="{rid}" data-level="{level}">'
            f'<div class="req-head"><a class="rid" href="#{rid}">{rid}</a> '
            f'<span class="level {level_class}">{level}</span></div>'
            f'<div class="req-text">{body}</div>'
            f"{self.hooks.requirement(rid, level)}</li>"
        )


def render_markdown(markdown: str, hooks: Hooks | None = None) -> Page:
    renderer = _Renderer(hooks or Hooks())
    renderer.page.html = renderer.blocks(markdown.splitlines())
    return renderer.page
