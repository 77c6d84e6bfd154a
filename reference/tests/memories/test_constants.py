"""memref.memories: the constants (MEMORIES-CONST-*)."""

from __future__ import annotations

from memref.memories import _constants


def test_constants_are_the_tables_values() -> None:
    values = _constants.as_dict()
    assert values["commands"] == ["view", "create", "str_replace", "insert", "delete", "rename"]
    assert (values["max_lines"], values["line_number_width"], values["listing_depth"]) == (
        999_999,
        6,
        2,
    )
    assert (values["file_mode"], values["dir_mode"]) == ("0600", "0700")
    assert set(values) == {
        "tool_type",
        "tool_name",
        "virtual_root",
        "root_dir",
        "commands",
        "max_lines",
        "line_number_width",
        "listing_depth",
        "size_units",
        "file_mode",
        "dir_mode",
    }


def test_each_call_gives_a_fresh_object() -> None:
    first = _constants.as_dict()
    first["commands"].append("undo_edit")
    assert _constants.as_dict()["commands"][-1] == "rename"
