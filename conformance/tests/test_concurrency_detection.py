"""Every concurrency case catches an implementation without its lock, every time.

Each case of the corpus with a concurrent step or a held lock must fail against memref
with its locks and exclusive claims taken out (``unserialised.unlocked``); a case with
readers must also fail against the memory tools writing in place (``in_place``).

A held lock is the harness's own, so such a case is decided in one run, in process. A
concurrent step or readers make a verdict hang on how threads interleave: those cases are
run observed, against the flawed memref served out of process (``memref_variants.py
Flawed``), as a run with the observer runs every adapter, and each must be caught in its
first round. Without the observer (``--observer none``) they are sampled, which is
statistical: how often sampling catches each one, on a loaded machine, is measured by
``benchmarks/race_catch_rate.py --observer none --busy 2``. ``MEMSPEC_DETECTION_TRIALS``
runs each case that many times (1 by default).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from memref_variants import variant_cmd
from unserialised import UNLOCKED_OPS, unlocked

from memspec.corpus.cases import Case, load_cases
from memspec.exceptions import CaseFailure
from memspec.run.runner import concurrency_rounds, run_case
from memspec.wire.adapters import Adapter

TRIALS = int(os.environ.get("MEMSPEC_DETECTION_TRIALS", "1"))

CONCURRENT = [
    case for case in load_cases() if any(step.concurrent or step.hold_lock for step in case.steps)
]
WITH_READERS = [case for case in load_cases() if any(step.readers for step in case.steps)]
LOCK_HELD = [case for case in CONCURRENT if concurrency_rounds(case) == 1]
INTERLEAVED = [case for case in CONCURRENT if concurrency_rounds(case) > 1]


@pytest.fixture(scope="module")
def reference() -> Iterator[Adapter]:
    adapter = Adapter("reference")
    yield adapter
    adapter.close()


@pytest.fixture(scope="module")
def flawed() -> Iterator[dict[str, Adapter]]:
    adapters = {flaw: Adapter(variant_cmd("Flawed", flaw)) for flaw in ("unlocked", "in_place")}
    yield adapters
    for adapter in adapters.values():
        adapter.close()


def _caught_in_the_first_round(case: Case, adapter: Adapter) -> None:
    for _ in range(TRIALS):
        with pytest.raises(CaseFailure) as caught:
            run_case(case, adapter, observed=True)
        assert "(round" not in str(caught.value)


def test_the_corpus_has_concurrency_cases_and_each_has_an_unlocked_variant() -> None:
    assert LOCK_HELD and INTERLEAVED and WITH_READERS
    ops = {
        step.op for case in CONCURRENT for step in case.steps if step.concurrent or step.hold_lock
    }
    assert ops <= UNLOCKED_OPS, f"no unlocked variant of {sorted(ops - UNLOCKED_OPS)}"


@pytest.mark.parametrize("case", LOCK_HELD, ids=[case.id for case in LOCK_HELD])
def test_each_case_with_a_held_lock_catches_a_write_without_it(
    case: Case, reference: Adapter
) -> None:
    with unlocked():
        for _ in range(TRIALS):
            with pytest.raises(CaseFailure):
                run_case(case, reference)


@pytest.mark.parametrize("case", INTERLEAVED, ids=[case.id for case in INTERLEAVED])
def test_each_concurrency_case_catches_an_unlocked_read_modify_write(
    case: Case, flawed: dict[str, Adapter]
) -> None:
    _caught_in_the_first_round(case, flawed["unlocked"])


@pytest.mark.parametrize("case", WITH_READERS, ids=[case.id for case in WITH_READERS])
def test_each_case_with_readers_catches_a_write_in_place(
    case: Case, flawed: dict[str, Adapter]
) -> None:
    _caught_in_the_first_round(case, flawed["in_place"])
