"""FormatIndex: the byte budget and its reserve for global facts."""

from __future__ import annotations

from memref.factstore import (
    Memory,
    format_index,
)


def test_index_budget_vectors() -> None:
    projects = [Memory(f"project-fact-{i:03d}", "d" * 100, scope="project") for i in range(200)]
    globals_ = [Memory(f"global-fact-{i:03d}", "g" * 100, scope="global") for i in range(28)]
    text = format_index(projects + globals_)
    assert len(text) == 8221
    assert text.count(b"- global/") == 21 and text.count(b"- project/") == 41
    assert b"(166 more facts not shown;" in text
