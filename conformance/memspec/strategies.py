"""Hypothesis strategies for memspec's formats: public, for implementers' own tests too.

Bounds are keyword-only; caps are the spec's constants (spec/memdir.md, "Index").
"""

from __future__ import annotations

import base64

from hypothesis import strategies as st

MAX_INDEX_LINES = 200
MAX_INDEX_BYTES = 25_000

__all__ = [
    "frontmatter_documents",
    "index_texts",
    "instants",
    "wire_texts",
]

# 1970 .. 2100, the range every implementation's clock type holds.
_LOW, _HIGH = 0, 4_102_444_800 * 1_000_000_000


def instants(*, min_ns: int = _LOW, max_ns: int = _HIGH) -> st.SearchStrategy[int]:
    """Epoch nanoseconds between the bounds."""
    if min_ns > max_ns:
        raise ValueError(f"min_ns={min_ns} is above max_ns={max_ns}")
    return st.integers(min_value=min_ns, max_value=max_ns)


_KEYS = st.sampled_from(
    [
        "name",
        "description",
        "type",
        "Name",
        "TYPE",
        "metadata",
        "k",
        "my key",
        "- item",
        "url",
        "#c",
        "",
        "İd",
    ]
)
_VALUES = st.one_of(
    st.sampled_from(
        [
            "user",
            "feedback",
            "x",
            '"quoted"',
            "'single'",
            '""',
            "''",
            "\"a'",
            "v # comment",
            "http://x:80/y",
            " sp ",
            '"',
            "",
        ]
    ),
    st.text(
        alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\n"), max_size=12
    ),
)
_INDENTS = st.sampled_from(["", "  ", "\t", "    "])


@st.composite
def _lines(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["pair", "pair", "pair", "blank", "comment", "nocolon"]))
    if kind == "blank":
        return draw(st.sampled_from(["", "   ", "\t"]))
    if kind == "comment":
        return "# " + draw(_VALUES)
    if kind == "nocolon":
        return draw(st.sampled_from(["nocolon", "just words"]))
    return f"{draw(_INDENTS)}{draw(_KEYS)}:{draw(st.sampled_from(['', ' ', '  ']))}{draw(_VALUES)}"


@st.composite
def frontmatter_documents(draw: st.DrawFn, *, max_lines: int = 8) -> str:
    """Documents shaped like memory files: delimiters, odd keys, quotes, CRLF, bodies."""
    if max_lines < 0:
        raise ValueError(f"max_lines={max_lines} must be >= 0")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    opening = draw(st.sampled_from(["---", "---", "--- ", "----", " ---", "\ufeff---", ""]))
    closing = draw(st.sampled_from(["---", "---", "  ---", "...", "---\r", None]))
    lines = draw(st.lists(_lines(), max_size=max_lines))
    body = draw(st.text(max_size=40))
    parts = [opening, *lines] + ([closing] if closing is not None else [])
    blank = draw(st.sampled_from(["", newline]))
    return newline.join(parts) + newline + blank + body


def wire_texts(*, max_size: int = 200) -> st.SearchStrategy[object]:
    """Text values as they travel: strings, or arbitrary bytes as ``{"base64": ...}``."""
    return st.one_of(
        st.text(max_size=max_size),
        st.binary(max_size=max_size).map(
            lambda data: {"base64": base64.b64encode(data).decode("ascii")}
        ),
    )


@st.composite
def index_texts(draw: st.DrawFn) -> str:
    """MEMORY.md contents around both caps: many short lines, or few long ones."""
    shape = draw(st.sampled_from(["short-lines", "long-lines", "one-line", "mixed"]))
    if shape == "short-lines":
        count = draw(st.integers(min_value=0, max_value=MAX_INDEX_LINES + 40))
        return "\n".join(draw(st.text(alphabet="ab -", max_size=8)) for _ in range(count))
    if shape == "long-lines":
        count = draw(st.integers(min_value=1, max_value=8))
        width = draw(st.integers(min_value=2000, max_value=9000))
        return "\n".join("x" * width for _ in range(count))
    if shape == "one-line":
        return "y" * draw(st.integers(min_value=MAX_INDEX_BYTES - 5, max_value=MAX_INDEX_BYTES + 5))
    lines = draw(st.lists(st.text(alphabet="aé€ \t\n", max_size=300), max_size=250))
    return "\n".join(lines)
