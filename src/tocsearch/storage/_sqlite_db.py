"""A connection to a store's SQLite database: opening it, turning SQLite's failures into
tocsearch errors, and running writes as transactions.

A writer's connection runs in WAL mode with ``synchronous=FULL``, so a committed transaction
is in the fsynced log when ``COMMIT`` returns; a reader's connection is ``mode=ro`` and
``query_only``. Both are in autocommit mode: writes begin and commit their own transactions,
and each read sees the last committed state, except within :meth:`Database.reading`, where the
reads of a block share one read transaction (:mod:`tocsearch.storage._sqlite_reads`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from tocsearch.errors import StorageError, StoreClosed, StoreCorrupted, StoreLocked
from tocsearch.storage._sqlite_fts import FTS_VERSION, fts_version
from tocsearch.storage._sqlite_reads import HeldReads
from tocsearch.storage._sqlite_schema import SCHEMA_VERSION, create_schema

__all__ = ["Database", "row_limit", "sqlite_errors", "storage_error"]

# How long a connection waits for the moments when SQLite itself holds the file (recovery
# of the log after a crash, a checkpoint).
_BUSY_SECONDS = 5.0
# Ids per "IN (...)" list: far below SQLite's limit on bound parameters.
_CHUNK = 500
# The largest integer SQLite holds: no query returns more rows.
_MOST_ROWS = 2**63 - 1


def row_limit(limit: int) -> int:
    """``limit`` as a ``LIMIT`` SQLite takes: a larger Python int raises OverflowError when
    bound, and written into the SQL it is read as a real number (a "datatype mismatch").

    >>> row_limit(10**20) == 2**63 - 1
    True
    """
    return min(limit, _MOST_ROWS)


@contextmanager
def sqlite_errors(
    where: Path | str, *, kind: str = "tocsearch database", advice: str = ""
) -> Iterator[None]:
    """Turn what SQLite raises into tocsearch errors naming the file (``where``).

    A busy or locked database is a :class:`StoreLocked`; a file that is not a database, a
    damaged page or a missing table is a :class:`StoreCorrupted`; a failure of the disk
    (full, unreadable) is a :class:`StorageError`. ``kind`` names what the file should be and
    ``advice`` (``"; rebuild it"``) ends the message of a damaged one, for other SQLite files
    (a search index) that share this mapping.
    """
    try:
        yield
    except sqlite3.DatabaseError as error:
        raise storage_error(error, where, kind=kind, advice=advice) from None


def storage_error(
    error: sqlite3.DatabaseError,
    where: Path | str,
    *,
    kind: str = "tocsearch database",
    advice: str = "",
) -> StorageError:
    """The tocsearch error :func:`sqlite_errors` raises for ``error``, for a hot path that
    catches SQLite's errors itself (a ``with`` block costs more than the query it guards)."""
    if isinstance(error, sqlite3.OperationalError):
        message = str(error)
        if "locked" in message or "busy" in message:
            return StoreLocked(f"{where}: {message}")
        if "disk" in message or "unable to open" in message or "I/O" in message:
            return StorageError(f"{where}: {message}")
        return StoreCorrupted(f"{where}: {message}{advice}")
    return StoreCorrupted(f"{where}: not a readable {kind} ({error}){advice}")


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    if readonly:
        connection = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro",
            uri=True,
            isolation_level=None,
            check_same_thread=False,
            timeout=_BUSY_SECONDS,
        )
        connection.execute("PRAGMA query_only = ON")
        return connection
    connection = sqlite3.connect(
        os.fspath(path), isolation_level=None, check_same_thread=False, timeout=_BUSY_SECONDS
    )
    mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()
    if mode is None or str(mode[0]).lower() != "wal":
        connection.close()
        raise StorageError(f"{path}: SQLite refused write-ahead logging (journal mode {mode})")
    # Durable when a commit returns, as the Storage protocol promises: fsync the log on every
    # commit, not only at checkpoints.
    connection.execute("PRAGMA synchronous = FULL")
    return connection


