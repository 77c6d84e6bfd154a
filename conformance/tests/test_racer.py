"""The racer: a directory of the tree swapped for a link out of it while a step repeats.
A correct fake passes; a fake that checks a path and then uses it by path is caught
writing outside, or reading outside; a race step is linted like any other."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from memspec.cli.lint import _case_problems
from memspec.corpus.cases import Case, case_from_json, load_cases, schema_errors
from memspec.exceptions import CaseFailure
from memspec.run.runner import run_case
from memspec.run.scratch import settle
from memspec.wire.adapters import Adapter

TREE = {"memories/d/note.txt": {"text": "inside"}, "outside/note.txt": {"text": "outside"}}
RACE = {"swap": "memories/d", "outside": "outside", "repeat": 60}


def race_case(op: str, args: dict[str, Any], any_of: list[dict[str, Any]], **race: Any) -> Case:
    data = {
        "id": "demo/harness/race",
        "description": "d",
        "requirements": ["DEMO-ECHO-001"],
        "requires": ["symlinks"],
        "tree": TREE,
        "steps": [
            {
                "op": op,
                "args": {"root": "${ROOT}/memories", **args},
                "race": {**RACE, **race},
                "expect": {"any_of": any_of},
            }
        ],
    }
    assert schema_errors(data) == []
    return case_from_json(data)


WRITE = race_case(
    "demo.put_in",
    {"dir": "d", "name": "pwn.txt", "text": "x"},
    [{"result": "ok"}, {"error": {"kind": "path-escape"}}],
)
WRITE_STEP = (
    "demo.put_in",
    {"dir": "d", "name": "pwn${ITERATION}.txt", "text": "x"},
    [{"result": "ok"}, {"error": {"kind": "path-escape"}}],
)
RACES = [case for case in load_cases() if any(step.race for step in case.steps)]
READ = race_case(
    "demo.read_in",
    {"dir": "d", "name": "note.txt"},
    [{"result": "inside"}, {"error": {"kind": "path-escape"}}],
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


def test_a_walk_from_descriptors_passes_and_the_tree_is_put_back(fake: Any, tmp_path: Path) -> None:
    run_case(WRITE, fake("SafeWriter"), base=tmp_path)
    run_case(READ, fake("SafeWriter"), base=tmp_path)
    assert settle() == []
    assert os.listdir(tmp_path) == []  # the case's tree was removed, link and all


def test_check_then_write_is_caught_changing_what_lies_outside(fake: Any) -> None:
    with pytest.raises(CaseFailure, match=r"changed what lies outside") as caught:
        run_case(WRITE, fake("CheckThenWrite"))
    assert "pwn.txt: created" in str(caught.value)


def test_check_then_read_is_caught_by_a_reply_the_step_does_not_allow(fake: Any) -> None:
    with pytest.raises(CaseFailure, match=r"none of the 2 the step allows") as caught:
        run_case(READ, fake("CheckThenWrite"))
    assert 'actual: "outside"' in str(caught.value)
    assert caught.value.signature == ("step 1: race (reply not allowed)",)


def test_each_send_gets_its_iteration_in_args_and_expectations(fake: Any) -> None:
    numbered = race_case(
        "demo.tool",
        {"path": "/memories/n${ITERATION}"},
        [
            {
                "result": {
                    "content": "The path /memories/n${ITERATION} does not exist",
                    "is_error": True,
                }
            }
        ],
        repeat=5,
    )
    run_case(numbered, fake("SafeWriter"))
    fixed = race_case(
        "demo.tool",
        {"path": "/memories/n${ITERATION}"},
        [{"result": {"content": "The path /memories/n0 does not exist", "is_error": True}}],
        repeat=5,
    )
    with pytest.raises(CaseFailure, match="none of the 1 the step allows"):
        run_case(fixed, fake("SafeWriter"))


def test_race_steps_are_linted() -> None:
    plain = {"op": "demo.put_in", "args": {}}
    data = {
        "id": "demo/harness/race",
        "description": "d",
        "requirements": ["DEMO-ECHO-001"],
        "steps": [
            {**plain, "race": RACE, "crash_points": True, "expect": {"any_of": [{"result": 1}]}},
            {**plain, "race": RACE, "expect": {"result": 1}},
        ],
    }
    assert _case_problems(case_from_json(data), "w") == [
        "w: step 1 has crash_points but no expected tree",
        "w: step 1 races and is concurrent or has crash points",
        "w: races but does not list symlinks in requires",
        "w: step 2 races but does not expect any_of",
        "w: races but does not list symlinks in requires",
    ]


def test_a_race_goes_on_past_its_old_hundred_sends_and_ends_at_the_one_that_gives_it_away(
    fake: Any,
) -> None:
    from race_fakes import GivenAwayLate

    GivenAwayLate.calls = 0
    late = race_case(
        "demo.put_in",
        {"dir": "d", "name": "pwn${ITERATION}.txt", "text": "x"},
        [{"result": "ok"}, {"error": {"kind": "path-escape"}}],
        repeat=1000,
    )
    with pytest.raises(CaseFailure, match=r"send (\d+) of at most 1000 changed") as caught:
        run_case(late, fake("GivenAwayLate"))
    sent = int(caught.value.args[0].split("send ")[1].split(" ")[0])
    assert sent > GivenAwayLate.SOUND_SENDS
    assert GivenAwayLate.calls == sent  # nothing is sent once the op is given away


def test_a_sound_op_spends_the_sends_of_the_budget_and_no_more(fake: Any) -> None:
    from race_fakes import SlowSafeWriter

    SlowSafeWriter.calls = 0
    run_case(race_case(*WRITE_STEP, repeat=7), fake("SlowSafeWriter"))
    assert SlowSafeWriter.calls == 7


def test_a_sound_op_spends_the_seconds_of_the_budget_and_no_more(fake: Any) -> None:
    from race_fakes import SlowSafeWriter

    SlowSafeWriter.calls = 0
    started = time.monotonic()
    run_case(race_case(*WRITE_STEP, repeat=10000, seconds=0.5), fake("SlowSafeWriter"))
    assert time.monotonic() - started < 5
    assert 1 <= SlowSafeWriter.calls < 100


# The smallest share of sends that gives a vulnerable real implementation away, measured on
# two loaded cores (benchmarks/race_catch_rate.py), with a margin.
WORST_SHARE_OF_SENDS_CAUGHT = 1 / 50


@pytest.mark.parametrize("case", RACES, ids=[case.id for case in RACES])
def test_each_race_case_has_a_budget_that_misses_a_vulnerable_op_less_than_once_in_a_million(
    case: Case,
) -> None:
    (race,) = [step.race for step in case.steps if step.race is not None]
    assert (1 - WORST_SHARE_OF_SENDS_CAUGHT) ** race.repeat < 1e-6
    assert race.seconds >= 20  # at 30 ms a send (a starved racer), still 600 sends
