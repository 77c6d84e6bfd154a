"""What the factstore properties and snapshots share: a scratch store of the run."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from memspec.adapters import Adapter

__all__ = ["scratch_store"]


@contextmanager
def scratch_store(adapter: Adapter) -> Iterator[dict[str, str]]:
    """A store (``global_dir``, ``project_dir``) in a temporary folder of the run, given
    to the adapter's user and removed afterwards; neither directory exists yet."""
    directory = os.path.realpath(tempfile.mkdtemp(prefix="memspec-factstore-"))
    if adapter.tree_owner is not None:
        os.chown(directory, *adapter.tree_owner)
    try:
        yield {"global_dir": f"{directory}/g", "project_dir": f"{directory}/p"}
    finally:
        shutil.rmtree(directory, ignore_errors=True)
