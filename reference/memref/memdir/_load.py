"""What a session starts with: EVVA.md, the memory directory, and its index."""

from __future__ import annotations

from dataclasses import dataclass, field

from memref import _gopath
from memref.memdir._constants import PROJECT_MEMORY_FILE
from memref.memdir._index import read_index_file, read_mem_file
from memref.memdir._paths import memory_dir, memory_index_path, mkdir_all

__all__ = ["Snapshot", "load"]


@dataclass(frozen=True)
class Snapshot:
    """One session's view of the on-disk memory. Empty fields mean "skip"."""

    workdir_memory: str = ""
    memory_index: str = ""
    memory_dir: str = ""
    warnings: list[str] = field(default_factory=list)


def load(workdir: str, app_home: str, auto_memory: bool) -> Snapshot:
    """Read EVVA.md, and with ``auto_memory`` ensure the memory directory and read its index.

    Never raises: every failure becomes a warning, in this order: EVVA.md,
    creating the directory, reading MEMORY.md, the index caps.
    """
    warnings: list[str] = []
    workdir_memory = ""
    if workdir:
        workdir_memory, warning = read_mem_file(_gopath.join(workdir, PROJECT_MEMORY_FILE))
        if warning:
            warnings.append(warning)
    directory = ""
    index = ""
    if auto_memory and app_home:
        error = mkdir_all(memory_dir(app_home))
        if error is not None:
            warnings.append(f"memdir: ensure {memory_dir(app_home)}: {error}")
        else:
            directory = memory_dir(app_home)
        index, cap_warning, read_warning = read_index_file(memory_index_path(app_home))
        if read_warning:
            warnings.append(read_warning)
        if cap_warning:
            warnings.append("memdir: " + cap_warning)
    return Snapshot(workdir_memory, index, directory, warnings)
