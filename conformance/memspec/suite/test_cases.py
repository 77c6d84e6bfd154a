"""Every fixture case below fixtures/, one test each, named by its case id."""

from __future__ import annotations

from collections.abc import Callable

from memspec.cases import Case


def test_case(memspec_case: Case, memspec_run: Callable[[Case], None]) -> None:
    memspec_run(memspec_case)
