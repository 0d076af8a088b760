"""Opening any backend by name, so one contract suite runs over all of them."""

from __future__ import annotations

from pathlib import Path

from tocsearch.storage._files_store import FileStorage
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage

BACKENDS = ("memory", "jsondir", "shelve")
FILE_BACKENDS = ("jsondir", "shelve")


def open_store(backend: str, path: Path | None, *, readonly: bool = False) -> Storage:
    """A store of the named backend; file backends live at ``path``."""
    if backend == "memory":
        return InMemoryStorage()
    return open_file_store(backend, path, readonly=readonly)


def open_file_store(backend: str, path: Path | None, *, readonly: bool = False) -> FileStorage:
    """A file-backed store of the named backend at ``path``."""
    assert path is not None
    if backend == "jsondir":
        return JsonDirStorage(path, readonly=readonly)
    if backend == "shelve":
        return ShelveStorage(path, readonly=readonly)
    raise ValueError(f"unknown backend {backend!r}")
