"""memref reads and writes wire values exactly as the adapter templates' vectors say."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memref._gostr import decode, encode
from memref._wire import arg_int, arg_text, arg_time, text_out
from memref.errors import OpError

VECTORS: dict[str, Any] = json.loads(
    (
        Path(__file__).resolve().parents[2] / "conformance/memspec/cli/templates/wire-vectors.json"
    ).read_text(encoding="utf-8")
)


@pytest.mark.parametrize("vector", VECTORS["text_args"], ids=repr)
def test_text_arguments(vector: dict[str, Any]) -> None:
    if "error" in vector:
        with pytest.raises(OpError) as raised:
            arg_text({"x": vector["wire"]}, "x")
        assert raised.value.kind == vector["error"]
    else:
        assert encode(arg_text({"x": vector["wire"]}, "x")).hex() == vector["hex"]


@pytest.mark.parametrize("vector", VECTORS["text_results"], ids=repr)
def test_text_results(vector: dict[str, Any]) -> None:
    assert text_out(decode(bytes.fromhex(vector["hex"]))) == vector["wire"]


@pytest.mark.parametrize(
    "vector", [v for v in VECTORS["instants"] if v["wire"] is not None], ids=repr
)
def test_instants(vector: dict[str, Any]) -> None:
    if "error" in vector:
        with pytest.raises(OpError) as raised:
            arg_time({"x": vector["wire"]}, "x")
        assert raised.value.kind == vector["error"]
    else:
        assert arg_time({"x": vector["wire"]}, "x") == int(vector["unix_ns"])


@pytest.mark.parametrize("vector", VECTORS["integers"], ids=repr)
def test_integers(vector: dict[str, Any]) -> None:
    value = json.loads(vector["json"])
    in_range = isinstance(value, int) and not isinstance(value, bool)
    in_range = in_range and -(1 << 63) <= value < (1 << 63)
    assert in_range is vector["int64"]
    if in_range:
        assert arg_int({"x": value}, "x") == value and json.dumps(value) == vector["json"]
