"""factstore at scale: listing and indexing a store, and the codebase migration.

    python benchmarks/factstore_scale.py [--sizes 1000,10000] [--repeat 3]

For each size N it reports, per fact:

- list + format_index: ``list_facts`` over a store of N project facts followed by
  ``format_index`` of the result;
- migrate: ``migrate_codebase`` copying a legacy store of N facts into an empty
  destination (a fresh config directory each run; best of ``--repeat``).

and the ratio of the per-fact time at the largest size to the smallest (target <= 1.5).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memref._time import parse_rfc3339
from memref.factstore import (
    Memory,
    StoreDirs,
    format_index,
    list_facts,
    migrate_codebase,
    project_hash,
    serialize,
)

WS = "/memspec-absent/bench-workspace"
NOW = parse_rfc3339("2026-03-01T10:00:00Z")


def fill(directory: Path, count: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for number in range(count):
        memory = Memory(
            f"fact-{number:05d}",
            f"what fact {number} is about",
            "project",
            "",
            True,
            "body " * (number % 40),
        )
        (directory / f"fact-{number:05d}.md").write_text(serialize(memory), encoding="utf-8")


def best(repeat: int, setup: Callable[[], object], run: Callable[[object], object]) -> float:
    times = []
    for _ in range(repeat):
        state = setup()
        start = time.perf_counter()
        run(state)
        times.append(time.perf_counter() - start)
    return min(times)


def bench_list(root: Path, count: int, repeat: int) -> float:
    dirs = StoreDirs(str(root / "g"), str(root / "p"))
    fill(root / "p", count)
    return best(repeat, lambda: None, lambda _: format_index(list_facts(dirs)))


def bench_migrate(root: Path, count: int, repeat: int) -> float:
    legacy = root / "template" / "projects" / project_hash(WS) / "memory"
    fill(legacy, count)
    runs = iter(range(repeat))

    def setup() -> object:
        config = root / f"cfg-{next(runs)}"
        shutil.copytree(root / "template", config)
        return config

    return best(repeat, setup, lambda config: migrate_codebase(str(config), WS, NOW))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[str, dict[int, float]] = {"list+format_index": {}, "migrate": {}}
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="factstore-bench-") as tmp:
            results["list+format_index"][size] = bench_list(Path(tmp) / "l", size, args.repeat)
            results["migrate"][size] = bench_migrate(Path(tmp) / "m", size, args.repeat)
    for name, by_size in results.items():
        cells = ", ".join(
            f"{size}: {seconds * 1e6 / size:.1f} µs/fact ({seconds:.3f} s)"
            for size, seconds in by_size.items()
        )
        low, high = min(sizes), max(sizes)
        ratio = (by_size[high] / high) / (by_size[low] / low)
        print(f"{name}: {cells}; per-fact ratio {high}/{low} = {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
