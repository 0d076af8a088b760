"""Opening a store whatever its backend: the marker file names it.

Every on-disk store keeps a ``tocsearch-store.json`` marker naming its format, written last
when the store is created. :func:`open_store` reads it and opens the store with the backend
that wrote it, so callers (and the CLI) need not remember which backend a store uses.
:data:`BACKENDS` names each backend for the code that creates stores.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from tocsearch.errors import StorageError
from tocsearch.storage._files import store_root
from tocsearch.storage._files_store import MARKER_NAME, read_marker
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage
from tocsearch.storage.sqlite import SqliteStorage

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "DiskBackend", "open_store", "store_backend"]

DiskBackend = type[SqliteStorage] | type[JsonDirStorage] | type[ShelveStorage]
"""A backend class that keeps a store on disk: it opens (or, for a writer, creates) one, names
its ``FORMAT`` in the marker, and can ``salvage`` a damaged one."""

BACKENDS: Mapping[str, DiskBackend] = MappingProxyType(
    {"sqlite": SqliteStorage, "jsondir": JsonDirStorage, "shelve": ShelveStorage}
)
"""The on-disk backends by name: ``sqlite``, ``jsondir``, ``shelve``."""

DEFAULT_BACKEND = "sqlite"
"""The backend new stores get unless told otherwise: SQLite opens in constant time and answers
time queries on its own indexes, whatever the size of the history."""

_BY_FORMAT = {backend.FORMAT: name for name, backend in BACKENDS.items()}


def store_backend(path: str | os.PathLike[str]) -> str | None:
    """The name of the backend whose store is at ``path``, or None when there is no store
    there (no such path, or a directory without a marker).

    Raises:
        StorageError: ``path`` is a file, or its marker is damaged or names an unknown format.
    """
    directory = store_root(path)
    if not directory.exists() and not directory.is_symlink():
        return None
    if not directory.is_dir():
        raise StorageError(f"{str(directory)!r} is a file, not a tocsearch store directory")
    found = read_marker(directory)
    if found is None:
        return None
    backend = _BY_FORMAT.get(found)
    if backend is None:
        raise StorageError(
            f"{directory / MARKER_NAME} names the store format {found!r}, "
            f"which this version does not know (it reads {', '.join(sorted(_BY_FORMAT))})"
        )
    return backend


def open_store(path: str | os.PathLike[str], *, readonly: bool = False) -> Storage:
    """Open the existing store at ``path`` with the backend its marker names.

    Args:
        path: a store directory made by any on-disk backend.
        readonly: open without the writer lock, beside a writer; writes then raise.

    Raises:
        StorageError: there is no store at ``path`` (it does not exist, is a file, or is a
            directory without a marker), or its marker names an unknown format.
        StoreLocked: a writer holds the store and ``readonly`` is false.
        StoreCorrupted: the store is damaged.

    Example:

    >>> import tempfile
    >>> from tocsearch.storage import SqliteStorage
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     SqliteStorage(f"{scratch}/history").close()
    ...     with open_store(f"{scratch}/history", readonly=True) as store:
    ...         type(store).__name__
    'SqliteStorage'
    """
    backend = store_backend(path)
    if backend is None:
        raise StorageError(
            f"no tocsearch store at {os.fspath(path)!r}: "
            + ("no such directory" if not Path(os.fspath(path)).exists() else f"no {MARKER_NAME}")
            + "; create one with a backend class, e.g. SqliteStorage(path)"
        )
    return BACKENDS[backend](path, readonly=readonly)
