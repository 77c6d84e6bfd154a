"""A misbehaving adapter fails its own cases and nothing else; the run always finishes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import Runner, demo_records, fake_cmd, outcomes
from freezegun import freeze_time

from memspec.exceptions import AdapterBroken, AdapterCrashed, AdapterTimeout, ProtocolViolation
from memspec.reports.report import read_report
from memspec.wire.adapters import Adapter

BANGS = {"demo/echo/bang-one", "demo/echo/bang-two"}
CALM = {"demo/echo/plain", "demo/echo/number", "demo/echo/list", "demo/echo/after-bangs"}


@pytest.mark.parametrize(
    ("mode", "bang_outcome", "message_part"),
    [
        ("crash", "error", "adapter exited (exit code 7)"),
        ("hang", "error", "no answer within 0.5 s"),
        ("garbage", "error", "this is not JSON {"),
        ("wrong", "failed", 'actual:   "wrong"'),
        ("bad-id", "error", "does not echo request id"),
    ],
)
def test_each_fault_is_reported_on_its_case_and_the_run_goes_on(
    mode: str,
    bang_outcome: str,
    message_part: str,
    demo_env: dict[str, str],
    memspec_cli: Runner,
    tmp_path: Path,
) -> None:
    report = tmp_path / "r.jsonl"
    started = time.monotonic()
    result = memspec_cli(
        "run",
        "--adapter",
        fake_cmd(mode),
        "--timeout",
        "0.5",
        "--report",
        str(report),
        env=demo_env,
    )
    assert time.monotonic() - started < 60
    assert result.returncode == 1, result.stderr
    seen = outcomes(report)
    assert {case for case in seen if seen[case] == bang_outcome} == BANGS
    assert all(seen[case] == "passed" for case in CALM)
    messages = {r["id"]: r["message"] for r in demo_records(report)}
    assert all(message_part in messages[case] for case in BANGS), messages


def test_stderr_chatter_is_not_a_failure(demo_env: dict[str, str], memspec_cli: Runner) -> None:
    result = memspec_cli("run", "--adapter", fake_cmd("stderr"), env=demo_env)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("mode", ["bad-start", "old-protocol"])
def test_a_broken_handshake_stops_the_run_with_exit_code_3(
    mode: str, demo_env: dict[str, str], memspec_cli: Runner
) -> None:
    result = memspec_cli("run", "--adapter", fake_cmd(mode), env=demo_env)
    assert result.returncode == 3
    assert "adapter broken" in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("fake", "outcome"),
    [("AlwaysWrong", "failed"), ("RaisesOnBang", "error"), ("UnknownErrorKind", "error")],
)
def test_in_process_fakes_are_judged_per_case(
    fake: str, outcome: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run", "--adapter", f"python:fakes:{fake}", "--report", str(report), env=demo_env
    )
    assert result.returncode == 1
    seen = outcomes(report)
    expected_bad = BANGS if fake == "RaisesOnBang" else BANGS | CALM
    assert {case for case, got in seen.items() if got == outcome} == expected_bad


def test_an_adapter_claiming_no_known_profile_is_broken(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run", "--adapter", "python:fakes:ClaimsNothing", "--report", str(report), env=demo_env
    )
    assert result.returncode == 3
    assert "it claimed []; the suite knows ['demo']" in result.stderr
    footer = read_report(report)[-1]
    assert footer["type"] == "footer" and "claimed []" in footer["adapter_broken"]
    smoke = memspec_cli("smoke", "--adapter", "python:fakes:ClaimsNothing", env=demo_env)
    assert smoke.returncode == 3 and "claims no profile" in smoke.stdout


def test_timeout_uses_a_real_clock_under_freezegun(
    demo_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter = Adapter(fake_cmd("hang"), timeout_s=0.5)
    wall = time.clock_gettime(time.CLOCK_MONOTONIC)
    try:
        with freeze_time("2001-02-03 04:05:06"):
            frozen = time.monotonic()
            with pytest.raises(AdapterTimeout):
                adapter.call("demo.echo", {"value": "!hang"})
            assert time.monotonic() == frozen  # the clock freezegun patches never moved
        assert adapter.call("demo.echo", {"value": "fine"}).result == "fine"
        assert adapter.restarts == 1
    finally:
        adapter.close()
    assert 0.5 <= time.clock_gettime(time.CLOCK_MONOTONIC) - wall < 30


def test_crash_restarts_and_replays_the_handshake() -> None:
    adapter = Adapter(fake_cmd("crash"), timeout_s=5)
    try:
        first = adapter.handshake
        with pytest.raises(AdapterCrashed):
            adapter.call("demo.echo", {"value": "!die"})
        assert adapter.call("demo.echo", {"value": "back"}).result == "back"
        assert adapter.handshake == first and adapter.restarts == 1
    finally:
        adapter.close()


def test_garbage_line_is_quoted_in_the_fault() -> None:
    adapter = Adapter(fake_cmd("garbage"), timeout_s=5)
    try:
        with pytest.raises(ProtocolViolation, match="this is not JSON"):
            adapter.call("demo.echo", {"value": "!x"})
    finally:
        adapter.close()


def test_a_command_that_does_not_exist_is_a_broken_adapter() -> None:
    adapter = Adapter("cmd:/nonexistent/adapter --flag", timeout_s=2)
    with pytest.raises(AdapterBroken, match="cannot start"):
        adapter.handshake  # noqa: B018
