"""The pytest fixtures the suite's tests use: the adapter under test, a case runner, the
crash-points runner, the claim check and the snapshot assertion."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from memspec.corpus.cases import Case
from memspec.corpus.data import fixtures_dir
from memspec.corpus.profiles import PROTOCOL
from memspec.exceptions import AdapterBroken
from memspec.plugin.run_state import run_state
from memspec.plugin.verdicts import run_judged
from memspec.run.crash_faults import FAULT_MODELS, ObservedFaults, close_observed_adapters
from memspec.run.runner import run_case, run_crash_points
from memspec.run.scratch import settle_in_time
from memspec.wire.adapters import Adapter, drain_threads, stdin_pipes
from memspec.wire.processes import still_running

THOROUGH = "memspec-thorough"
"""The Hypothesis profile in which the observer also kills the adapter at each point."""

__all__ = [
    "memspec_adapter",
    "memspec_claims",
    "memspec_crash_run",
    "memspec_run",
    "memspec_snapshot",
]


@pytest.fixture(scope="session")
def memspec_adapter(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    """The adapter under test, started once per session (and once per xdist worker)."""
    state = run_state(request.config)
    adapter = state.adapter()
    try:
        state.implementation = dict(adapter.handshake.implementation)
    except AdapterBroken as exc:
        state.broken = str(exc)
        pytest.exit(f"adapter broken: {exc}", returncode=3)
    yield adapter
    try:
        threads = state.threads_at_start | drain_threads()
        settle_in_time(quiet=still_running(threads, stdin_pipes()) is None)
    finally:
        try:
            adapter.close()
        finally:
            close_observed_adapters()
            state.problems.extend(f"protocol: {line}" for line in adapter.late_output)


@pytest.fixture
def memspec_claims(request: pytest.FixtureRequest) -> None:
    """Skip a registered suite test whose profile the adapter does not claim."""
    marker = request.node.get_closest_marker("memspec_profile")
    if marker is None or marker.args[0] == PROTOCOL:
        return
    adapter: Adapter = request.getfixturevalue("memspec_adapter")
    if marker.args[0] not in adapter.handshake.profiles:
        pytest.skip(f"not claimed: profile {marker.args[0]!r}")
    meta = dict(request.node.user_properties).get("memspec_case")
    ops = meta.get("ops", []) if isinstance(meta, dict) else []
    unclaimed = [op for op in ops if not adapter.handshake.claims_op(str(op))]
    if unclaimed:
        pytest.skip(f"not claimed: op {', '.join(map(str, unclaimed))}")


@pytest.fixture
def memspec_snapshot(request: pytest.FixtureRequest) -> Any:
    """A syrupy assertion storing JSON under ``fixtures/<profile>/_snapshots/``."""
    from syrupy.extensions.json import JSONSnapshotExtension

    marker = request.node.get_closest_marker("memspec_profile")
    profile = str(marker.args[0]) if marker else "unknown"
    directory = str(fixtures_dir() / profile / "_snapshots")

    class ProfileSnapshots(JSONSnapshotExtension):
        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return directory

    return request.getfixturevalue("snapshot").use_extension(ProfileSnapshots)


def _provided(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The capabilities the harness provides itself: ``fault-injection`` when it observes
    the adapter's system calls."""
    return () if run_state(request.config).observer_off() else ("fault-injection",)


@pytest.fixture
def memspec_run(memspec_adapter: Adapter, request: pytest.FixtureRequest) -> Any:
    """Run a case through the adapter; a wrong answer fails, a fault errors."""

    def run(case: Case) -> None:
        run_judged(
            memspec_adapter,
            case,
            lambda: run_case(case, memspec_adapter, observed=bool(_provided(request))),
            provided=_provided(request),
        )

    return run


@pytest.fixture
def memspec_crash_run(memspec_adapter: Adapter, request: pytest.FixtureRequest) -> Any:
    """Enumerate the crash points of one step of a case: through the observer, which
    fails each mutating call itself (and, in the thorough profile, kills the adapter at
    each), or else through the adapter's own ``fault-injection``."""

    def run(case: Case, index: int) -> None:
        if run_state(request.config).observer_off() is not None:
            points = run_judged(
                memspec_adapter,
                case,
                lambda: run_crash_points(case, memspec_adapter, index),
                needs="fault-injection",
            )
            request.node.user_properties.append(("memspec_note", f"{points} crash points"))
            return
        models = FAULT_MODELS if settings.get_current_profile_name() == THOROUGH else ("error",)
        notes = []
        for model in models:
            points = run_judged(
                memspec_adapter,
                case,
                functools.partial(
                    run_crash_points, case, memspec_adapter, index, injector=ObservedFaults(model)
                ),
                provided=_provided(request),
            )
            notes.append(f"{points} crash points observed ({model})")
        request.node.user_properties.append(("memspec_note", ", ".join(notes)))

    return run
