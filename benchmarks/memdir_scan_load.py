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
    result = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(workdir), str(app_home)],
                            capture_output=True, text=True, check=True)
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
        print(f"scan {options.files} files: memref {scan * 1000:.1f} ms, floor "
              f"{floor * 1000:.1f} ms (os.scandir + 4 KiB read each); ratio {scan / floor:.2f}x")
    with tempfile.TemporaryDirectory() as small_dir, tempfile.TemporaryDirectory() as big_dir:
        small = make_load_tree(Path(small_dir), 1024)
        big = make_load_tree(Path(big_dir), GIB)
        small_s = best_of(options.repeat * 20, load, str(small[0]), str(small[1]), True)
        big_s = best_of(options.repeat * 20, load, str(big[0]), str(big[1]), True)
        print(f"load: 1 KiB files {small_s * 1e6:.0f} us, 1 GiB sparse files "
              f"{big_s * 1e6:.0f} us; ratio {big_s / small_s:.2f}x")
        small_rss, big_rss = peak_rss_kib(*small), peak_rss_kib(*big)
        print(f"load peak RSS (fresh process, ru_maxrss): 1 KiB {small_rss[1]} KiB, "
              f"1 GiB {big_rss[1]} KiB; difference {big_rss[1] - small_rss[1]} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
