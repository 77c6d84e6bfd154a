"""Races decided in their first round: run observed, a case with a concurrent step or
readers is run once, with the adapter's processes slowed where lost updates and torn
readings happen, and memref itself passes after that one round. That the one round
catches memref without its locks or its atomic writes is test_concurrency_detection's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from memspec.corpus.cases import Case, load_cases
from memspec.run import runner
from memspec.run.runner import run_case
from memspec.wire.adapters import Adapter

CASES = [
    "hermes/concurrency/two-writers-duplicate-once",
    "memorytool/writes/concurrent-replace-once",
    "memories/create/readers-see-whole-creates",
    "memorytool/writes/reader-beside-adds",
]


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
def test_memref_passes_after_one_round(
    case_id: str, rounds: list[Path], reference: Adapter
) -> None:
    run_case(_case(case_id), reference, observed=True)
    assert len(rounds) == 1


def test_unobserved_the_rounds_run_to_their_budget(rounds: list[Path], reference: Adapter) -> None:
    run_case(_case("memories/create/readers-see-whole-creates"), reference)
    assert len(rounds) > 1
