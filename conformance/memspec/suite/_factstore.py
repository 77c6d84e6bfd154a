"""What the factstore properties and snapshots share: a scratch store of the run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from memspec.suite._support import scratch_folder
from memspec.wire.adapters import Adapter

__all__ = ["scratch_store"]


@contextmanager
def scratch_store(adapter: Adapter) -> Iterator[dict[str, str]]:
    """A store (``global_dir``, ``project_dir``) in a scratch folder of the run, given to
    the adapter's user and removed afterwards; neither directory exists yet."""
    with scratch_folder(adapter, prefix="memspec-factstore-") as directory:
        yield {"global_dir": f"{directory}/g", "project_dir": f"{directory}/p"}
