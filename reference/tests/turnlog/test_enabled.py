"""TurnMemoryEnabled: on unless the variable holds an off-token, after trimming and
lower-casing; only the environment passed in is read."""

from __future__ import annotations

import pytest

from memref.turnlog import turn_memory_enabled

VAR = "OGCODE_TURN_MEMORY"


@pytest.mark.parametrize("value", ["0", "false", "no", "off", " OFF ", "False\n", "\tNo"])
def test_off_tokens_turn_it_off(value: str) -> None:
    assert turn_memory_enabled({VAR: value}) is False


@pytest.mark.parametrize("value", ["", "1", "true", "disabled", "nope", "o f f", "0.0"])
def test_anything_else_leaves_it_on(value: str) -> None:
    assert turn_memory_enabled({VAR: value}) is True


def test_unset_is_on_and_the_process_environment_is_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(VAR, "off")
    assert turn_memory_enabled({}) is True
