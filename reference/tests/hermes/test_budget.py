"""memref.hermes: sizes and usage texts (HERMES-BUDGET-*)."""

from __future__ import annotations

from pathlib import Path

from memref.hermes import percent, size, usage

from .support import call


def test_sizes_count_code_points_and_delimiters() -> None:
    assert size([]) == 0 and size(["\U0001f600"]) == 1 and size(["a", "b"]) == 5


def test_float_percentages() -> None:
    assert [percent(n, 2200) for n in (638, 1254, 1276, 639)] == [28, 56, 57, 29]
    assert percent(3000, 2200) == 100 and percent(5, 0) == 0
    assert usage(1474, 2200) == "67% \u2014 1,474/2,200 chars"


def test_limit_is_inclusive(tmp_path: Path) -> None:
    assert call(tmp_path, {"action": "add", "content": "x" * 5}, limits={"memory": 5, "user": 1})[
        "success"
    ]
    answer = call(
        tmp_path / "b", {"action": "add", "content": "x" * 6}, limits={"memory": 5, "user": 1}
    )
    assert answer["usage"] == "0/5" and "(6 chars)" in answer["error"]
