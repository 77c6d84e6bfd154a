"""parse_memory_type."""

from __future__ import annotations

import pytest

from memref.memdir import MEMORY_TYPES, parse_memory_type


@pytest.mark.parametrize("name", ["user", "feedback", "project", "reference"])
def test_known_types(name: str) -> None:
    # evva memdir_test.go TestParseMemoryType
    assert parse_memory_type(name) == (name, True)


@pytest.mark.parametrize("raw", ["", "USER", "decision", "team", "User", " user", "user "])
def test_anything_else_is_untyped(raw: str) -> None:
    assert parse_memory_type(raw) == ("", False)


def test_order_of_the_taxonomy() -> None:
    assert MEMORY_TYPES == ("user", "feedback", "project", "reference")
