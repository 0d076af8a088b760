"""SqliteStorage: every record in one SQLite database, with FTS5 tables kept in the same
transactions.

Layout of a store directory::

    tocsearch-store.json             format marker, written last when the store is created
    .lock                            the writer's flock target
    tocsearch.sqlite3                the database (tables in tocsearch.storage._sqlite_schema)
    tocsearch.sqlite3-wal, -shm      SQLite's write-ahead log and its index, while in use

The database runs in WAL mode with ``synchronous=FULL``: a put returns once its transaction is
in the fsynced log, and readers in other processes read the last committed state without ever
blocking the writer. Queries run in SQLite on its B-tree indexes, so opening a store reads
nothing but the schema version, whatever the size of the history.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from tocsearch.errors import StoreCorrupted
from tocsearch.ids import event_id_ceiling, event_id_floor
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode, time_order
from tocsearch.storage._common import (
    StorageCommon,
    asked_ids,
    next_revision,
    require_limit,
    require_string_id,
)
from tocsearch.storage._files import refuse_links, remove_temp_files, store_root
from tocsearch.storage._files_store import (
    MARKER_NAME,
    open_store_dir,
    read_only_error,
    write_marker,
)
from tocsearch.storage._fts_merge import MERGED_EVENTS, MergeSchedule
from tocsearch.storage._home import opened_home
from tocsearch.storage._lock import LOCK_NAME
from tocsearch.storage._recent import RecentEvents
from tocsearch.storage._salvage import Salvage
from tocsearch.storage._sqlite_check import check_rows, rebuild_fts, salvage_database
from tocsearch.storage._sqlite_db import Database, row_limit, sqlite_errors
from tocsearch.storage._sqlite_fts import (
    FTS_VERSION,
    delete_event_texts,
    delete_segment_texts,
    event_text,
    fts_version,
    merge_fts_tables,
    segment_fields,
    upsert_event_texts,
    upsert_segment_texts,
)
from tocsearch.storage._sqlite_schema import (
    DATABASE_NAME,
    decode_record,
    record_text,
    session_key,
    to_us,
)
from tocsearch.text import encodable

__all__ = ["SqliteStorage"]

_FORMAT = "tocsearch.sqlite"
_R = TypeVar("_R", TocNode, Grip, Event)
_OWN_FILES = (MARKER_NAME, LOCK_NAME, DATABASE_NAME, DATABASE_NAME + "-wal", DATABASE_NAME + "-shm")


def _key(value: object) -> str | None:
    """``value`` as an id SQLite can look up, or None when no stored record can have it."""
    if not isinstance(value, str) or not value:
        return None
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return value


def _write_merge_mark(connection: sqlite3.Connection, events: str) -> None:
    """Record that the full-text tables were merged at ``events`` events."""
    connection.execute(
        "INSERT OR REPLACE INTO fts_meta (key, value) VALUES (?, ?)", (MERGED_EVENTS, events)
    )


def _bound(kind: str, value: str) -> str:
    """An id used as a range bound, as SQLite can be given it, ordered against every stored
    id as ``value`` itself is.

    Unpaired surrogates, which SQLite cannot encode, become U+FFFD (:func:`encodable`), which
    changes no answer: event ids are ASCII, so an id compares with a bound by the bound's ASCII
    head and, past it, by its first other character, which stays a non-ASCII one at the same
    place. The other stores compare the bound as it is; all of them answer alike.
    """
    require_string_id(kind, value)
    return encodable(value)


def _refuse_symlinks(directory: Path) -> None:
    refuse_links(directory / name for name in _OWN_FILES)


class SqliteStorage(StorageCommon):
    """A durable store in one SQLite database, the choice for large histories.

    Args:
        path: the store directory; a writer creates it (and its parents) when missing.
        readonly: open without the writer lock; writes then raise StoreReadOnly.

    One writer at a time holds the store (a lock file, as for the other file stores); any
    number of readers, in this process or others, read beside it and see every committed
    write. Event and segment texts are indexed by FTS5 in the same transaction as the records
    (see :mod:`tocsearch.storage._sqlite_fts`); :attr:`database_path` names the file for
    queries of one's own.

    Raises:
        StoreLocked: another writer holds the store.
        StorageError: the path is not a SQLite store (or, for a reader, no store).
        StoreCorrupted: the database is damaged or of an unknown schema version, or one of
            the store's files is a symbolic link.
    """

    FORMAT = _FORMAT
    """The format name in the store's marker file."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        super().__init__()
        if store_root(path).is_dir():
            _refuse_symlinks(store_root(path))
        directory, lock, created = open_store_dir(path, _FORMAT, readonly=readonly)
        self._path = directory
        self._lock = lock
        self._home = opened_home(directory, lock)
        # The transactions and data version the revision was last worked out from, and the
        # read transaction of a reading() block it was worked out in (None outside one).
        self._revision_of: tuple[int, int] | None = None
        self._revision_held: int | None = None
        # The record counts read at one revision (kept for reading() blocks).
        self._counted: tuple[int | None, dict[str, int]] = (None, {})
        # Only a writer remembers what it wrote: no other process can replace those rows.
        self._recent = RecentEvents()
        try:
            _refuse_symlinks(directory)
            if lock is not None:
                # The marker is written through a temporary file, which a crash can leave.
                remove_temp_files([directory])
            database = directory / DATABASE_NAME
            if not created and not database.is_file():
                raise StoreCorrupted(f"{database}: the store's database is missing")
            self._db = Database(database, readonly=readonly, create=created)
            self._merges = MergeSchedule(self._db.transaction, _write_merge_mark)
            with sqlite_errors(database):
                stale = fts_version(self._db.connection()) != FTS_VERSION
            if lock is not None and stale:
                # Missing or of another version: a writer indexes every record again.
                with self._db.transaction() as connection:
                    rebuild_fts(connection, database)
            self._db.check_versions()
            if created:
                write_marker(directory, _FORMAT)
        except BaseException:
            if hasattr(self, "_db"):
                self._db.close()
            if lock is not None:
                lock.release()
            raise

    # -- plumbing ------------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        """The store directory."""
        return self._path

    @property
    def database_path(self) -> Path:
        """The SQLite database file, for read-only queries of one's own (``mode=ro``)."""
        return self._db.path

    @property
    def readonly(self) -> bool:
        """Whether this store was opened with ``readonly=True`` (and so refuses writes)."""
        return self._lock is None

    def _decode(self, text: object, cls: type[_R], record_id: str) -> _R:
        return decode_record(self._db.path, text, cls, record_id)

    def _ensure_writable(self, action: str) -> None:
        self._ensure_open()
        if self._lock is None:
            raise read_only_error(self._path, action)

    def _row_ids(self, table: str, column: str, ids: Sequence[str]) -> dict[str, int]:
        sql = f"SELECT {column}, id FROM {table} WHERE {column} IN ({{marks}})"
        return dict(self._db.rows_in(sql, ids))

    # -- nodes -------------------------------------------------------------------------------
    def put_nodes(self, nodes: Iterable[TocNode]) -> None:
        self._ensure_writable("put nodes")
        batch = list({node.node_id: node for node in nodes}.values())
        if not batch:
            return
        rows = [
            (node.node_id, node.level.value, to_us(node.start_time), to_us(node.end_time))
            for node in batch
        ]
        records = [record_text(node) for node in batch]
        longest: dict[str, int] = {}
        for _, level, start, end in rows:
            longest[level] = max(longest.get(level, 0), end - start)
        segments = [node for node in batch if node.level is TocLevel.SEGMENT]
        texts = [segment_fields(node) for node in segments]
        with self._db.transaction() as connection:
            connection.executemany(
                "INSERT INTO nodes (node_id, level, start_us, end_us, record) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (node_id) DO UPDATE SET "
                "start_us = excluded.start_us, end_us = excluded.end_us, "
                "record = excluded.record",
                [(*row, record) for row, record in zip(rows, records, strict=True)],
            )
            connection.executemany(
                "INSERT INTO level_spans (level, longest_us) VALUES (?, ?) "
                "ON CONFLICT (level) DO UPDATE SET "
                "longest_us = max(longest_us, excluded.longest_us)",
                longest.items(),
            )
            if segments:
                ids = self._row_ids("nodes", "node_id", [node.node_id for node in segments])
                upsert_segment_texts(
                    connection,
                    [(ids[node.node_id], f) for node, f in zip(segments, texts, strict=True)],
                )

    def find_node(self, node_id: str) -> TocNode | None:
        self._ensure_open()
        require_string_id("node_id", node_id)
        key = _key(node_id)
        if key is None:
            return None
        text = self._db.value("SELECT record FROM nodes WHERE node_id = ?", (key,))
        return None if text is None else self._decode(text, TocNode, key)

    def delete_node(self, node_id: str) -> None:
        self._ensure_writable("delete a node")
        require_string_id("node_id", node_id)
        key = _key(node_id)
        if key is None:
            return
        with self._db.transaction() as connection:
            row = connection.execute(
                "SELECT id, level FROM nodes WHERE node_id = ?", (key,)
            ).fetchone()
            if row is not None:
                if row[1] == TocLevel.SEGMENT.value:
                    delete_segment_texts(connection, [row[0]])
                connection.execute("DELETE FROM nodes WHERE id = ?", (row[0],))

    def get_child_nodes(self, parent_id: str) -> list[TocNode]:
        parent = self.get_node(parent_id)
        wanted = [key for key in dict.fromkeys(parent.child_node_ids) if _key(key) is not None]
        rows = self._db.rows_in(
            "SELECT node_id, record FROM nodes WHERE node_id IN ({marks})", wanted
        )
        children = [self._decode(text, TocNode, node_id) for node_id, text in rows]
        children.sort(key=time_order)
        return children

    def get_nodes_by_level(
        self, level: TocLevel, start: datetime | None = None, end: datetime | None = None
    ) -> list[TocNode]:
        """The nodes of one level whose span overlaps ``[start, end)``, by start time.

        Runtime complexity: O(log n + k + w) rows read, for k nodes returned and w nodes of
        the level that start within the longest stored span before ``start``.
        """
        self._ensure_open()
        level = TocLevel(level)
        sql = "SELECT node_id, record FROM nodes WHERE level = ?"
        params: list[Any] = [level.value]
        if end is not None:
            sql += " AND start_us < ?"
            params.append(to_us(end))
        if start is not None:
            longest = self._db.value(
                "SELECT longest_us FROM level_spans WHERE level = ?", (level.value,)
            )
            # Only a node that starts within the longest span before ``start`` can reach it.
            sql += " AND start_us >= ? AND end_us >= ?"
            params += [to_us(start) - (longest or 0), to_us(start)]
        sql += " ORDER BY start_us, node_id"
        return [
            self._decode(text, TocNode, node_id) for node_id, text in self._db.rows(sql, params)
        ]

    def iter_node_ids(self) -> Iterator[str]:
        self._ensure_open()
        return iter([row[0] for row in self._db.rows("SELECT node_id FROM nodes")])

    def count_nodes(self) -> int:
        return self._count("nodes")

    # -- grips -------------------------------------------------------------------------------
    def put_grips(self, grips: Iterable[Grip]) -> None:
        self._ensure_writable("put grips")
        rows = [(grip.grip_id, record_text(grip)) for grip in grips]
        if rows:
            with self._db.transaction() as connection:
                connection.executemany(
                    "INSERT OR REPLACE INTO grips (grip_id, record) VALUES (?, ?)", rows
                )

    def find_grip(self, grip_id: str) -> Grip | None:
        self._ensure_open()
        require_string_id("grip_id", grip_id)
        key = _key(grip_id)
        if key is None:
            return None
        text = self._db.value("SELECT record FROM grips WHERE grip_id = ?", (key,))
        return None if text is None else self._decode(text, Grip, key)

    def find_grips(self, grip_ids: Iterable[str]) -> dict[str, Grip]:
        """The stored grips among ``grip_ids``, by id, read by one query per 500 ids."""
        keys = [key for key in map(_key, self._asked_grip_ids(grip_ids)) if key is not None]
        rows = self._db.rows_in(
            "SELECT grip_id, record FROM grips WHERE grip_id IN ({marks})", keys
        )
        read = {grip_id: self._decode(text, Grip, grip_id) for grip_id, text in rows}
        return {key: read[key] for key in keys if key in read}

    def delete_grip(self, grip_id: str) -> None:
        self._ensure_writable("delete a grip")
        require_string_id("grip_id", grip_id)
        key = _key(grip_id)
        if key is not None:
            with self._db.transaction() as connection:
                connection.execute("DELETE FROM grips WHERE grip_id = ?", (key,))

    def iter_grip_ids(self) -> Iterator[str]:
        self._ensure_open()
        return iter([row[0] for row in self._db.rows("SELECT grip_id FROM grips")])

    # -- events ------------------------------------------------------------------------------
    def put_events(self, events: Iterable[Event]) -> None:
        self._ensure_writable("put events")
        batch = list({event.event_id: event for event in events}.values())
        if not batch:
            return
        rows = [
            (
                event.event_id,
                session_key(event.session_id),
                to_us(event.timestamp),
                record_text(event),
            )
            for event in batch
        ]
        texts = [event_text(event) for event in batch]
        self._recent.forget(event.event_id for event in batch)
        with self._db.transaction() as connection:
            connection.executemany(
                "INSERT INTO events (event_id, session, time_us, record) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (event_id) DO UPDATE SET session = excluded.session, "
                "time_us = excluded.time_us, record = excluded.record",
                rows,
            )
            ids = self._row_ids("events", "event_id", [event.event_id for event in batch])
            upsert_event_texts(
                connection,
                [(ids[event.event_id], text) for event, text in zip(batch, texts, strict=True)],
            )
        self._recent.remember(batch)
        self._merge_when_grown()

    def _merge_when_grown(self) -> None:
        """Merge the full-text tables once the store has grown enough since their last merge
        (the rule of :mod:`tocsearch.storage._fts_merge`, which a sidecar index follows too),
        so a query of them reads one segment per term instead of one per batch written.

        Runtime complexity: one read of two values when no merge is due."""
        events, merged = self._db.rows(
            "SELECT (SELECT n FROM counts WHERE kind = 'events'), "
            "(SELECT value FROM fts_meta WHERE key = ?)",
            (MERGED_EVENTS,),
        )[0]
        self._merges.merge_when_grown(int(events), merged)

    def find_event(self, event_id: str) -> Event | None:
        self._ensure_open()
        require_string_id("event_id", event_id)
        key = _key(event_id)
        if key is None:
            return None
        text = self._db.value("SELECT record FROM events WHERE event_id = ?", (key,))
        return None if text is None else self._event(key, text)

    def _event(self, event_id: str, text: object) -> Event:
        """The event a row holds: the one this writer just wrote, if it still keeps it."""
        kept = self._recent.get(event_id)
        return kept if kept is not None else self._decode(text, Event, event_id)

    def has_event(self, event_id: str) -> bool:
        self._ensure_open()
        require_string_id("event_id", event_id)
        key = _key(event_id)
        return key is not None and bool(
            self._db.rows("SELECT 1 FROM events WHERE event_id = ?", (key,))
        )

    def _events(
        self,
        where: str,
        params: Sequence[Any],
        *,
        descending: bool = False,
        limit: int | None = None,
    ) -> list[Event]:
        self._ensure_open()
        sql = f"SELECT event_id, record FROM events WHERE {where} ORDER BY event_id"
        if descending:
            sql += " DESC"
        if limit is not None:
            sql += f" LIMIT {row_limit(int(limit))}"
        rows = self._db.rows(sql, params)
        if descending:
            rows.reverse()
        return [self._event(event_id, text) for event_id, text in rows]

    def get_events(self, start: datetime | None = None, end: datetime | None = None) -> list[Event]:
        # Bounds on the id (which carries the millisecond) use its unique index; the exact
        # timestamps then split the boundary milliseconds.
        where, params = ["1"], []
        if start is not None:
            where.append("event_id >= ? AND time_us >= ?")
            params += [event_id_floor(start), to_us(start)]
        if end is not None:
            ceiling = event_id_ceiling(end)
            if ceiling is not None:  # else no event id is that late
                params.append(ceiling)
                where.append("event_id < ?")
            where.append("time_us < ?")
            params.append(to_us(end))
        return self._events(" AND ".join(where), params)

    def get_event_range(self, first_id: str, last_id: str) -> list[Event]:
        self._ensure_open()
        bounds = (_bound("first_id", first_id), _bound("last_id", last_id))
        return self._events("event_id BETWEEN ? AND ?", bounds)

    def get_events_before(self, event_id: str, limit: int) -> list[Event]:
        self._ensure_open()
        bound = _bound("event_id", event_id)
        require_limit(limit)
        if limit <= 0:
            return []
        return self._events("event_id < ?", (bound,), descending=True, limit=limit)

    def get_events_after(self, event_id: str, limit: int) -> list[Event]:
        self._ensure_open()
        bound = _bound("event_id", event_id)
        require_limit(limit)
        if limit <= 0:
            return []
        return self._events("event_id > ?", (bound,), limit=limit)

    def get_session_events(self, session_id: str) -> list[Event]:
        self._ensure_open()
        require_string_id("session_id", session_id)
        return self._events("session = ?", (session_key(session_id),))

    def count_events(self) -> int:
        return self._count("events")

    def _count(self, kind: str) -> int:
        """The number of records of ``kind`` (``events``, ``nodes``). Within a
        :meth:`reading` block, where the revision costs nothing once known, a count read at
        the same revision before (in this block or an earlier one) is not read again."""
        self._ensure_open()
        if self._db.held_reads() is None:
            return int(self._db.value("SELECT n FROM counts WHERE kind = ?", (kind,)))
        revision = self.revision()
        at, counts = self._counted
        if at != revision:
            counts = {}
            self._counted = (revision, counts)
        count = counts.get(kind)
        if count is None:
            count = int(self._db.value("SELECT n FROM counts WHERE kind = ?", (kind,)))
            counts[kind] = count
        return count

    def delete_events(self, event_ids: Iterable[str]) -> None:
        """Remove these events and their full-text rows in one transaction."""
        self._ensure_writable("delete events")
        keys = [key for key in map(_key, asked_ids("event_id", event_ids)) if key is not None]
        if not keys:
            return
        self._recent.forget(keys)
        with self._db.transaction() as connection:
            rows = self._row_ids("events", "event_id", keys)
            delete_event_texts(connection, rows.values())
            connection.executemany("DELETE FROM events WHERE id = ?", ((i,) for i in rows.values()))

    def scrub(self) -> None:
        """Merge the full-text indexes (dropping what deleted rows left in them), rewrite the
        database without free pages (``VACUUM``), and empty the write-ahead log, so no page of
        the files holds a removed or replaced record.

        Runtime complexity: a rewrite of the whole database file.
        """
        self._ensure_writable("scrub the store")
        with self._db.transaction() as connection:
            merge_fts_tables(connection)
            (events,) = connection.execute("SELECT n FROM counts WHERE kind = 'events'").fetchone()
            _write_merge_mark(connection, str(events))
        connection = self._db.connection()
        # VACUUM cannot run inside a transaction, such as that of a reading() block.
        with self._db.outside_reads(), sqlite_errors(self._db.path):
            connection.execute("VACUUM")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- lifecycle ---------------------------------------------------------------------------
    def check(self) -> None:
        """Verify the database pages, that every row decodes to the record its key columns
        name, that the FTS5 tables hold exactly the texts of the stored events and segments,
        and that the counts and level spans cover the rows.

        Raises:
            StoreCorrupted: naming the first broken record.
        """
        self._ensure_open()
        self._db.check_versions()
        connection = self._db.connection()
        # FTS5's check is written as an INSERT: outside the read transaction of a block.
        with self._db.outside_reads(), sqlite_errors(self._db.path):
            problems = [row[0] for row in connection.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise StoreCorrupted(f"{self._db.path}: {'; '.join(map(str, problems[:5]))}")
            if self._lock is not None:
                # FTS5's own check is written as an INSERT, which a read-only connection
                # refuses; the row-by-row comparison below runs for readers too.
                for table in ("events_fts", "segments_fts"):
                    connection.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
            check_rows(connection, self._db.path)

    @classmethod
    def salvage(cls, directory: Path) -> Salvage:
        """Every event that can still be read out of a possibly damaged store, and the event
        ids its readable segments cite; each row or table that cannot be read is named. The
        caller holds the writer lock."""
        return salvage_database(directory / DATABASE_NAME)

    def revision(self) -> int | None:
        """Changes with every transaction of this store object and every commit another
        connection makes (``PRAGMA data_version``), in this process or another: a reader
        sees a writer's commits here as its queries do. One pragma a call.

        Raises:
            StorageError: the store's directory was moved away, removed or replaced since it
                opened.
        """
        self._ensure_open()
        db = self._db
        held = db.held_reads()
        if held is not None and held == self._revision_held:
            # The same read transaction: no other connection's commit can be seen in it, and
            # a write through this store ends it (see _sqlite_reads).
            return self._revision
        # The database file stays open wherever its directory goes, and reads answer from it;
        # the revision, asked first by a reader that keeps what it read, says so.
        self._home.confirm("read the store")
        state = (db.transactions, db.data_version())
        if state != self._revision_of:
            # Read after the state: a write that lands meanwhile moves the state again.
            self._revision_of = state
            self._revision = next_revision()
        self._revision_held = held
        return self._revision

    def reading(self) -> AbstractContextManager[None]:
        """Run the reads of the block in one SQLite read transaction: they see one committed
        state of the store, take the database's read lock once instead of once per query,
        and within it :meth:`revision` and the counts are asked of SQLite once. A write of
        another process lands meanwhile and is seen after the block; a write through this
        object from another thread waits for the block to end; one from this thread is
        committed at once and seen by the rest of the block.

        Raises:
            StoreClosed: the store was closed.
        """
        self._ensure_open()
        return self._db.reading()

    def refresh(self) -> None:
        """Nothing to forget: every query reads the last committed state. Kept so that code
        written for the other file stores runs unchanged."""
        self._ensure_open()

    def _release(self) -> None:
        try:
            self._db.close()
        finally:
            if self._lock is not None:
                self._lock.release()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "readonly" if self.readonly else "writer"
        return f"{type(self).__name__}({str(self._path)!r}, {state})"