class Database:
    """One connection to a store's database, shared by the store's calls.

    Args:
        path: the database file.
        readonly: open it read-only.
        create: lay out the tables of an empty database first.

    Raises:
        StoreCorrupted: the file is not a database, or of another schema version.
    """

    def __init__(self, path: Path, *, readonly: bool, create: bool = False) -> None:
        self.path = path
        # Blocks of reads in one transaction; its lock also keeps writes of threads apart.
        self._reads = HeldReads(lambda: self._connection, self._failed)
        # Transactions run on this connection (committed or not), for a store's revision.
        self.transactions = 0
        with sqlite_errors(path):
            self._connection: sqlite3.Connection | None = _connect(path, readonly=readonly)
            try:
                if create:
                    create_schema(self._connection)
                self.check_versions(fts=False)
            except BaseException:
                self.close()
                raise

    def connection(self) -> sqlite3.Connection:
        """The open connection.

        Raises:
            StoreClosed: the database was closed.
        """
        if self._connection is None:
            raise StoreClosed(f"{self.path} is closed")
        return self._connection

    def check_versions(self, *, fts: bool = True) -> None:
        """Raise StoreCorrupted unless the schema (and, with ``fts``, the FTS tables) are the
        versions this code reads."""
        connection = self.connection()
        with sqlite_errors(self.path):
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            found = fts_version(connection)
        if version != SCHEMA_VERSION:
            raise StoreCorrupted(
                f"{self.path}: schema version {version}, this version reads {SCHEMA_VERSION}"
            )
        if fts and found != FTS_VERSION:
            raise StoreCorrupted(
                f"{self.path}: full-text tables of version {found}, expected {FTS_VERSION}; "
                "open the store once as a writer to rebuild them"
            )

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row a query returns."""
        connection = self.connection()
        try:
            return connection.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as error:
            raise storage_error(error, self.path) from None

    def value(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row, or None when there is no row."""
        rows = self.rows(sql, params)
        return rows[0][0] if rows else None

    def rows_in(self, sql: str, values: Sequence[Any]) -> list[Any]:
        """The rows of ``sql``, whose ``{marks}`` is filled with one ``?`` per value, run in
        chunks so any number of values can be passed."""
        found: list[Any] = []
        for start in range(0, len(values), _CHUNK):
            chunk = values[start : start + _CHUNK]
            found += self.rows(sql.format(marks=",".join("?" * len(chunk))), chunk)
        return found

    def _failed(self, error: sqlite3.DatabaseError) -> StorageError:
        return storage_error(error, self.path)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """An immediate transaction: everything done in the block commits, or nothing does.
        Inside :meth:`reading` on this thread, the block's reads go on after it and see it."""
        connection = self.connection()
        with self._reads.paused(), sqlite_errors(self.path):
            connection.execute("BEGIN IMMEDIATE")
            try:
                try:
                    yield connection
                except BaseException:
                    connection.execute("ROLLBACK")
                    raise
                connection.execute("COMMIT")
            finally:
                # After the commit: a reader that read the count before it reads again.
                self.transactions += 1

    def reading(self) -> AbstractContextManager[None]:
        """A block whose reads run in one read transaction: they see one committed state and
        take the file's read lock once. Writes of other threads wait for the block to end.

        Raises:
            StoreClosed: the database was closed.
            StorageError: the transaction could not begin or end.
        """
        self.connection()
        return self._reads.reading()

    @contextmanager
    def outside_reads(self) -> Iterator[None]:
        """Around statements that cannot run inside a transaction (``VACUUM``) or write
        outside :meth:`transaction`: a block of :meth:`reading` this thread holds is ended
        first and goes on after."""
        with self._reads.paused():
            yield

    def held_reads(self) -> int | None:
        """A number for the read transaction a :meth:`reading` block holds now (the same
        while nothing another connection commits can be seen), or None outside one."""
        return self._reads.held()

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version`` of this connection: it changes when another
        connection (of this process or another) commits, and never for this one's own."""
        connection = self.connection()
        with sqlite_errors(self.path):
            return int(connection.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        """Close the connection; closing twice is fine."""
        if self._connection is not None:
            connection, self._connection = self._connection, None
            connection.close()
