"""The harness under a hostile adapter: nothing of the host deleted, read, chowned or
kept running, and every fault blamed on the party that caused it.

Every test runs between two canaries, a directory beside the run's temporary folders and
one in ``$HOME``, which must be unchanged after it, and no process of a hostile adapter
may outlive it."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import HERE, Runner, demo_environment, demo_records, run_memspec

from memspec.corpus.cases import Case, case_from_json
from memspec.exceptions import AdapterBroken, CaseFailure, CaseFault, ProtocolViolation
from memspec.run import runner, scratch, trees
from memspec.run.runner import run_case
from memspec.run.trees import hand_over, remove_tree
from memspec.wire import adapters
from memspec.wire.adapters import Adapter
from memspec.wire.working_directory import scratch_base, working_directory

HOSTILE = HERE / "hostile_adapter.py"
BANGS = {"demo/echo/bang-one", "demo/echo/bang-two"}


def confinement() -> tuple[str, ...]:
    return tuple(getattr(adapters, "confinement", lambda: ())())


def hostile_cmd(mode: str) -> str:
    return f"cmd:{sys.executable} {HOSTILE} {mode}"


def _snapshot(root: Path) -> dict[str, tuple[int, int, int, bytes]]:
    found = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(directory, name)
            info = path.lstat()
            content = path.read_bytes() if stat.S_ISREG(info.st_mode) else b""
            found[str(path.relative_to(root))] = (info.st_mode, info.st_uid, info.st_gid, content)
    return found


def _canary(parent: Path) -> Path:
    canary = Path(tempfile.mkdtemp(prefix="memspec-canary-", dir=parent))
    (canary / "private").mkdir(mode=0o700)
    (canary / "private" / "secret").write_text("root only\n")
    (canary / "private" / "secret").chmod(0o600)
    (canary / "shared").mkdir()
    (canary / "shared" / "note").write_text("note\n")
    return canary


# Every process these tests start inherits it, whatever session it moves to: it names the
# processes of this test session alone among those of the host.
TOKEN = f"MEMSPEC_HOSTILE_TOKEN=hostile-{os.getpid()}-{time.time_ns()}"
os.environ[TOKEN.split("=")[0]] = TOKEN.split("=")[1]


def hostile_processes() -> list[int]:
    """Processes these tests started (memspec runs, adapters, whatever they forked) that
    still run."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            environment = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
            fields = Path(f"/proc/{name}/stat").read_bytes().rpartition(b")")[2].split()
        except OSError:
            continue
        if TOKEN.encode() in environment and fields[0] != b"Z":
            found.append(int(name))
    return found


@pytest.fixture
def forked_commands() -> bool:
    """New interpreters: ``hostile_processes`` knows the fakes' processes by their
    environment at exec, which a forked command does not pass on."""
    return False


@pytest.fixture(autouse=True)
def canaries() -> Iterator[tuple[Path, Path]]:
    """Two canaries, unchanged after the test; no process of the fakes left running."""
    beside = _canary(scratch_base())
    home = _canary(Path.home())
    before = (_snapshot(beside), _snapshot(home))
    try:
        yield beside, home
        assert (_snapshot(beside), _snapshot(home)) == before
        assert hostile_processes() == []
    finally:
        for canary in (beside, home):
            remove_tree(canary)


def case(**fields: Any) -> Case:
    base = {"id": "demo/harness/hostile", "description": "d", "requirements": ["DEMO-ECHO-001"]}
    return case_from_json({**base, **fields})


@pytest.fixture
def hostile() -> Iterator[Callable[..., Adapter]]:
    adapters: list[Adapter] = []

    def make(owner: tuple[int, int] | None = None) -> Adapter:
        adapters.append(Adapter("python:hostile_fakes:Hostile", tree_owner=owner))
        return adapters[-1]

    yield make
    for adapter in adapters:
        adapter.close()


