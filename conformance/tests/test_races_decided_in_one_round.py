"""Races decided in their first round: run observed, a case with a concurrent step or
readers is run once, with the adapter's processes slowed where lost updates and torn
readings happen, and that one round catches memref without its locks or its atomic
writes, every time, while memref itself passes after one round."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from conftest import HERE

from memspec.corpus.cases import Case, load_cases
from memspec.exceptions import CaseFailure
from memspec.run import runner
from memspec.run.runner import run_case
from memspec.wire.adapters import Adapter

VARIANTS = f"cmd:{sys.executable} {HERE / 'memref_variants.py'} Flawed"
CASES = {
    "hermes/concurrency/two-writers-duplicate-once": "unlocked",
    "memorytool/writes/concurrent-replace-once": "unlocked",
    "memories/create/readers-see-whole-creates": "in_place",
    "memorytool/writes/reader-beside-adds": "in_place",
}
TRIALS = 3


def _case(case_id: str) -> Case:
    (case,) = [c for c in load_cases(profiles={case_id.split("/")[0]}) if c.id == case_id]
    return case


@pytest.fixture
def rounds(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The trees the runner builds, one a round."""
    built: list[Path] = []
    real = runner.case_tree

    def counted(*args: Any, **kwargs: Any) -> AbstractContextManager[Path]:
        tree = real(*args, **kwargs)

        class Counted:
            def __enter__(self) -> Path:
                built.append(tree.__enter__())
                return built[-1]

            def __exit__(self, *exc: Any) -> Any:
                return tree.__exit__(*exc)

        return Counted()

    monkeypatch.setattr(runner, "case_tree", counted)
    return built


@pytest.fixture(scope="module")
def reference() -> Iterator[Adapter]:
    adapter = Adapter("reference")
    yield adapter
    adapter.close()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_a_flawed_memref_is_caught_in_the_first_round_every_time(
    case_id: str, rounds: list[Path]
) -> None:
    adapter = Adapter(f"{VARIANTS} {CASES[case_id]}")
    try:
        for trial in range(TRIALS):
            with pytest.raises(CaseFailure) as caught:
                run_case(_case(case_id), adapter, observed=True)
            assert "(round" not in str(caught.value)
            assert len(rounds) == trial + 1
    finally:
        adapter.close()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_memref_passes_after_one_round(
    case_id: str, rounds: list[Path], reference: Adapter
) -> None:
    run_case(_case(case_id), reference, observed=True)
    assert len(rounds) == 1


def test_unobserved_the_rounds_run_to_their_budget(rounds: list[Path], reference: Adapter) -> None:
    run_case(_case("memories/create/readers-see-whole-creates"), reference)
    assert len(rounds) > 1
