"""memories under hostile trees: a deep delete, a huge sparse file, many occurrences.

    python benchmarks/memories_hostile.py [--depth N] [--matches N]

- delete: a directory ``depth`` levels deep (one ``d`` per level, made through descriptors,
  past PATH_MAX) deleted by ``delete``, against one a quarter as deep: the ratio of the
  cost per level (about 1 when the walk is linear) and the most descriptors open at once;
- view: ``view`` of a sparse file of 1 TiB, against ``view`` of a 1 KiB file: the ratio of
  the times and the memory the call allocated at its peak (tracemalloc);
- str_replace: ``old_str`` occurring ``matches`` times on one line, and half as often: the
  ratio of the times (about 2 for a linear list of occurrences, 4 for a quadratic one).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

from memref.memories import execute


def _base(top: Path, name: str) -> Path:
    root = top / name / "memories"
    root.mkdir(parents=True)
    return root.parent


def _nest(root: Path, depth: int) -> None:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)


def _timed(base: Path, tool_input: dict[str, object]) -> tuple[float, bool]:
    start = time.perf_counter()
    reply = execute(str(base), tool_input)
    return time.perf_counter() - start, reply.is_error


def bench_delete(top: Path, depth: int) -> tuple[float, int]:
    """(ratio of the cost per level, most descriptors the delete held open at once)."""
    per_level = []
    most = 0
    for index, levels in enumerate((depth // 4, depth)):
        base = _base(top, f"deep{index}")
        _nest(base / "memories", levels)
        counts: list[int] = []
        done = threading.Event()

        def watch(counts: list[int] = counts, done: threading.Event = done) -> None:
            while not done.is_set():
                counts.append(len(os.listdir("/proc/self/fd")))

        before = len(os.listdir("/proc/self/fd"))
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        seconds, failed = _timed(base, {"command": "delete", "path": "/memories/d"})
        done.set()
        watcher.join()
        assert not failed, "the deep delete failed"
        per_level.append(seconds / levels)
        most = max(most, max(counts, default=before) - before)
    return per_level[1] / per_level[0], most


def bench_view(top: Path) -> tuple[float, float, int]:
    base = _base(top, "sparse")
    with open(base / "memories" / "huge.bin", "wb") as handle:
        handle.truncate(1 << 40)
    (base / "memories" / "small.txt").write_text("x" * 1023 + "\n")
    _timed(base, {"command": "view", "path": "/memories/small.txt"})  # warm
    small, _ = _timed(base, {"command": "view", "path": "/memories/small.txt"})
    tracemalloc.start()
    huge, failed = _timed(base, {"command": "view", "path": "/memories/huge.bin"})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert failed, "a 1 TiB file was shown"
    return huge / small, huge, peak


def bench_str_replace(top: Path, matches: int) -> tuple[float, float]:
    seconds = []
    for count in (matches // 2, matches):
        base = _base(top, f"many{count}")
        (base / "memories" / "m.txt").write_text("a" * count)
        spent, failed = _timed(
            base,
            {"command": "str_replace", "path": "/memories/m.txt", "old_str": "a", "new_str": "b"},
        )
        assert failed
        seconds.append(spent)
    return seconds[1] / seconds[0], seconds[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=2100)
    parser.add_argument("--matches", type=int, default=100_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        top = Path(scratch)
        ratio, most = bench_delete(top, options.depth)
        print(
            f"delete {options.depth} levels: cost per level {ratio:.2f}x that of "
            f"{options.depth // 4} levels; at most {most} descriptors open"
        )
        ratio, seconds, peak = bench_view(top)
        print(
            f"view of 1 TiB sparse: {seconds * 1000:.2f} ms, {ratio:.1f}x a 1 KiB view; "
            f"peak allocation {peak} bytes"
        )
        ratio, seconds = bench_str_replace(top, options.matches)
        print(
            f"str_replace, {options.matches:,} occurrences: {seconds * 1000:.1f} ms, {ratio:.2f}x "
            f"the time of {options.matches // 2:,} (2 is linear, 4 quadratic)"
        )


if __name__ == "__main__":
    main()
