"""memref.memories: the protocol operations (MEMORIES-OP-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memref.errors import OpError
from memref.memories._ops import OPS

from .support import base_with


@pytest.mark.parametrize(
    "args",
    [
        {"input": {}},
        {"base": "relative", "input": {}},
        {"base": "/a\x00b", "input": {}},
        {"base": "/a\ud800", "input": {}},
        {"base": "/tmp", "input": []},
        {"base": "/tmp"},
    ],
)
def test_bad_arguments_are_invalid_args(args: dict[str, object]) -> None:
    with pytest.raises(OpError) as refused:
        OPS["memories.call"](args)
    assert refused.value.kind == "invalid-args"


def test_a_script_is_checked_before_anything_runs(tmp_path: Path) -> None:
    base = base_with(tmp_path, {"a.txt": "a"})
    script = [{"op": "clear_all"}, {"op": "call"}]
    with pytest.raises(OpError):
        OPS["memories.session_script"]({"base": base, "script": script})
    assert (Path(base) / "memories" / "a.txt").exists()
    events = OPS["memories.session_script"]({"base": base, "script": [{"op": "remove_root"}]})
    assert events == {"events": [None]}
