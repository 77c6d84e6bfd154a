"""Every concurrency case catches an implementation without its lock, nearly every time.

Each case of the corpus with a concurrent step or a held lock is run against memref with
its locks and exclusive claims taken out (``unserialised.unlocked``) and must fail; a
case with readers must also fail against the memory tool writing in place (``in_place``). The
number of runs per case is ``MEMSPEC_DETECTION_TRIALS`` (3 by default, to stay fast);
the figures quoted for the suite are measured with 100, where at most one run may miss:

    MEMSPEC_DETECTION_TRIALS=100 pytest -n 0 -s conformance/tests/test_concurrency_detection.py
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest
from unserialised import UNLOCKED_OPS, in_place, unlocked

from memspec.corpus.cases import Case, load_cases
from memspec.exceptions import CaseFailure, CaseFault
from memspec.run.runner import run_case
from memspec.wire.adapters import Adapter

TRIALS = int(os.environ.get("MEMSPEC_DETECTION_TRIALS", "3"))

CONCURRENT = [
    case for case in load_cases() if any(step.concurrent or step.hold_lock for step in case.steps)
]
WITH_READERS = [case for case in load_cases() if any(step.readers for step in case.steps)]


def allowed_misses(trials: int) -> int:
    """At least 99 in 100 runs must catch the flaw; a short run of three or more may miss
    once (a case that catches it 99 times in 100 then fails such a run once in 3,000)."""
    return max(1 if trials >= 3 else 0, trials // 100)


def caught(case: Case, flaw: Callable[[], AbstractContextManager[None]], trials: int) -> int:
    adapter = Adapter("reference")
    found = 0
    try:
        with flaw():
            for _ in range(trials):
                try:
                    run_case(case, adapter)
                except (CaseFailure, CaseFault):
                    found += 1
    finally:
        adapter.close()
    return found


def _measure(case: Case, flaw: Callable[[], AbstractContextManager[None]], name: str) -> None:
    found = caught(case, flaw, TRIALS)
    print(f"\n{case.id}: caught {found} of {TRIALS} runs ({name})")
    assert TRIALS - found <= allowed_misses(TRIALS), f"{case.id} caught {found} of {TRIALS}"


def test_the_corpus_has_concurrency_cases_and_each_has_an_unlocked_variant() -> None:
    assert CONCURRENT and WITH_READERS
    ops = {
        step.op for case in CONCURRENT for step in case.steps if step.concurrent or step.hold_lock
    }
    assert ops <= UNLOCKED_OPS, f"no unlocked variant of {sorted(ops - UNLOCKED_OPS)}"


@pytest.mark.parametrize("case", CONCURRENT, ids=[case.id for case in CONCURRENT])
def test_each_concurrency_case_catches_an_unlocked_read_modify_write(case: Case) -> None:
    _measure(case, unlocked, "unlocked")


@pytest.mark.parametrize("case", WITH_READERS, ids=[case.id for case in WITH_READERS])
def test_each_case_with_readers_catches_a_write_in_place(case: Case) -> None:
    _measure(case, in_place, "written in place")
