"""The constants and their protocol form."""

from __future__ import annotations

from memref.automemory import _constants


def test_targets_are_seventy_percent_of_the_caps() -> None:
    assert _constants.REBUILD_MAX_LINES == 140
    assert _constants.REBUILD_MAX_UNITS == 17_500


def test_as_dict_is_a_fresh_copy() -> None:
    first = _constants.as_dict()
    first["memory_types"].append("x")  # type: ignore[attr-defined]
    assert _constants.as_dict()["memory_types"] == ["user", "feedback", "project", "reference"]