def _attack(readers: dict[str, Any] | None = None, **args: Any) -> Case:
    expect = {"result": "ok", "tree": {"f.md": {"text": "whole\n"}}}
    step: dict[str, Any] = {"op": "demo.attack", "args": args, "expect": expect}
    if readers is not None:
        step["readers"] = {"text_pattern": "whole\n", **readers}
    return case(tree={"f.md": {"text": "whole\n"}}, steps=[step])


# 1. Every walk of a folder the adapter can write goes through descriptors.


def test_the_working_folder_swapped_for_a_link_mid_check_deletes_nothing_behind_it(
    hostile: Callable[..., Adapter],
    canaries: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The adapter leaves files in its working folder and wins the race against the
    check: the folder becomes a link to a directory of the host between the check's
    reading and its cleanup. Nothing behind the link is deleted."""
    beside, _ = canaries
    folder = working_directory()
    real = scratch.tree_changes

    def swapped_meanwhile(*args: Any, **kwargs: Any) -> list[str]:
        moved = folder.with_name(folder.name + ".moved")
        os.rename(folder, moved)
        os.symlink(beside / "private", folder)
        return real(*args, **kwargs)

    monkeypatch.setattr(scratch, "tree_changes", swapped_meanwhile)
    adapter = hostile()
    try:
        with pytest.raises(CaseFailure, match="changed what lies outside"):
            run_case(
                case(op="demo.put", args={"path": "left.md", "text": "x"}, expect={"result": "ok"}),
                adapter,
            )
    finally:
        monkeypatch.undo()
        moved = folder.with_name(folder.name + ".moved")
        if moved.exists():
            remove_tree(moved)
    assert (beside / "private" / "secret").read_text() == "root only\n"
    assert folder.is_dir() and not folder.is_symlink() and list(folder.iterdir()) == []


def test_hand_over_changes_every_owner_through_a_descriptor_and_the_root_last(
    tmp_path: Path,
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to change owners")
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "f").write_text("x")
    os.symlink("/etc/passwd", tree / "link")
    calls: list[tuple[Any, ...]] = []

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "os.chown" and watching:
            calls.append(args)

    watching = True
    sys.addaudithook(audit)
    try:
        hand_over(tree, (65534, 65534))
    finally:
        watching = False
    # (path, uid, gid, dir_fd): a name only ever relative to an open directory, or an
    # open descriptor; never a path the adapter's user could redirect. Files and links
    # first, then each directory deepest first, the root last.
    assert len(calls) == 5
    assert all(isinstance(path, int) or ("/" not in path and fd != -1) for path, _, _, fd in calls)
    assert [isinstance(path, int) for path, _, _, _ in calls] == [False, False, True, True, True]
    assert os.stat("/etc/passwd").st_uid == 0
    assert all(p.lstat().st_uid == 65534 for p in [tree, *tree.rglob("*")])


# 2-4. Readers follow no link, never block, read a bounded amount, and never show a
# file the adapter's user could not read.


def _readers_problem(adapter: Adapter, **attack: Any) -> str:
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            run_case(_attack({"path": "f.md"}, path="${ROOT}/f.md", wait=0.3, **attack), adapter)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    assert outcome, "the run hangs"
    (error,) = outcome
    assert isinstance(error, CaseFailure), error
    return str(error)


def test_a_reader_does_not_follow_a_link_to_a_device(hostile: Callable[..., Adapter]) -> None:
    message = _readers_problem(hostile(), do="symlink", to="/dev/zero")
    assert "saw:      b'<a symbolic link: not followed>'" in message


def test_a_reader_reads_a_bounded_amount(hostile: Callable[..., Adapter]) -> None:
    message = _readers_problem(hostile(), do="big", size=3 << 20)
    assert "saw:      b'<larger than 1 MiB: not read>'" in message


def test_a_reader_never_blocks_on_a_fifo(hostile: Callable[..., Adapter]) -> None:
    message = _readers_problem(hostile(), do="fifo")
    assert "saw:      b'<not a regular file: not read>'" in message


@pytest.mark.parametrize("do", ["symlink", "hardlink"])
def test_a_reader_never_shows_a_file_the_adapters_user_could_not_read(
    do: str, hostile: Callable[..., Adapter], canaries: tuple[Path, Path]
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to hand trees over")
    secret = canaries[0] / "private" / "secret"
    message = _readers_problem(hostile((65534, 65534)), do=do, to=str(secret))
    assert "root only" not in message
    assert "not followed" in message or "does not own" in message


# 5. A fault the adapter's input, output or files caused is the adapter's.


def _cli_records(
    adapter: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path, *extra: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]]:
    report = tmp_path / "r.jsonl"
    result = memspec_cli("run", "--adapter", adapter, "--report", str(report), *extra,
                         env=demo_env, timeout=120)  # fmt: skip
    records = {r["id"]: r for r in demo_records(report)} if report.exists() else {}
    return result, records


@pytest.mark.parametrize(
    ("adapter", "signature", "words"),
    [
        (hostile_cmd("deep"), "no answer: protocol violation", "nested too deeply to read"),
        (hostile_cmd("deep-700"), "no answer: protocol violation", "more than 128 levels deep"),
        ("python:hostile_fakes:AnswersDeep", "no answer: protocol violation", "nested too deeply"),
        ("python:hostile_fakes:CallsSysExit", "no answer: crashed", "raised SystemExit"),
    ],
)
def test_a_reply_or_an_exit_that_breaks_the_harness_is_the_adapters_fault(
    adapter: str,
    signature: str,
    words: str,
    demo_env: dict[str, str],
    memspec_cli: Runner,
    tmp_path: Path,
) -> None:
    result, records = _cli_records(adapter, demo_env, memspec_cli, tmp_path)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr
    for case in BANGS:
        assert records[case]["outcome"] == "error", records[case]
        assert records[case]["signature"] == [signature], records[case]
        assert words in records[case]["message"]
    assert "harness fault" not in result.stdout + result.stderr


def test_a_full_disk_while_a_tree_is_built_is_the_adapters_fault(
    hostile: Callable[..., Adapter], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(runner, "materialise", full)
    with pytest.raises(CaseFault, match="No space left on device"):
        run_case(_attack(do="none"), hostile())


def test_directories_thousands_deep_fail_the_case_and_are_removed(
    hostile: Callable[..., Adapter], tmp_path: Path
) -> None:
    base = tmp_path / "runs"
    base.mkdir()
    with pytest.raises(CaseFailure, match=f"more than {trees.DEEPEST} levels deep"):
        run_case(_attack(do="deep", path="${ROOT}/deep", levels=3000), hostile(), base=base)
    assert list(base.iterdir()) == []


# 6. Nothing the adapter started outlives it, whatever session it moved to.


@pytest.mark.parametrize("command", ["run", "smoke"])
def test_a_child_in_a_session_of_its_own_ends_with_the_run(
    command: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    if not confinement():
        pytest.skip("this host gives adapters no PID namespace (not root, or no unshare)")
    pids = tmp_path / "pids"
    demo_env["MEMSPEC_FAKE_PIDS"] = str(pids)
    if command == "run":
        result, _ = _cli_records(hostile_cmd("setsid-child"), demo_env, memspec_cli, tmp_path)
    else:
        result = memspec_cli("smoke", "--adapter", hostile_cmd("setsid-at-start"), env=demo_env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    started = {int(pid) for pid in pids.read_text().split()}
    assert started  # a child for each bang
    assert not any(_alive(pid) for pid in started)
    written = pids.stat().st_size
    time.sleep(0.3)
    assert pids.stat().st_size == written


def test_a_child_an_in_process_adapter_leaves_in_a_session_of_its_own_ends_with_the_run(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    demo_env["MEMSPEC_FAKE_PIDS"] = str(pids)
    result, _ = _cli_records("python:hostile_fakes:LeavesASessionChild", demo_env, memspec_cli,
                             tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    started = {int(pid) for pid in pids.read_text().split()}
    assert started
    assert not any(_alive(pid) for pid in started)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
    except OSError:
        return False
    return state != b"Z"


# 8-9. An in-process adapter cannot end the run silently, nor keep it alive.


def test_an_in_process_adapter_that_ends_the_process_fails_the_run(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    scratch_tmp = tmp_path / "tmp"
    scratch_tmp.mkdir()
    demo_env["TMPDIR"] = str(scratch_tmp)
    result, _ = _cli_records("python:hostile_fakes:EndsTheProcess", demo_env, memspec_cli, tmp_path)
    assert result.returncode == 3
    assert "the run ended before it was done" in result.stderr
    assert "Traceback" not in result.stderr
    assert list(scratch_tmp.iterdir()) == []  # the working directory and trees included


def test_a_thread_an_in_process_adapter_leaves_neither_holds_the_run_nor_its_folders(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    scratch_tmp = tmp_path / "tmp"
    scratch_tmp.mkdir()
    demo_env["TMPDIR"] = str(scratch_tmp)
    started = time.monotonic()
    result, _records = _cli_records("python:hostile_fakes:LeavesAThread", demo_env, memspec_cli,
                                   tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert time.monotonic() - started < 100
    assert list(scratch_tmp.iterdir()) == []


# 10. A write through ../ of the working directory is seen.


def test_a_write_beside_the_working_directory_fails_the_case(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    scratch_tmp = tmp_path / "tmp"
    scratch_tmp.mkdir()
    demo_env["TMPDIR"] = str(scratch_tmp)
    result, records = _cli_records("python:hostile_fakes:WritesUp", demo_env, memspec_cli, tmp_path)
    assert result.returncode == 1
    for case in BANGS:
        assert records[case]["outcome"] == "failed"
        assert "../memspec-stray-" in records[case]["message"]
    assert list(scratch_tmp.iterdir()) == []


# 11-12. Protocol strictness.


def test_an_unasked_line_after_a_reply_is_not_the_next_reply() -> None:
    for mode in ("late-line", "late-twice"):
        adapter = Adapter(hostile_cmd(mode), timeout_s=5)
        try:
            assert adapter.call("demo.echo", {"value": "!x"}).result == "!x"
            time.sleep(0.3)
            assert adapter.call("demo.echo", {"value": "next"}).result == "next"
            assert adapter.call("demo.echo", {"value": "after"}).result == "after"
            (late,) = adapter.late_output
            assert re.match(
                r'request id 2 \(demo.echo \{"value": "!x"\}\) was followed, after its reply, '
                "by output no request asked for",
                late,
            ), late
        finally:
            adapter.close()


@pytest.mark.parametrize(
    ("mode", "words"),
    [("float-id", "does not echo request id"), ("two-ids", "has the member 'id' twice")],
)
def test_an_id_that_only_equals_the_request_id_is_a_protocol_violation(
    mode: str, words: str
) -> None:
    adapter = Adapter(hostile_cmd(mode), timeout_s=5)
    try:
        with pytest.raises(ProtocolViolation, match=words):
            adapter.call("demo.echo", {"value": "!x"})
    finally:
        adapter.close()


# 13. An adapter that signals memspec is blamed, and cannot stop the run.


@pytest.mark.parametrize("mode", ["sigint", "sigterm", "group", "sigstop"])
def test_an_adapter_that_signals_memspec_neither_interrupts_nor_stops_the_run(
    mode: str, demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    if not confinement():
        pytest.skip("this host gives adapters no PID namespace (not root, or no unshare)")
    result, records = _cli_records(hostile_cmd(mode), demo_env, memspec_cli, tmp_path,
                                   "--timeout", "2")  # fmt: skip
    # From its PID namespace, the signal reaches at most the adapter itself (which dies,
    # or ignores it as the first process of a namespace does): its own cases only.
    assert result.returncode in (0, 1), result.stdout[-2000:] + result.stderr
    assert "interrupted" not in result.stderr
    assert {case for case, r in records.items() if r["outcome"] != "passed"} <= BANGS


def test_an_in_process_adapter_that_stops_memspec_does_not_hang_the_run(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    result, records = _cli_records("python:hostile_fakes:StopsTheRun", demo_env, memspec_cli,
                                   tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert all(record["outcome"] == "passed" for record in records.values())


def test_a_keyboard_interrupt_raised_by_an_in_process_adapter_is_its_crash(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    result, records = _cli_records("python:hostile_fakes:RaisesKeyboardInterrupt", demo_env,
                                   memspec_cli, tmp_path)  # fmt: skip
    assert result.returncode == 1
    assert "interrupted" not in result.stderr
    for case in BANGS:
        assert records[case]["signature"] == ["no answer: crashed"]


# 14. stderr is kept bounded.


def test_a_flood_on_stderr_keeps_only_its_tail() -> None:
    adapter = Adapter(hostile_cmd("stderr-flood"), timeout_s=60)
    try:
        assert adapter.call("demo.echo", {"value": "!x"}).result == "!x"
        assert _largest_open_file() < 1 << 20
    finally:
        adapter.close()


def _largest_open_file() -> int:
    sizes = [0]
    for fd in os.listdir("/proc/self/fd"):
        try:
            info = os.stat(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            sizes.append(info.st_size)
    return max(sizes)


# 15. A handshake cannot write to the terminal or forge a line.


def test_a_handshake_with_terminal_escapes_is_refused(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    with pytest.raises(AdapterBroken, match="printable characters"):
        Adapter(hostile_cmd("escapes")).handshake  # noqa: B018
    summary = tmp_path / "summary.md"
    result, _ = _cli_records(hostile_cmd("escapes"), demo_env, memspec_cli, tmp_path,
                             "--summary", str(summary))  # fmt: skip
    assert result.returncode == 3
    shown = result.stdout + result.stderr + (summary.read_text() if summary.exists() else "")
    assert "\x1b" not in shown and "\rALL" not in shown and "\nALL PASSED" not in shown


# 16. What reads a report, an expectations file or a reply answers in one line.


@pytest.fixture(scope="module")
def good_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of the demo profile, made once; the tests read it and change copies."""
    where = tmp_path_factory.mktemp("good")
    report = where / "good.jsonl"
    result = run_memspec("run", "--adapter", "python:fakes:Echo", "--report", str(report),
                         cwd=where, env=demo_environment())  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    return report


def _with_record(report: Path, change: Callable[[dict[str, Any]], str], where: Path) -> Path:
    lines = report.read_text().splitlines()
    record = json.loads(lines[1])
    lines[1] = change(record)
    hostile = where / "hostile.jsonl"
    hostile.write_text("\n".join(lines) + "\n")
    return hostile


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: json.dumps(r)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
         "nested too deeply to read"),
        (lambda r: json.dumps({**r, "x": _deep_list(200)}), "nests more than 32 levels deep"),
        (lambda r: json.dumps({**r, "requirements": 5}), "'requirements' is not a list of texts"),
        (lambda r: json.dumps({**r, "message": ["no"]}), "'message' is not text"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["badge", "diff", "matrix", "merge-reports"])
