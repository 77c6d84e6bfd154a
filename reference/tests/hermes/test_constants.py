"""memref.hermes: the constants (HERMES-CONSTANTS-*)."""

from __future__ import annotations

from memref.hermes import as_dict
from memref.hermes._ops import OPS


def test_constants_are_plain_and_fresh() -> None:
    first = as_dict()
    first["targets"].append("x")
    assert as_dict()["targets"] == ["memory", "user"]
    assert OPS["hermes.constants"]({"ignored": 1})["block_rule"] == "\u2550" * 46
    assert as_dict()["entry_delimiter"].encode() == b"\n\xc2\xa7\n"
