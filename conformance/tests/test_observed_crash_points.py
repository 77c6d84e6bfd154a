"""Crash points decided by the observer: the harness fails (or kills the adapter at) each
mutating system call a crash-points step makes in the case's tree, for an adapter that
claims nothing, through any wrapper.

memref whose memory tools write in place (``memref_variants.py Flawed torn``), served behind
a proxy process that claims no ``fault-injection``, must be caught in each of the four
memory profiles; memref itself, served from a child or behind the same proxy, passes
with the same points.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import HERE, Runner

from memspec.corpus.cases import Case, load_cases
from memspec.exceptions import CaseFailure
from memspec.observe.served import served_spec
from memspec.observe.strace import DELAYS, _ended, attached, unavailable_reason
from memspec.observe.trace import parse_calls, paths, tree_mutations
from memspec.reports.report import read_report
from memspec.run.crash_faults import ObservedFaults, Retry
from memspec.run.runner import crash_point_steps, run_crash_points
from memspec.wire.adapters import Adapter

PROXY = f"{sys.executable} {HERE / 'proxy_adapter.py'}"
IN_PLACE = f"cmd:{PROXY} {sys.executable} {HERE / 'memref_variants.py'} Flawed torn"
PROXIED_REFERENCE = f"cmd:{PROXY} {sys.executable} -m memspec serve-reference"

# The crash-point cases whose step writes a memory file (the others delete or rename).
CAUGHT = {
    "memories": ["memories/create/crash-points-plain", "memories/str-replace/crash-points"],
    "memorytool": [
        "memorytool/writes/crash-points-create",
        "memorytool/writes/crash-points-replace",
    ],
    "hermes": ["hermes/files/crash-points-add", "hermes/files/crash-points-drift-backup"],
    "automemory": ["automemory/writer/write-new", "automemory/writer/write-replaces"],
}


def _case(case_id: str) -> Case:
    (case,) = [c for c in load_cases(profiles={case_id.split("/")[0]}) if c.id == case_id]
    return case


def _points(case: Case, adapter: Adapter, model: str = "error") -> int:
    (index,) = crash_point_steps(case)
    return run_crash_points(case, adapter, index, injector=ObservedFaults(model))


def test_the_observer_runs_here() -> None:
    assert unavailable_reason() is None


def test_a_slowed_process_forking_all_the_while_is_let_go() -> None:
    """strace, asked to detach while a process is in ``vfork`` and the child it made is
    stopped for strace, can wait for ever: the harness kills it, and the kernel lets the
    processes go on (a ``git`` started by a slowed concurrent step hung the step)."""
    spawner = subprocess.Popen(
        [sys.executable, "-c", "import subprocess\nwhile True: subprocess.run(['true'])"],
        start_new_session=True,
    )
    try:
        time.sleep(0.3)
        for _ in range(10):
            with attached((spawner.pid,), None, DELAYS):
                time.sleep(0.05)
            with open(f"/proc/{spawner.pid}/stat", encoding="ascii") as stat:
                state = stat.read().rsplit(") ", 1)[1][0]
            assert state not in "tT", "the process was left stopped"
    finally:
        os.killpg(spawner.pid, signal.SIGKILL)
        spawner.wait()


def test_the_end_of_a_tracer_is_waited_for_as_it_happens() -> None:
    sleeper = subprocess.Popen(["sleep", "30"])
    started = time.monotonic()
    assert not _ended(sleeper, 0.2) and sleeper.returncode is None
    assert time.monotonic() - started >= 0.2
    sleeper.kill()
    assert _ended(sleeper, 10) and sleeper.returncode == -signal.SIGKILL  # reaped
    assert _ended(sleeper, 10)  # already reaped: at once


def test_a_tracer_another_thread_is_reaping_has_ended() -> None:
    """A slowed step's timer and the step itself may both detach: the one that does not
    reap the tracer waits for the one that does, instead of calling it alive."""
    tracer = subprocess.Popen(["true"])
    os.waitid(os.P_PID, tracer.pid, os.WEXITED | os.WNOWAIT)  # ended, not yet reaped
    said: list[bool] = []
    with tracer._waitpid_lock:  # as Popen.wait holds it in the thread that reaps
        waiting = threading.Thread(target=lambda: said.append(_ended(tracer, 5.0)))
        waiting.start()
        time.sleep(0.02)
        tracer.returncode = os.waitstatus_to_exitcode(os.waitpid(tracer.pid, 0)[1])
    waiting.join()
    assert said == [True]


@pytest.fixture(scope="module")
def in_place() -> Adapter:
    adapter = Adapter(IN_PLACE)
    assert "fault-injection" not in adapter.handshake.capabilities
    return adapter


@pytest.mark.parametrize("profile", sorted(CAUGHT))
def test_an_in_place_writer_claiming_nothing_is_caught(profile: str, in_place: Adapter) -> None:
    for case_id in CAUGHT[profile]:
        with pytest.raises(CaseFailure) as caught:
            _points(_case(case_id), in_place)
        assert "mutation" in str(caught.value), case_id


class _CountingRetries(ObservedFaults):
    retries = 0

    def point(self, k: int, workdir: Path, call: Any) -> Any:
        try:
            return super().point(k, workdir, call)
        except Retry:
            self.retries += 1
            raise


def test_a_pool_worker_the_step_starts_is_traced_alone_from_the_first_point() -> None:
    """The step's request starts the one thread that makes its calls, and the thread lives
    on: from the first point on, that thread alone is traced, so that each point is placed
    at its first try (after the one uninterrupted run that counts the calls), never on the
    reply's namesake write in the main thread, though the temporary file's name changes
    from run to run."""
    case = _case("memories/str-replace/crash-points")
    (index,) = crash_point_steps(case)
    served = Adapter(served_spec("reference"))
    pooled = Adapter(f"cmd:{sys.executable} {HERE / 'memref_variants.py'} PoolWorker")
    try:
        injector = _CountingRetries()
        assert run_crash_points(case, pooled, index, injector=injector) == _points(case, served)
        assert injector.retries == 1
    finally:
        served.close()
        pooled.close()


def test_a_torn_write_shows_as_a_mixed_state(in_place: Adapter) -> None:
    with pytest.raises(CaseFailure) as caught:
        _points(_case("automemory/writer/write-replaces"), in_place)
    text = str(caught.value)
    assert "the state is neither the one before the step nor the expected one" in text
    assert "(write)" in text


@pytest.mark.parametrize(
    "case_id", [ids[0] for ids in CAUGHT.values()] + ["turnlog/store/upsert-crash-points"]
)
def test_memref_behind_a_proxy_gets_the_verdicts_it_gets_served_from_a_child(
    case_id: str,
) -> None:
    case = _case(case_id)
    proxied, served = Adapter(PROXIED_REFERENCE), Adapter("reference")
    try:
        assert "fault-injection" not in proxied.handshake.capabilities
        points = _points(case, proxied)
        assert points >= 3
        assert _points(case, served) == points
    finally:
        proxied.close()
        served.close()


def test_killed_at_each_point_memref_is_whole_and_a_new_process_finishes() -> None:
    adapter = Adapter(PROXIED_REFERENCE)
    try:
        assert _points(_case("hermes/files/crash-points-add"), adapter, "kill") >= 3
        assert adapter.restarts >= 3
    finally:
        adapter.close()


def test_killed_at_a_write_an_in_place_writer_is_caught(in_place: Adapter) -> None:
    with pytest.raises(CaseFailure) as caught:
        _points(_case("automemory/writer/write-new"), in_place, "kill")
    assert "killing the adapter at mutation" in str(caught.value)


def test_an_in_process_adapter_is_served_from_a_child() -> None:
    assert served_spec("cmd:x y") == "cmd:x y"
    assert served_spec("reference").endswith("-m memspec serve-reference")
    assert "-m memspec.observe.served memref_variants Base64Text" in served_spec(
        "python:memref_variants:Base64Text"
    )


TRACE = """\
700   openat(AT_FDCWD</w>, "/t/a.tmp", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0600) = 3</t/a.tmp>
700   openat(AT_FDCWD</w>, "/t/a", O_RDONLY|O_CLOEXEC) = 4</t/a>
701   write(5</t/b>, ""..., 5 <unfinished ...>
700   write(3</t/a.tmp>, ""..., 5) = -1 EIO (Input/output error) (INJECTED)
701   <... write resumed>) = 5
700   write(1<pipe:[9]>, ""..., 2) = 2
700   rename("/t/a.tmp", "/t/a") = 0
700   openat(AT_FDCWD</w>, "/tx/a", O_WRONLY|O_CREAT, 0600) = 3</tx/a>
701   fsync(5</t/b> <unfinished ...>
701   +++ killed by SIGKILL +++
700   +++ exited with 0 +++
"""


def test_a_call_another_thread_interrupted_takes_its_result_from_its_resumption() -> None:
    calls = parse_calls(
        '702   write(6</t/c>, ""..., 5) = -1 EIO (Input/output error) (INJECTED)\n'
        '700   write(1<pipe:[9]>, ""..., 88 <unfinished ...>\n'
        "702   fsync(6</t/c>) = 0\n"
        "700   <... write resumed>) = -1 EIO (Input/output error) (INJECTED)\n"
        '701   openat(AT_FDCWD</w>, "/t/d", O_WRONLY|O_CREAT, 0600 <unfinished ...>\n'
        "701   <... openat resumed>) = 7</t/d>\n"
    )
    assert [(c.tid, c.name, c.injected) for c in calls] == [
        (702, "write", True),
        (700, "write", True),
        (702, "fsync", False),
        (701, "openat", False),
    ]
    assert calls[1].text == '1<pipe:[9]>, ""..., 88) = -1 EIO (Input/output error) (INJECTED)'
    assert calls[3].text.endswith("0600) = 7</t/d>")
    assert [c.name for c in tree_mutations(calls, ("/t",))] == ["write", "fsync", "openat"]


def test_a_trace_of_one_thread_has_no_thread_ids() -> None:
    calls = parse_calls('write(3</t/a>, ""..., 5) = -1 EIO (Input/output error) (INJECTED)\n')
    assert [(c.tid, c.name, c.ordinal, c.injected) for c in calls] == [(0, "write", 1, True)]


def test_the_mutations_of_a_tree_are_counted_per_thread_and_name() -> None:
    calls = parse_calls(TRACE)
    assert [(c.tid, c.name, c.ordinal) for c in calls] == [
        (700, "openat", 1),
        (700, "openat", 2),
        (701, "write", 1),
        (700, "write", 1),
        (700, "write", 2),
        (700, "rename", 1),
        (700, "openat", 3),
        (701, "fsync", 1),
    ]
    mutations = tree_mutations(calls, ("/t",))
    assert [(c.tid, c.name, c.ordinal, c.injected) for c in mutations] == [
        (700, "openat", 1, False),
        (701, "write", 1, False),
        (700, "write", 1, True),
        (700, "rename", 1, False),
        (701, "fsync", 1, True),
    ]


def test_a_name_given_relative_to_a_directory_names_the_path_in_it() -> None:
    (opened, renamed, written) = parse_calls(
        'openat(3</t/m>, "d", O_RDONLY|O_DIRECTORY) = 4</t/m/d>\n'
        'renameat(4</t/m/d>, "a.tmp", 5</o>, "/abs/b") = 0\n'
        'write(6</t/m/d/a>, "d"..., 1) = 1\n'
    )
    assert paths(opened) == ["/t/m", "d", "/t/m/d"]
    assert paths(renamed) == ["/t/m/d", "/o", "a.tmp", "/abs/b", "/t/m/d/a.tmp"]
    assert paths(written) == ["/t/m/d/a"]


@pytest.mark.parametrize("observer", ["strace", "none"])
def test_the_observer_option_decides_who_fails_the_mutations(
    observer: str, memspec_cli: Runner, tmp_path: Path
) -> None:
    report = tmp_path / "report.jsonl"
    summary = tmp_path / "summary.md"
    result = memspec_cli(
        "run", "--adapter", PROXIED_REFERENCE, "--case", "hermes/files/crash-points-add",
        "--case", "hermes/files/crash-points-add/crash-points",
        "--case", "hermes/budget/add-length-not-grouped",
        "--observer", observer, "--report", str(report), "--summary", str(summary),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    lines = read_report(report)
    settings = lines[0]["settings"]
    assert settings["observer"] == observer
    (record,) = [r for r in lines if r.get("id") == "hermes/files/crash-points-add/crash-points"]
    (ordinary,) = [r for r in lines if r.get("id") == "hermes/files/crash-points-add"]
    assert "Statistical verdicts:" in summary.read_text("utf-8")
    assert "statistical verdicts: " in result.stdout
    if observer == "strace":
        assert ordinary["outcome"] == record["outcome"] == "passed"
        assert record["message"].endswith("crash points observed (error)")
        assert settings["statistical"] == (
            "none: the observer decides crash points, concurrency, readers and races"
        )
    else:
        # The case itself needs no capability; only its crash points need the faults.
        assert (ordinary["outcome"], record["outcome"]) == ("passed", "skipped")
        assert record["message"] == "not claimed: capability fault-injection"
        assert "no observer: --observer none" in settings["statistical"]


def test_an_unknown_observer_is_a_usage_error(memspec_cli: Runner) -> None:
    result = memspec_cli("run", "--observer", "ptrace")
    assert result.returncode == 2
    assert "--observer" in result.stderr
