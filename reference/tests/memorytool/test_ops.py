"""memref.memorytool over the protocol: results, and bad arguments that are never internal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memref.serve import Implementation

_IMPL = Implementation()

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _handle(op: str, args: Any) -> dict[str, Any]:
    return _IMPL.handle({"id": 1, "op": f"memorytool.{op}", "args": args})


def test_constants_and_definition() -> None:
    constants = _handle("constants", {})["result"]
    assert constants["max_file_bytes"] == 2097152
    definition = _handle("tool_definition", {})["result"]
    assert definition["name"] == "memory"
    assert "start of your next session" in definition["description"].lower()
    selected = _handle(
        "tool_definition_select",
        {
            "pointers": ["/input_schema/required"],
            "keys_of": ["/input_schema/properties"],
            "contains": [["/description", "DO NOT CHANGE YOUR CURRENT CONTEXT"]],
        },
    )["result"]
    assert selected == {
        "values": [["action", "text"]],
        "keys": [["action", "target", "text", "with"]],
        "contains": [True],
    }


def test_invalid_utf8_soul_travels_as_base64(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_bytes(b"\xff")
    reply = _handle("compose_soul", {"dir": str(tmp_path)})
    assert reply["result"] == {"soul": {"base64": "IyMgU09VTC5tZAoK/w=="}, "found": ["SOUL.md"]}


def test_lone_surrogates_are_invalid_args(tmp_path: Path) -> None:
    reply = _handle("call", {"dir": str(tmp_path), "input": {"action": "add", "text": "\ud800"}})
    assert reply["error"]["kind"] == "invalid-args"
    assert not (tmp_path / "MEMORY.md").exists()


@settings(max_examples=150, deadline=None)
@given(
    op=st.sampled_from(
        [
            "constants",
            "tool_definition",
            "tool_definition_select",
            "call",
            "compose_soul",
            "session_script",
        ]
    ),
    args=st.dictionaries(
        st.sampled_from(["dir", "input", "script", "view", "pointers", "keys_of", "contains"]),
        JSON,
        max_size=4,
    ),
)
def test_bad_arguments_are_never_internal(
    tmp_path_factory: Any, op: str, args: dict[str, Any]
) -> None:
    home = tmp_path_factory.mktemp("home")
    if "dir" in args and isinstance(args["dir"], str):
        args["dir"] = str(home) + "/" + args["dir"].replace("\x00", "")
    reply = _handle(op, args)
    if "error" in reply:
        assert reply["error"]["kind"] in ("invalid-args", "invalid-input"), reply


@settings(max_examples=150, deadline=None)
@given(
    tool_input=st.dictionaries(
        st.sampled_from(["action", "target", "text", "with"]),
        st.sampled_from(["add", "replace", "remove", "user", ""]) | JSON,
        max_size=4,
    )
)
def test_any_tool_input_gives_a_tool_result(
    tmp_path_factory: Any, tool_input: dict[str, Any]
) -> None:
    home = tmp_path_factory.mktemp("home")
    reply = _handle("call", {"dir": str(home), "input": tool_input})
    if "error" in reply:
        assert reply["error"]["kind"] == "invalid-args"
    else:
        assert set(reply["result"]) == {"output", "is_error"}
