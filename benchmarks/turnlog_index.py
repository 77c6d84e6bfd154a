"""turnlog's SQLite index against raw sqlite3, measured in one run.

    python benchmarks/turnlog_index.py [--files N] [--repeat N]

- index_file: one call per summary, one transaction each, as the seed does;
- index_files: the batched op, one transaction for all summaries;
- upsert_many: the batched write of ready rows (the store's own cost, outlines aside);
- raw: ``executemany`` of the same rows into the same schema, one transaction (the floor),
  and the same preceded by a plain read of every file (the floor for anything that must
  read the summaries to outline them);
- list_by_project over all the rows.

Each variant starts from an empty database. Ratios are against the raw floor.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memref.turnlog import Entry, Meta, Store, filename, outline
from memref.turnlog._store import SCHEMA
from memref.turnlog._write import build_content

NOW = 1_893_456_000_000_000_000
BASE = 1_788_964_205_000_000_000
_BODY = "# Turn {n}\n\n## Request\nDo thing {n}.\n\n## What was done\n{words}\n\n## Outcome\nok\n"


def make_summaries(root: Path, files: int) -> list[tuple[str, Meta]]:
    memory = root / "project" / ".ogcode" / "memory"
    memory.mkdir(parents=True)
    made = []
    for n in range(files):
        meta = Meta(f"ses{n % 40:04d}", "/project", "build", f"Turn {n}", BASE + n * 61 * 10**9)
        path = memory / filename(meta.created_at, meta.session_id, meta.title)
        path.write_bytes(build_content(meta, meta.created_at, _BODY.format(n=n, words="w " * n)))
        made.append((str(path), meta))
    return made


def timed(function: Callable[[], object], repeat: int, setup: Callable[[], object]) -> float:
    runs = []
    for _ in range(repeat):
        setup()
        start = time.perf_counter()
        function()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        summaries = make_summaries(root, options.files)
        rows = [
            Entry(
                p,
                m.session_id,
                m.project_id,
                m.title,
                outline(p),
                m.created_at // 10**6,
                NOW // 10**6,
            )
            for p, m in summaries
        ]
        store_dir = root / "store"

        def fresh() -> None:
            for name in os.listdir(store_dir) if store_dir.exists() else []:
                os.remove(store_dir / name)

        def per_call() -> None:
            with Store(str(store_dir)) as store:
                for path, meta in summaries:
                    store.index_file(path, meta, NOW)

        def batched() -> None:
            with Store(str(store_dir)) as store:
                store.index_files(summaries, NOW)

        def ready_rows() -> None:
            with Store(str(store_dir)) as store:
                store.upsert_many(rows, NOW)

        def raw() -> None:
            store_dir.mkdir(exist_ok=True)
            db = sqlite3.connect(store_dir / "turnlog.db", isolation_level=None)
            db.executescript(SCHEMA)
            db.execute("BEGIN IMMEDIATE")
            db.executemany(
                "INSERT OR REPLACE INTO memory_turn_index (path, session_id, project_id, title,"
                " outline, created_at, indexed_at) VALUES (?,?,?,?,?,?,?)",
                [
                    (
                        e.path,
                        e.session_id,
                        e.project_id,
                        e.title,
                        e.outline,
                        e.created_at,
                        e.indexed_at,
                    )
                    for e in rows
                ],
            )
            db.execute("COMMIT")
            db.close()

        def raw_read() -> None:
            for path, _ in summaries:
                with open(path, "rb") as handle:
                    handle.read()
            raw()

        floor = timed(raw, options.repeat, fresh)
        read_floor = timed(raw_read, options.repeat, fresh)
        results = {
            "index_file (one transaction per call)": timed(per_call, 1, fresh),
            "index_files (batched)": timed(batched, options.repeat, fresh),
            "upsert_many (batched, rows ready)": timed(ready_rows, options.repeat, fresh),
        }
        outlines = timed(lambda: [outline(p) for p, _ in summaries], options.repeat, lambda: 0)
        batched()

        def listing() -> None:
            with Store(str(store_dir)) as store:
                assert len(store.list_by_project("/project")) == options.files

        listed = timed(listing, options.repeat, lambda: 0)
    print(f"turnlog index, {options.files} summaries (median of {options.repeat})")
    print(f"  raw sqlite3 executemany, one transaction   {floor * 1000:9.1f} ms   1.00x")
    print(
        f"  raw read of every file + the same inserts  {read_floor * 1000:9.1f} ms "
        f"{read_floor / floor:6.2f}x"
    )
    for label, seconds in results.items():
        print(
            f"  {label:42} {seconds * 1000:9.1f} ms {seconds / floor:6.2f}x"
            f"  ({seconds / read_floor:.2f}x read+insert floor)"
        )
    print(f"  outline of every file (read + scan)        {outlines * 1000:9.1f} ms")
    print(f"  list_by_project over {options.files} rows {'':13}{listed * 1000:9.1f} ms")


if __name__ == "__main__":
    main()
