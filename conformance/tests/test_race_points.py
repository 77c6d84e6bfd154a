"""Race points: with the observer, a race step is decided in one round. The harness holds
each call of a send that names a path in the swapped directory, swaps the directory for
the link there, and lets the call go on: a check followed by a use by path is caught in
every run, and a sound op is done after one send per point."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from test_racer import READ, WRITE, WRITE_STEP, race_case

from memspec.exceptions import CaseFailure
from memspec.observe.strace import unavailable_reason
from memspec.run.runner import run_case
from memspec.run.scratch import settle
from memspec.wire.adapters import Adapter

pytestmark = pytest.mark.skipif(
    unavailable_reason() is not None, reason=f"host: {unavailable_reason()}"
)


@pytest.fixture
def fake() -> Any:
    adapters: list[Adapter] = []

    def make(name: str) -> Adapter:
        adapters.append(Adapter(f"python:race_fakes:{name}"))
        return adapters[-1]

    yield make
    for adapter in adapters:
        adapter.close()


def test_the_observer_is_on_this_host() -> None:
    assert unavailable_reason() is None  # .ci/run installs strace


@pytest.mark.parametrize("run", range(5))
def test_a_check_then_a_use_by_path_is_caught_in_every_run(fake: Any, run: int) -> None:
    with pytest.raises(CaseFailure, match=r"changed what lies outside") as caught:
        run_case(WRITE, fake("CheckThenUse"), observed=True)
    message = str(caught.value)
    assert "while the harness swapped memories/d for a link to outside" in message
    assert "pwn.txt: created" in message
    assert caught.value.signature == ("step 1: race (escaped)",)


@pytest.mark.parametrize("run", range(3))
def test_a_check_then_a_read_by_path_is_caught_by_its_reply(fake: Any, run: int) -> None:
    with pytest.raises(CaseFailure, match=r"none of the 2 the step allows") as caught:
        run_case(READ, fake("CheckThenUse"), observed=True)
    assert 'actual: "outside"' in str(caught.value)
    assert caught.value.signature == ("step 1: race (reply not allowed)",)


def test_a_sound_op_is_done_after_one_send_per_point(fake: Any, tmp_path: Path) -> None:
    from race_fakes import SlowSafeWriter

    SlowSafeWriter.calls = 0
    run_case(race_case(*WRITE_STEP, repeat=1000, seconds=30), fake("SafeWriter"), observed=True)
    run_case(READ, fake("SafeWriter"), base=tmp_path, observed=True)
    assert settle() == []
    assert os.listdir(tmp_path) == []  # the tree was put back and removed, link and all


def test_a_sound_op_sends_twice_to_count_then_once_a_point(
    fake: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SafeWriter's put_in opens the root, each part of dir, then the file: the calls that
    # name memories/d or a path below it are the open of d and the file's open and write.
    sends = tmp_path / "sends"
    monkeypatch.setenv("MEMSPEC_FAKE_SENDS", str(sends))
    case = race_case(*WRITE_STEP, repeat=1000, seconds=30)
    adapter = fake("CountingSafeWriter")
    run_case(case, adapter, observed=True)
    first = sends.read_text().split()
    assert first == [f"pwn{i}.txt" for i in range(len(first))], first
    assert len(first) == 5, first
    sends.unlink()
    run_case(case, adapter, observed=True)
    assert sends.read_text().split() == first  # the same sends in every run
