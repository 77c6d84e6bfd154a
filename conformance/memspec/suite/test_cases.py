"""Every fixture case below fixtures/, one test each, named by its case id; and the
crash-point enumeration of every step marked ``crash_points``."""

from __future__ import annotations

from collections.abc import Callable

from memspec.corpus.cases import Case


def test_case(memspec_case: Case, memspec_run: Callable[[Case], None]) -> None:
    memspec_run(memspec_case)


def test_crash_points(
    memspec_crash_case: tuple[Case, int], memspec_crash_run: Callable[[Case, int], None]
) -> None:
    case, index = memspec_crash_case
    memspec_crash_run(case, index)
