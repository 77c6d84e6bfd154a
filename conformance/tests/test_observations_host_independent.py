"""What a failed check observed is the same on every host: a directory's size in a
listing and the positions of a Unicode error in a host path are what the host's file
systems and temporary folder decide (MEMORIES-VIEW-006), so they are kept as
placeholders. The same failing port, run with its folders on a tmpfs and on a disk
under a longer path, gets the same signatures."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from conftest import Runner
from memref_variants import variant_env

from memspec.judge.observed import Normaliser, case_normaliser, observe
from memspec.reports.report import read_report

LISTING = (
    "Here're the files and directories up to 2 levels deep in /memories, excluding hidden "
    "items:\n{root}\t/memories\n1.5K\t/memories/a.txt\n{sub}\t/memories/d/\n0B\t/memories/d/e"
)

FAILING = (
    "memories/view/tree",
    "memories/view/empty-root",
    "memories/view/name-forges-a-listing-line",  # a directory's name spans two lines
    "memories/paths/surrogate-create",
)


def _digest(value: str, root: str) -> str:
    return observe("step 1: result", value, Normaliser({root: "${ROOT}"})).digest


def test_directory_sizes_in_a_listing_are_placeholders_and_file_sizes_are_kept() -> None:
    on_ext4 = LISTING.format(root="4K", sub="4K")
    on_tmpfs = LISTING.format(root="80B", sub="1.2K")
    assert _digest(on_ext4, "/r") == _digest(on_tmpfs, "/r")
    written = Normaliser({}).text(on_tmpfs)
    assert written.endswith(
        ":\n${DIR_SIZE}\t/memories\n1.5K\t/memories/a.txt\n${DIR_SIZE}\t/memories/d/\n"
        "0B\t/memories/d/e"
    )
    other_file = on_ext4.replace("1.5K\t/memories/a.txt", "1.6K\t/memories/a.txt")
    assert _digest(other_file, "/r") != _digest(on_ext4, "/r")


def test_a_directory_whose_name_breaks_the_line_has_its_size_written_as_a_placeholder() -> None:
    tree = {"base/memories/notes.txt\n9B\t/memories/forged.txt": {"text": "n\n"}}
    normaliser = case_normaliser(
        "/tmp/run/case", working_directory=None, captured={}, case_data=[tree]
    )
    listing = "in /memories:\n{0}\t/memories\n{0}\t/memories/notes.txt\n9B\t/\n2B\t/memories/a"
    assert normaliser.text(listing.format("60B")) == normaliser.text(listing.format("4K"))
    assert normaliser.text(listing.format("4K")).endswith("\n2B\t/memories/a")


def _encode_error(root: str) -> str:
    path = f"{root}/base/memories/\ud800.txt"
    at = path.index("\ud800")
    return repr(UnicodeEncodeError("utf-8", path, at, at + 1, "surrogates not allowed"))


def test_positions_in_a_host_path_count_from_its_placeholder() -> None:
    short, long = "/tmp/memspec-run-a/c1", "/var/tmp/a-longer-folder/memspec-run-abcdef/c12"
    assert _encode_error(short) != _encode_error(long)
    assert _digest(_encode_error(short), short) == _digest(_encode_error(long), long)
    assert Normaliser({short: "${ROOT}"}).text(_encode_error(short)) == (
        "UnicodeEncodeError('utf-8', '${ROOT}/base/memories/\\ud800.txt', 22, 23, "
        "'surrogates not allowed')"
    )
    # A position in bytes read from a file holds no host path: it stays as it was.
    decode = repr(UnicodeDecodeError("utf-8", b"- \xff\n", 2, 3, "invalid start byte"))
    assert Normaliser({short: "${ROOT}"}).text(decode) == decode


def _run(memspec_cli: Runner, scratch: Path, report: Path) -> dict[str, list[str]]:
    result = memspec_cli(
        "run",
        "--adapter",
        "python:file_system_fakes:HostShaped",
        "-k",
        " or ".join(FAILING),
        "--report",
        str(report),
        env={**variant_env(), "TMPDIR": str(scratch)},
    )
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]
    assert scratch.samefile(read_report(report)[0]["run_info"]["scratch"])
    return {
        record["id"]: record["signature"]
        for record in read_report(report)
        if record["type"] == "case" and record["outcome"] == "failed"
    }


def test_a_port_fails_alike_on_a_tmpfs_and_on_a_disk_under_a_longer_path(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    # The tests' temporary folder is a tmpfs where /dev/shm is one (conftest.py); /var/tmp
    # is on a disk on most hosts. Either way the second path is longer.
    short = Path(tempfile.mkdtemp(dir=tmp_path))
    long = Path(tempfile.mkdtemp(prefix="a-much-longer-temporary-folder-", dir="/var/tmp"))
    try:
        first = _run(memspec_cli, short, tmp_path / "first.jsonl")
        second = _run(memspec_cli, long, tmp_path / "second.jsonl")
    finally:
        shutil.rmtree(long, ignore_errors=True)
    assert set(first) == set(FAILING)
    assert first == second
