"""Opening a store directory (format marker, writer lock, refusing foreign directories) and the
base class both file stores share."""

from __future__ import annotations

import abc
import contextlib
import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from tocsearch._json_text import read_json
from tocsearch.errors import StorageError, StoreReadOnly
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._files import read_bytes, store_root, write_atomically
from tocsearch.storage._home import StoreMoved, opened_home
from tocsearch.storage._lock import LOCK_NAME, WriterLock
from tocsearch.storage.backend import Backend

__all__ = [
    "MARKER_NAME",
    "FileStorage",
    "open_store_dir",
    "read_marker",
    "read_only_error",
    "write_marker",
]

MARKER_NAME = "tocsearch-store.json"
_VERSION = 1
# The layout versions this code reads, by format; formats not named here have version 1 only.
_VERSIONS: dict[str, tuple[int, ...]] = {"tocsearch.jsondir": (1, 2)}


def _read_marker(directory: Path) -> tuple[str, int] | None:
    data = read_bytes(directory / MARKER_NAME)
    if data is None:
        return None
    try:
        marker = read_json(data)
        store_format = marker["format"]
        version = marker["version"]
    except (ValueError, KeyError, TypeError):
        raise StorageError(
            f"{directory / MARKER_NAME} is not a tocsearch store marker: {data[:80]!r}"
        ) from None
    readable = _VERSIONS.get(store_format, (_VERSION,)) if isinstance(store_format, str) else ()
    if version not in readable or isinstance(version, bool):
        raise StorageError(
            f"{directory / MARKER_NAME}: unsupported store format {store_format!r} "
            f"version {version!r} (this version reads version "
            f"{' or '.join(map(str, readable or (_VERSION,)))})"
        )
    return store_format, version


def read_marker(directory: Path) -> str | None:
    """The format a store directory's marker names, or None when it has no marker.

    Raises:
        StorageError: the marker is not one this version reads.
    """
    found = _read_marker(directory)
    return None if found is None else found[0]


def marker_version(directory: Path) -> int:
    """The layout version a store directory's marker names (1 when it has no marker)."""
    found = _read_marker(directory)
    return _VERSION if found is None else found[1]


def _check_format(directory: Path, found: str, wanted: str) -> None:
    if found != wanted:
        raise StorageError(f"{str(directory)!r} holds a {found!r} store, not a {wanted!r} store")


def open_store_dir(
    path: str | os.PathLike[str], store_format: str, *, readonly: bool
) -> tuple[Path, WriterLock | None, bool]:
    """Validate (and for a writer, lock and if needed create) a store directory.

    Returns the directory, the writer lock (None for a reader) and whether the store was just
    created. The marker file is written last, so a directory is a store only once it is whole.

    Raises:
        StorageError: the path holds no store of this format (reader), or is a non-empty
            directory that is not a store, or a file.
        StoreLocked: another writer holds the store.
    """
    directory = store_root(path)
    if readonly:
        if not directory.is_dir():
            raise StorageError(f"no tocsearch store at {str(directory)!r}: no such directory")
        found = read_marker(directory)
        if found is None:
            raise StorageError(f"no tocsearch store at {str(directory)!r}: {MARKER_NAME} missing")
        _check_format(directory, found, store_format)
        return directory, None, False
    if directory.exists() and not directory.is_dir():
        raise StorageError(f"store path {str(directory)!r} is a file, not a directory")
    directory.mkdir(parents=True, exist_ok=True)
    found = read_marker(directory)
    if found is None and any(name != LOCK_NAME for name in os.listdir(directory)):
        raise StorageError(
            f"{str(directory)!r} is not empty and holds no tocsearch store; "
            "refusing to write into it"
        )
    if found is not None:
        _check_format(directory, found, store_format)
    lock = WriterLock(directory)
    try:
        # Another writer may have created the store between our check and our lock.
        found = read_marker(directory)
        if found is not None:
            _check_format(directory, found, store_format)
    except BaseException:
        lock.release()
        raise
    return directory, lock, found is None


def write_marker(directory: Path, store_format: str, version: int = _VERSION) -> None:
    """Mark a fully laid-out directory as a store of ``store_format`` in layout ``version``."""
    body = json.dumps({"format": store_format, "version": version}).encode()
    write_atomically([(directory / MARKER_NAME, body)])


def read_only_error(directory: Path, action: str) -> StoreReadOnly:
    """The error a write to a store opened with ``readonly=True`` raises."""
    return StoreReadOnly(
        f"cannot {action}: store {str(directory)!r} is open read-only (readonly=True)"
    )


_P = ParamSpec("_P")
_R = TypeVar("_R")
_Store = TypeVar("_Store", bound="FileStorage")


