"""The sidecar file of a search index: its SQLite connection, transactions and errors, and the
state a sync reads before each query.

:class:`SidecarFile` is the base of :class:`~tocsearch.index.SearchIndex`: what keeps the index
in sync with its store (:mod:`tocsearch.index._sidecar_sync`), embeds its events
(:mod:`tocsearch.index._sidecar_vectors`) and answers queries (:mod:`tocsearch.index._sidecar`)
is built on it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from tocsearch.errors import StorageError
from tocsearch.index._embedder import Embedder
from tocsearch.index._query_vectors import QueryVectors
from tocsearch.index._schema import current_format, index_state, read_meta, write_meta
from tocsearch.index._vectors import VectorMatrix
from tocsearch.storage._fts_merge import MERGED_EVENTS, MergeSchedule
from tocsearch.storage._sqlite_db import storage_error
from tocsearch.storage._sqlite_reads import HeldReads
from tocsearch.storage.protocol import Storage

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["INDEX_FILE_NAME", "SidecarFile", "default_index_path", "to_us"]

INDEX_FILE_NAME = "search-index.sqlite3"
"""The sidecar's file name inside a store directory."""

_BUSY_SECONDS = 10.0
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


def to_us(when: datetime) -> int:
    """Microseconds since the Unix epoch of a timezone-aware datetime (exact)."""
    return (when - _EPOCH) // _MICROSECOND


def default_index_path(storage: Storage) -> Path | None:
    """Where the index of ``storage`` lives: :data:`INDEX_FILE_NAME` in the store's directory,
    or None (an index in memory) for a store with no directory."""
    path = getattr(storage, "path", None)
    if isinstance(path, Path) and path.is_dir():
        return path / INDEX_FILE_NAME
    return None


class SidecarFile:
    """The SQLite file (or in-memory database) of one store's search index, and what is known
    of it: opening never reads the store.

    Raises:
        StoreCorrupted: the file exists but is not a SQLite database.
        StoreLocked: another process holds the file longer than the busy timeout.
    """

    def __init__(
        self,
        storage: Storage,
        path: str | os.PathLike[str] | None = None,
        *,
        embedder: Embedder | None = None,
    ) -> None:
        self.storage = storage
        self.embedder = embedder
        if path is None:
            path = default_index_path(storage)
        self.path: Path | None = None if path is None else Path(path)
        self._matrix: VectorMatrix | None = None
        self._queries: QueryVectors[npt.NDArray[np.float32]] = QueryVectors()
        self._merges = MergeSchedule(
            self._transaction,
            lambda connection, events: write_meta(connection, MERGED_EVENTS, events),
        )
        # (data_version, embedder) when every event was last found to have its vector.
        self._embedded: tuple[int, str] | None = None
        # index_state as last read, and the file's data_version then (see _index_state).
        self._state: tuple[int, tuple[tuple[int, int] | None, dict[str, str]]] | None = None
        # A question's queries in one read transaction (see reading()); its lock also keeps
        # the writes of threads apart.
        self._reads = HeldReads(lambda: getattr(self, "_connection", None), self._failed)
        self._connection = self._connect()

    def _connect(self) -> sqlite3.Connection:
        target = ":memory:" if self.path is None else os.fspath(self.path)
        with self._errors():
            connection = sqlite3.connect(
                target, isolation_level=None, check_same_thread=False, timeout=_BUSY_SECONDS
            )
        if self.path is not None:
            try:
                connection.execute("PRAGMA journal_mode = WAL")
                # Derived data: a crash may lose the last writes, never the file (the next
                # sync catches up from the store).
                connection.execute("PRAGMA synchronous = NORMAL")
            except sqlite3.DatabaseError:
                pass  # an unreadable file: every use says so, and rebuild() replaces it
        return connection

    # -- plumbing --------------------------------------------------------------------------
    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as error:
            raise self._failed(error) from None

    def _failed(self, error: sqlite3.DatabaseError) -> StorageError:
        """What :meth:`_errors` raises for ``error``: the file named, and to rebuild it."""
        where = "search index" if getattr(self, "path", None) is None else str(self.path)
        return storage_error(error, where, kind="search index", advice="; rebuild it")

    def reading(self) -> contextlib.AbstractContextManager[None]:
        """Run the queries of the block (a sync and the searches of one question) in one read
        transaction of the index's file: they see one state of it and take its read lock
        once. A write of the block (a sync that catches up) commits at once and is read by
        the rest of it; another thread's write waits for the block to end.

        Raises:
            StorageError: the transaction could not begin or end.
        """
        return self._reads.reading()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._reads.paused(), self._errors():
            connection = self._connection
            self._state = None
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            self._matrix = None

    def _embedder_key(self) -> str:
        return "" if self.embedder is None else f"{self.embedder.name}:{self.embedder.dimension}"

    # -- state -----------------------------------------------------------------------------
    def is_current(self) -> bool:
        """Whether the index holds the tables this code writes and the store's counts match
        those it last synced (the cheap staleness test: two counts, no record read)."""
        found, meta = self._index_state()
        return found == current_format() and self._counts_agree(meta)

    def _index_state(self) -> tuple[tuple[int, int] | None, dict[str, str]]:
        """:func:`index_state` of the file (not to be changed), read again only when it may
        have changed: when another connection committed to it (SQLite's ``data_version``)
        or this index began a write. A sync before each query then reads one pragma."""
        connection = self._connection
        try:
            (version,) = connection.execute("PRAGMA data_version").fetchone()
            known = self._state
            if known is not None and known[0] == version:
                return known[1]
            state = index_state(connection)
        except sqlite3.DatabaseError as error:
            raise self._failed(error) from None
        self._state = (version, state)
        return state

    def _counts_agree(self, meta: dict[str, str]) -> bool:
        """Whether the store's counts are those ``meta`` (the index's) last synced."""
        return meta.get("store_events") == str(self.storage.count_events()) and meta.get(
            "store_nodes"
        ) == str(self.storage.count_nodes())

    def recorded_embedder(self) -> str | None:
        """``name:dimension`` of the embedder the stored vectors came from, or None."""
        try:
            with self._errors():
                return read_meta(self._connection, "embedder") or None
        except StorageError:
            return None

    def counts(self) -> tuple[int, int, int]:
        """``(events, segments, vectors)`` indexed."""
        with self._errors():
            row = self._connection.execute(
                "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM nodes), "
                "(SELECT count(*) FROM vectors)"
            ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    def _meta(self) -> dict[str, str]:
        return self._index_state()[1]

    @staticmethod
    def _rowids(
        connection: sqlite3.Connection, table: str, column: str, keys: Sequence[str]
    ) -> dict[str, int]:
        found: dict[str, int] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(
                connection.execute(
                    f"SELECT {column}, id FROM {table} WHERE {column} IN ({marks})", chunk
                ).fetchall()
            )
        return found

    def close(self) -> None:
        """Close the file; closing twice is fine."""
        with contextlib.suppress(sqlite3.Error):
            self._connection.close()
