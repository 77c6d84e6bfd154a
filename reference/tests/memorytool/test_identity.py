"""The tool's identity: its name, its input schema, and what its description must say."""

from __future__ import annotations

from memref.memorytool._identity import tool_definition


def test_name_and_required_fields() -> None:
    definition = tool_definition()
    assert definition["name"] == "memory"
    schema = definition["input_schema"]
    assert schema["required"] == ["action", "text"]
    assert schema["properties"]["action"]["enum"] == ["add", "replace", "remove"]
    assert schema["properties"]["target"]["enum"] == ["self", "user"]
    assert set(schema["properties"]) == {"action", "target", "text", "with"}


def test_the_description_tells_when_a_write_takes_effect() -> None:
    description = tool_definition()["description"].lower()
    assert "next session" in description
    assert "current context" in description and "not change" in description


def test_each_call_returns_a_fresh_definition() -> None:
    tool_definition()["input_schema"]["required"].append("with")
    assert tool_definition()["input_schema"]["required"] == ["action", "text"]