def reading_files(
    method: Callable[Concatenate[_Store, _P], _R],
) -> Callable[Concatenate[_Store, _P], _R]:
    """``method``, a read of a file store, with its failures explained: when the store's
    directory has moved, the error says so (rather than that a file is missing or damaged),
    and a failure of the files is a StorageError naming the store, never a bare OSError."""

    @functools.wraps(method)
    def read(self: _Store, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except StoreMoved:
            raise  # says so already (from a check of the directory, or a read inside this one)
        except StorageError as error:
            moved = self._home.moved_error("read the store", str(error))
            if moved is None:
                raise
            raise moved from error
        except OSError as error:
            raise self._files_error("read the store", error) from error

    return read


class FileStorage(Backend):
    """What both file stores share: the directory, the writer lock and the read-only guard.

    A file store works on the directory it opened (:class:`~tocsearch.storage._home.
    StoreHome`). When that directory is moved away, removed, or replaced at its path, the
    next :meth:`revision`, :meth:`refresh`, write, and every read that has to look at the
    files (a listing, a file not read before or changed since, a failed read) raise
    StorageError saying what the path is now; what was already read may still answer.
    """

    def __init__(self, directory: Path, lock: WriterLock | None) -> None:
        super().__init__()
        self._path = directory
        self._lock = lock
        self._home = opened_home(directory, lock)

    @property
    def path(self) -> Path:
        """The store directory."""
        return self._path

    @property
    def readonly(self) -> bool:
        """Whether this store was opened with ``readonly=True`` (and so refuses writes)."""
        return self._lock is None

    def _ensure_writable(self, action: str) -> None:
        self._ensure_open()
        if self._lock is None:
            raise read_only_error(self._path, action)

    @contextlib.contextmanager
    def _file_errors(self, action: str) -> Iterator[None]:
        """A failure of the files (the store directory removed or replaced by a file, a disk
        full, a permission taken away) as a StorageError naming the store and what was being
        done, not a bare OSError from deep in a backend."""
        try:
            yield
        except StorageError:
            raise
        except OSError as error:
            raise self._files_error(action, error) from error

    def _files_error(self, action: str, error: OSError) -> StorageError:
        """``error``, a failure of the files while doing ``action``, as the StorageError
        that names the store: a :class:`StoreMoved` when the directory has moved."""
        where = f": {os.fsdecode(error.filename)}" if error.filename is not None else ""
        failure = f"{error.strerror or error}{where}"
        moved = self._home.moved_error(action, failure)
        if moved is not None:
            return moved
        return StorageError(f"cannot {action}: store {str(self._path)!r}: {failure}")

    def put_nodes(self, nodes: Iterable[TocNode]) -> None:
        self._ensure_writable("put nodes")
        with self._file_errors("put nodes"):
            super().put_nodes(nodes)

    def delete_node(self, node_id: str) -> None:
        self._ensure_writable("delete a node")
        with self._file_errors("delete a node"):
            super().delete_node(node_id)

    def put_grips(self, grips: Iterable[Grip]) -> None:
        self._ensure_writable("put grips")
        with self._file_errors("put grips"):
            super().put_grips(grips)

    def delete_grip(self, grip_id: str) -> None:
        self._ensure_writable("delete a grip")
        with self._file_errors("delete a grip"):
            super().delete_grip(grip_id)

    def put_events(self, events: Iterable[Event]) -> None:
        self._ensure_writable("put events")
        with self._file_errors("put events"):
            super().put_events(events)

    def delete_events(self, event_ids: Iterable[str]) -> None:
        self._ensure_writable("delete events")
        with self._file_errors("delete events"):
            super().delete_events(event_ids)

    def scrub(self) -> None:
        self._ensure_writable("scrub the store")
        with self._file_errors("scrub the store"):
            super().scrub()

    def close(self) -> None:
        """Release the files and the writer lock (the lock even when a file cannot be
        written)."""
        with self._file_errors("close the store"):
            super().close()

    def refresh(self) -> None:
        """Forget what was read from the store, so the next query sees every durable write.

        Meant for read-only stores that share a directory with a writer; on a writer it is
        harmless.
        """
        self._ensure_open()
        try:
            # Read again, the store's files are those of the directory it opened, or none.
            self._home.confirm("read the store again")
            with self._file_errors("read the store again"):
                self._reload()
        finally:
            self._wrote()

    READS_A_SNAPSHOT = False
    """Whether a store opened ``readonly`` answers every read from what it read when it
    opened (or last :meth:`refresh`-ed), whatever a writer in another process does since."""

    def revision(self) -> int | None:
        """The writer's count of its own writes: holding the writer lock, it is the only
        process that writes. A reader that answers from a snapshot (``READS_A_SNAPSHOT``)
        counts its refreshes, which are the only times its answers change. None for any other
        reader: a writer in another process changes the files it reads unseen, and nothing
        here counts those writes.

        Raises:
            StorageError: the store's directory has moved (see the class docstring).
        """
        self._ensure_open()
        self._home.confirm("read the store")
        if self._lock is None and not self.READS_A_SNAPSHOT:
            return None
        return self._revision

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # A backend's own version of a read is a read of the files too.
        for name in _FILE_READS:
            own = cls.__dict__.get(name)
            if own is not None:
                setattr(cls, name, reading_files(own))

    @abc.abstractmethod
    def _reload(self) -> None: ...

    def _release_lock(self) -> None:
        if self._lock is not None:
            self._lock.release()

    def __repr__(self) -> str:
        mode = "readonly" if self.readonly else "writer"
        state = "closed" if self._closed else mode
        return f"{type(self).__name__}({str(self._path)!r}, {state})"


_FILE_READS = (
    "count_events",
    "count_nodes",
    "find_event",
    "find_grip",
    "find_grips",
    "find_node",
    "get_child_nodes",
    "get_event_range",
    "get_events",
    "get_events_after",
    "get_events_before",
    "get_nodes_by_level",
    "get_session_events",
    "has_event",
    "iter_grip_ids",
    "iter_node_ids",
)
"""The reads of the Storage protocol that may look at a file store's files (the ``get_*``
that raise NotFound go through ``find_*``)."""

for _name in _FILE_READS:
    setattr(FileStorage, _name, reading_files(getattr(FileStorage, _name)))
