"""memdir.constants answers the values spec/memdir.md states, and nothing else."""

from __future__ import annotations

from memref.memdir._ops import OPS


def test_constants_are_the_spec_values() -> None:
    assert OPS["memdir.constants"]({}) == {
        "project_memory_file": "EVVA.md",
        "max_file_bytes": 65536,
        "memory_dir_name": "memory",
        "memory_index_file": "MEMORY.md",
        "max_index_lines": 200,
        "max_index_bytes": 25000,
        "max_memory_files": 200,
        "frontmatter_max_lines": 30,
        "frontmatter_scan_bytes": 4096,
        "memory_types": ["user", "feedback", "project", "reference"],
        "recall_max_selected": 5,
        "recall_max_tokens": 256,
        "dream_lock_file": ".consolidate-lock",
        "dream_stale_after_s": 3600,
        "dream_scan_throttle_s": 600,
        "dream_default_min_hours": 24,
        "dream_default_min_sessions": 5,
    }


def test_each_call_returns_a_fresh_object() -> None:
    first = OPS["memdir.constants"]({})
    first["memory_types"].append("team")
    assert OPS["memdir.constants"]({})["memory_types"] == [
        "user",
        "feedback",
        "project",
        "reference",
    ]
