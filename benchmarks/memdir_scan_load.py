"""memdir read paths against the raw I/O floor, measured in one run.

    python benchmarks/memdir_scan_load.py [--files N] [--repeat N]

- scan: ``scan_memory_files`` over N memory files, against a floor of ``os.scandir``
  plus one 4 KiB read per file (the least any scan must do);
- load: ``load`` with a 1 GiB sparse MEMORY.md and EVVA.md, against a 1 KiB pair: time,
  and peak RSS measured in a fresh child process for each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memref.memdir import load, scan_memory_files

GIB = 1 << 30

_FILE = "---\nname: note {n}\ndescription: what note {n} is about\ntype: project\n---\n\n{body}\n"


def make_memory_dir(root: Path, files: int) -> Path:
    memory = root / "memory"
    for number in range(files):
        folder = memory / f"topic{number % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"note{number:05d}.md"
        path.write_text(_FILE.format(n=number, body="x" * (number % 300)), encoding="utf-8")
        os.utime(path, ns=(1_700_000_000_000_000_000 + number, 1_700_000_000_000_000_000 + number))
    return memory


def raw_floor(directory: Path) -> int:
    count = 0
    stack = [str(directory)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith(".md"):
                    entry.stat(follow_symlinks=False)
                    with open(entry.path, "rb") as handle:
                        handle.read(4096)
                    count += 1
    return count


def best_of(repeat: int, function: object, *args: object) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function(*args)  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return statistics.median(times)


_RSS_CHILD = """
import resource, sys
from memref.memdir import load
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
snapshot = load(sys.argv[1], sys.argv[2], True)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(before, after, len(snapshot.memory_index), len(snapshot.workdir_memory))
"""


def peak_rss_kib(workdir: Path, app_home: Path) -> tuple[int, int]:
    result = subprocess.run(
        [sys.executable, "-c", _RSS_CHILD, str(workdir), str(app_home)],
        capture_output=True,
        text=True,
        check=True,
    )
    before, after, *_ = map(int, result.stdout.split())
    return before, after


def make_load_tree(root: Path, size: int) -> tuple[Path, Path]:
    workdir, app_home = root / "wd", root / "app"
    (app_home / "memory").mkdir(parents=True)
    workdir.mkdir()
    for path in (workdir / "EVVA.md", app_home / "memory" / "MEMORY.md"):
        with open(path, "wb") as handle:
            handle.write(b"- [a](a.md) \xe2\x80\x94 hook\n" * 40)
            handle.truncate(size)
    return workdir, app_home


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        memory = make_memory_dir(Path(scratch), options.files)
        raw_floor(memory)
        floor = best_of(options.repeat, raw_floor, memory)
        scan = best_of(options.repeat, scan_memory_files, str(memory))
        print(
            f"scan {options.files} files: memref {scan * 1000:.1f} ms, floor "
            f"{floor * 1000:.1f} ms (os.scandir + 4 KiB read each); ratio {scan / floor:.2f}x"
        )
    sizes = {"1 KiB": 1024, "64 KiB + 1": 65537, "1 GiB": GIB}
    timings: dict[str, float] = {}
    rss: dict[str, int] = {}
    for label, size in sizes.items():
        with tempfile.TemporaryDirectory() as scratch:
            workdir, app_home = make_load_tree(Path(scratch), size)
            load(str(workdir), str(app_home), True)
            timings[label] = best_of(options.repeat * 20, load, str(workdir), str(app_home), True)
            rss[label] = peak_rss_kib(workdir, app_home)[1]
    print(
        "load (EVVA.md and MEMORY.md of the same size): "
        + ", ".join(f"{label} {seconds * 1e6:.0f} us" for label, seconds in timings.items())
    )
    print(
        f"load ratios: 1 GiB / 1 KiB {timings['1 GiB'] / timings['1 KiB']:.2f}x, "
        f"1 GiB / (64 KiB + 1) {timings['1 GiB'] / timings['64 KiB + 1']:.2f}x"
    )
    print(
        "load peak RSS (fresh process, ru_maxrss): "
        + ", ".join(f"{label} {kib} KiB" for label, kib in rss.items())
        + f"; 1 GiB - 1 KiB = {rss['1 GiB'] - rss['1 KiB']} KiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
