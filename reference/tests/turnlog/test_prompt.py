"""The summary prompt: the seed's text, pinned by its length and digest."""

from __future__ import annotations

import hashlib

from memref.turnlog import _ops
from memref.turnlog._prompt import SUMMARY_SYSTEM_PROMPT


def test_the_prompt_is_the_seeds_text() -> None:
    data = SUMMARY_SYSTEM_PROMPT.encode("utf-8")
    assert len(data) == 1649
    assert hashlib.sha256(data).hexdigest() == (
        "bad5a02d0b9feadfe0c8217dd008d57e73b347e6a2a3ba23396bfaab598508d5"
    )


def test_the_op_ignores_its_arguments() -> None:
    op = _ops.OPS["turnlog.summary_system_prompt"]
    assert op({}) == op({"x": 1}) == SUMMARY_SYSTEM_PROMPT