def test_a_hostile_report_is_one_line_and_exit_2(
    command: str,
    change: Callable[[dict[str, Any]], str],
    words: str,
    good_report: Path,
    demo_env: dict[str, str],
    tmp_path: Path,
) -> None:
    hostile = _with_record(good_report, change, tmp_path)
    args = {
        "badge": ("badge", str(hostile), "-o", str(tmp_path / "badges")),
        "diff": ("diff", str(good_report), str(hostile)),
        "matrix": ("matrix", str(hostile), "-o", str(tmp_path / "m.html")),
        "merge-reports": ("merge-reports", str(hostile), "-o", str(tmp_path / "merged.jsonl")),
    }[command]
    # No adapter runs: the command may be forked, unlike the runs of this module's fakes.
    result = run_memspec(*args, cwd=tmp_path, env=demo_env, fork=True)
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


def _deep_list(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


def test_an_expectations_file_nested_too_deeply_is_one_line_and_exit_2(
    demo_env: dict[str, str], memspec_cli: Runner, tmp_path: Path
) -> None:
    expectations = tmp_path / "x.toml"
    expectations.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    result = memspec_cli("run", "--adapter", "python:fakes:Echo", "--expectations",
                         str(expectations), env=demo_env)  # fmt: skip
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr
    assert "Traceback" not in result.stderr
    assert "nested too deeply to read" in result.stderr


def test_smoke_against_a_reply_nested_too_deeply_says_the_adapter_is_broken(
    demo_env: dict[str, str], memspec_cli: Runner
) -> None:
    result = memspec_cli("smoke", "--adapter", hostile_cmd("deep-start"), env=demo_env)
    assert result.returncode == 3, result.stdout[-2000:] + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "nested too deeply to read" in result.stdout


# 17. A folder put in the case's place is named, whatever it is and whatever failed first.


@pytest.mark.parametrize("result", ["ok", "not what it answers"])
def test_a_root_replaced_by_another_directory_is_named(
    result: str, hostile: Callable[..., Adapter], tmp_path: Path
) -> None:
    base = tmp_path / "runs"
    base.mkdir()
    subject = case(
        op="demo.attack",
        args={"do": "another-root", "path": "${ROOT}"},
        expect={"result": result},
    )
    with pytest.raises(CaseFailure, match="replaced the folder of the case with another directory"):
        run_case(subject, hostile(), base=base)
    (moved,) = base.iterdir()  # what the adapter moved aside stays, the new one is gone
    assert moved.name.endswith(".moved")
    remove_tree(moved)


# 18. Crash points are bounded, whatever the adapter claims.


def test_an_adapter_claiming_ever_more_mutations_ends_its_crash_points_at_the_bound() -> None:
    from hostile_fakes import ClaimsEverMoreMutations

    subject = case(
        requires=["fault-injection"],
        steps=[
            {
                "op": "demo.put",
                "args": {"path": "${ROOT}/f.md", "text": "x"},
                "crash_points": True,
                "expect": {"result": "ok", "tree": {"f.md": {"text": "x"}}},
            }
        ],
    )
    adapter = Adapter("python:hostile_fakes:ClaimsEverMoreMutations")
    try:
        with pytest.raises(CaseFailure, match="bounds a step to 256 crash points") as failure:
            runner.run_crash_points(subject, adapter, 0)
    finally:
        adapter.close()
    assert failure.value.signature == ("step 1: more than 256 mutations",)
    assert ClaimsEverMoreMutations.requests == 256


# 7. A signature holding a name that is not UTF-8 reads back from the expectations file.


def test_a_signature_with_a_name_that_is_not_utf8_survives_the_expectations_file(
    hostile: Callable[..., Adapter], tmp_path: Path
) -> None:
    from memspec.corpus.expectations import Expected, dump_expectations, load_expectations
    from memspec.corpus.observations import from_token

    subject = case(
        op="demo.put",
        args={"path": "${ROOT}/\udcff.md", "text": "x"},
        expect={"result": "ok", "tree": {}},
    )
    with pytest.raises(CaseFailure) as failure:
        run_case(subject, hostile())
    (token,) = failure.value.signature
    assert token.startswith("step 1: tree \\udcff.md unexpected @")
    observed = tuple(map(from_token, failure.value.signature, failure.value.values))
    path = tmp_path / "expectations.toml"
    path.write_text(dump_expectations({"demo/harness/hostile": Expected("r", observed)}), "utf-8")
    assert load_expectations(path)["demo/harness/hostile"].tokens == failure.value.signature
