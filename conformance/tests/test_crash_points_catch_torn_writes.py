"""Crash points catch a writer that rewrites a file in place.

A crash-points step checks the state right after each failed mutation: the tree before the
step or the expected one, never a mix. hermes's writers prepare the memory directory and a
lock file before they write, which the step lists as ``prepared``; the entries and the drift
backup are still checked. Here memref's hermes writers are swapped for ones that truncate
and then write (announcing both mutations, as memref's own writers do), and every crash-point
case of the writer must fail.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from memref._faults import mutation
from memspec.corpus.cases import Case, load_cases
from memspec.exceptions import CaseFailure
from memspec.run.runner import crash_point_steps, run_crash_points
from memspec.wire.adapters import Adapter

CASES = [
    case
    for case in load_cases(profiles={"hermes"})
    if crash_point_steps(case) and case.id.startswith("hermes/files/crash-points")
]


def _in_place(path: str, text: str) -> None:
    mutation("truncate")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        mutation("write")
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def _in_place_backup(path: str, text: str) -> bool:
    try:
        _in_place(path, text)
    except OSError:
        return False
    return True


@contextlib.contextmanager
def torn_writers() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("memref.hermes._tool.write_file", _in_place)
        patch.setattr("memref.hermes._tool.write_backup", _in_place_backup)
        yield


def test_there_are_crash_point_cases_for_the_entries_and_the_backup() -> None:
    ids = {case.id for case in CASES}
    assert len(ids) >= 10
    assert "hermes/files/crash-points-drift-backup-replaced" in ids


# Its write is of no bytes (the last entry removed): truncating is the whole write.
WRITES_NOTHING = {"hermes/files/crash-points-remove-last"}


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_memref_passes_and_an_in_place_writer_is_caught(case: Case) -> None:
    adapter = Adapter("reference")
    try:
        for index in crash_point_steps(case):
            run_crash_points(case, adapter, index)
        if case.id in WRITES_NOTHING:
            return
        with torn_writers(), pytest.raises(CaseFailure) as caught:
            for index in crash_point_steps(case):
                run_crash_points(case, adapter, index)
    finally:
        adapter.close()
    assert "neither the one before the step nor the expected one after it" in str(caught.value)
