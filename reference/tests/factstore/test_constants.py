"""factstore.constants answers the values spec/factstore.md states."""

from __future__ import annotations

import re

from memref.factstore._ops import OPS


def test_the_caps_and_names() -> None:
    constants = OPS["factstore.constants"]({})
    assert constants["max_fact_size"] == 16384
    assert constants["max_index_bytes"] == 8192
    assert constants["global_index_reserve"] == 2730
    assert constants["types"] == ["user", "feedback", "project", "reference"]
    assert constants["scopes"] == ["project", "global"]
    assert constants["key_hex_chars"] == 16
    assert constants["v1_fact_name"] == "notas-legado-v1"
    assert constants["v1_backup_file"] == "MEMORY.md.v1.bak"
    assert constants["record_file"] == "memory-migration.json"
    assert constants["ledger_file"] == "orphaned-memory.json"


def test_the_name_pattern_is_a_full_match_pattern() -> None:
    pattern = re.compile(OPS["factstore.constants"]({})["name_pattern"])
    assert pattern.fullmatch("a-b-0") and not pattern.fullmatch("a--b")
