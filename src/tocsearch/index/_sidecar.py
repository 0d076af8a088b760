"""SearchIndex: FTS5 (and optionally vectors) over a store's event and segment texts, kept in a
SQLite file beside the store.

The index is derived data. It is built on first use, brought up to date when the store has
changed behind its back (:meth:`SearchIndex.sync`, detected cheaply by comparing the store's
record counts with the counts the index last saw), and can be rebuilt from the store at any
time (:meth:`SearchIndex.rebuild`, ``tocsearch index --rebuild``). Writes made through
:class:`~tocsearch.index.IndexingStorage` reach the store and the index together.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from tocsearch.errors import InvalidId, StorageError, StoreCorrupted
from tocsearch.ids import parse_node_id
from tocsearch.index._embedder import Embedder, normalized_rows
from tocsearch.index._query import match_all, match_any
from tocsearch.index._query_vectors import QueryVectors
from tocsearch.index._schema import (
    create_index_tables,
    current_format,
    drop_index_tables,
    index_state,
    read_meta,
    write_meta,
)
from tocsearch.index._vectors import VectorMatrix
from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocNode
from tocsearch.storage._fts_merge import MERGED_EVENTS, MergeSchedule
from tocsearch.storage._sqlite_db import row_limit, storage_error
from tocsearch.storage._sqlite_fts import (
    delete_event_texts,
    delete_segment_texts,
    event_text,
    merge_fts_tables,
    segment_fields,
    upsert_event_texts,
    upsert_segment_texts,
)
from tocsearch.storage.protocol import Storage
from tocsearch.text import ascii_digits

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from tocsearch.index._search import SearchMode, SearchOutcome

__all__ = [
    "INDEX_FILE_NAME",
    "IndexSync",
    "SearchIndex",
    "default_index_path",
    "existing_index",
    "to_us",
]

INDEX_FILE_NAME = "search-index.sqlite3"
"""The sidecar's file name inside a store directory."""

_EMBED_BATCH = 64
# Texts embedded between two commits of their vectors.
_EMBED_CHUNK = _EMBED_BATCH * 16
# Embedding models read a few hundred tokens; the rest of a long tool output would be cut anyway.
_EMBED_CHARS = 2_000
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


def existing_index(storage: Storage) -> SearchIndex | None:
    """The index kept beside ``storage`` when its file exists, with the embedder its vectors
    came from when that can be made here (see :func:`~tocsearch.index._choice.
    recorded_embedder`), else None: a command that only reads neither creates an index nor
    re-embeds one."""
    from tocsearch.index._choice import recorded_embedder

    path = default_index_path(storage)
    if path is None or not path.is_file():
        return None
    index = SearchIndex(storage, path)
    index.embedder = recorded_embedder(index.recorded_embedder())
    return index


@attrs.frozen
class IndexSync:
    """What one :meth:`SearchIndex.sync` or :meth:`SearchIndex.rebuild` changed."""

    rebuilt: bool = False
    events_added: int = 0
    events_removed: int = 0
    segments_indexed: int = 0
    segments_removed: int = 0
    vectors_added: int = 0

    @property
    def changed(self) -> bool:
        """Whether anything was written."""
        return bool(
            self.rebuilt
            or self.events_added
            or self.events_removed
            or self.segments_indexed
            or self.segments_removed
            or self.vectors_added
        )


def _embedding_text(event: Event) -> str:
    """What an event's vector is made from: its indexed text, cut to :data:`_EMBED_CHARS`."""
    return event_text(event)[:_EMBED_CHARS]


def _is_segment(node_id: str) -> bool:
    try:
        return parse_node_id(node_id).level is TocLevel.SEGMENT
    except InvalidId:
        return False


class SearchIndex:
    """An FTS5 index (and, with an embedder, a vector index) over one store.

    Args:
        storage: the store whose texts are indexed.
        path: the sidecar file; by default :func:`default_index_path` (in memory for a store
            without a directory).
        embedder: turns texts into vectors; without one, only full-text search is available.

    Opening never reads the store; :meth:`sync` does, and only when the store changed since the
    index last saw it.

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

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._errors():
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

    # -- building --------------------------------------------------------------------------
    def rebuild(self) -> IndexSync:
        """Drop everything and index the whole store again; a file that is not a readable
        database is replaced."""
        if self.path is not None and not self._readable():
            self._connection.close()
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{self.path}{suffix}")
            self._connection = self._connect()
            self._state = None
        self._embedded = None
        with self._transaction() as connection:
            drop_index_tables(connection)
            create_index_tables(connection)
        report = self._backfill()
        self._merge_when_grown(self._meta())
        return attrs.evolve(report, rebuilt=True)

    def _readable(self) -> bool:
        try:
            self._connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError:
            return False
        return True

    def sync(self) -> IndexSync:
        """Bring the index up to date with the store: build it when missing or of another
        format, add what the store gained, drop segments it lost, embed events that have no
        vector from the current embedder. Cheap when nothing changed.

        Runtime complexity: O(1) store reads when the counts match; otherwise one pass over the
        store's events and segment ids.
        """
        found, meta = self._index_state()
        if found is None or found != current_format():
            return self.rebuild()
        report = IndexSync()
        if not self._counts_agree(meta):
            report = self._backfill()
            meta = self._meta()
        vectors = self._embed_missing()
        self._merge_when_grown(meta)
        if not vectors:
            return report
        return attrs.evolve(report, vectors_added=report.vectors_added + vectors)

    def _meta(self) -> dict[str, str]:
        return self._index_state()[1]

    def _merge_when_grown(self, meta: dict[str, str]) -> None:
        """Merge the full-text tables when the index has grown enough since it was last
        merged (:mod:`tocsearch.storage._fts_merge`)."""
        events = meta.get("store_events", "")
        if ascii_digits(events):
            self._merges.merge_when_grown(int(events), meta.get(MERGED_EVENTS))

    def _indexed_event_ids(self) -> set[str]:
        with self._errors():
            return {row[0] for row in self._connection.execute("SELECT event_id FROM events")}

    def _indexed_segment_ids(self) -> set[str]:
        with self._errors():
            return {row[0] for row in self._connection.execute("SELECT node_id FROM nodes")}

    def _backfill(self) -> IndexSync:
        storage = self.storage
        known = self._indexed_event_ids()
        stored = storage.get_events()
        new_events = [event for event in stored if event.event_id not in known]
        # Events deleted by a writer that did not go through the index (a forget) leave it too.
        removed = known - {event.event_id for event in stored}
        stored_segments = {node_id for node_id in storage.iter_node_ids() if _is_segment(node_id)}
        indexed_segments = self._indexed_segment_ids()
        gone = indexed_segments - stored_segments
        wanted = stored_segments - indexed_segments
        refresh: list[TocNode] = []
        if new_events:
            # Segments that grew (or were cut anew) over the new events are indexed again.
            first = min(event.timestamp for event in new_events)
            last = max(event.timestamp for event in new_events)
            refresh = [
                node
                for node in storage.get_nodes_by_level(TocLevel.SEGMENT, first, last)
                if node.node_id not in wanted
            ]
        fresh = [node for node in map(storage.find_node, sorted(wanted)) if node is not None]
        self.add_events(new_events, embed=False)
        self.add_segments([*fresh, *refresh])
        self.remove_segments(gone)
        self.remove_events(removed)
        vectors = self._embed_missing()
        self.mark_synced()
        return IndexSync(
            events_added=len(new_events),
            events_removed=len(removed),
            segments_indexed=len(fresh) + len(refresh),
            segments_removed=len(gone),
            vectors_added=vectors,
        )

    def mark_synced(self) -> None:
        """Record the store's current counts as the ones the index agrees with."""
        with self._transaction() as connection:
            write_meta(connection, "store_events", str(self.storage.count_events()))
            write_meta(connection, "store_nodes", str(self.storage.count_nodes()))

    # -- writes ----------------------------------------------------------------------------
    def add_events(self, events: Iterable[Event], *, embed: bool = True) -> None:
        """Index events (replacing the texts of events already indexed) in one transaction;
        with an embedder, embed them too unless ``embed`` is false."""
        batch = list({event.event_id: event for event in events}.values())
        if not batch:
            return
        # Taken before the write: whether every event had its vector, so that embedding the
        # batch's own events leaves every event with one again, without a scan of them all.
        complete = self._vectors_complete()
        # The batch's events lose their vectors: until they have new ones, a check scans.
        self._embedded = None
        with self._transaction() as connection:
            connection.executemany(
                "INSERT INTO events (event_id, time_us) VALUES (?, ?) "
                "ON CONFLICT(event_id) DO UPDATE SET time_us = excluded.time_us",
                ((event.event_id, to_us(event.timestamp)) for event in batch),
            )
            rowids = self._rowids(connection, "events", "event_id", [e.event_id for e in batch])
            upsert_event_texts(
                connection, ((rowids[event.event_id], event_text(event)) for event in batch)
            )
            connection.executemany(
                "DELETE FROM vectors WHERE id = ?", ((rowids[e.event_id],) for e in batch)
            )
        if not embed or self.embedder is None:
            return
        if complete is None:
            self._embed_missing()
            return
        self._store_vectors([(rowids[event.event_id], _embedding_text(event)) for event in batch])
        # The data_version read before the write: a commit by another connection since then
        # (which may have left events without vectors) still makes the next check scan.
        self._embedded = complete

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

    def add_segments(self, nodes: Iterable[TocNode]) -> None:
        """Index segments (other levels are ignored), replacing what a segment had: its texts,
        its span and the events it owns."""
        batch = list(
            {node.node_id: node for node in nodes if node.level is TocLevel.SEGMENT}.values()
        )
        if not batch:
            return
        with self._transaction() as connection:
            connection.executemany(
                "INSERT INTO nodes (node_id, level, start_us, end_us) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(node_id) DO UPDATE SET start_us = excluded.start_us, "
                "end_us = excluded.end_us",
                (
                    (node.node_id, node.level.value, to_us(node.start_time), to_us(node.end_time))
                    for node in batch
                ),
            )
            rowids = self._rowids(connection, "nodes", "node_id", [n.node_id for n in batch])
            upsert_segment_texts(
                connection, ((rowids[node.node_id], segment_fields(node)) for node in batch)
            )
            connection.executemany(
                "DELETE FROM owners WHERE node_id = ?", ((node.node_id,) for node in batch)
            )
            connection.executemany(
                "INSERT OR REPLACE INTO owners (event_id, node_id) VALUES (?, ?)",
                ((event_id, node.node_id) for node in batch for event_id in node.event_ids),
            )

    def remove_segments(self, node_ids: Iterable[str]) -> None:
        """Forget segments: their texts and which events they owned. Ids not indexed are
        ignored."""
        wanted = [node_id for node_id in dict.fromkeys(node_ids) if _is_segment(node_id)]
        if not wanted:
            return
        with self._transaction() as connection:
            rowids = self._rowids(connection, "nodes", "node_id", wanted)
            delete_segment_texts(connection, rowids.values())
            connection.executemany("DELETE FROM nodes WHERE node_id = ?", ((n,) for n in wanted))
            connection.executemany("DELETE FROM owners WHERE node_id = ?", ((n,) for n in wanted))

    def remove_events(self, event_ids: Iterable[str]) -> None:
        """Forget events: their texts, vectors and owners. Ids not indexed are ignored."""
        wanted = list(dict.fromkeys(event_ids))
        if not wanted:
            return
        with self._transaction() as connection:
            rowids = self._rowids(connection, "events", "event_id", wanted)
            delete_event_texts(connection, rowids.values())
            connection.executemany(
                "DELETE FROM vectors WHERE id = ?", ((i,) for i in rowids.values())
            )
            connection.executemany(
                "DELETE FROM events WHERE id = ?", ((i,) for i in rowids.values())
            )
            connection.executemany("DELETE FROM owners WHERE event_id = ?", ((e,) for e in wanted))

    def scrub(self) -> None:
        """Leave no page of the index file holding removed text: merge the full-text indexes,
        rewrite the file without free pages and empty its write-ahead log."""
        with self._transaction() as connection:
            merge_fts_tables(connection)
        with self._errors():
            self._state = None
            self._connection.execute("VACUUM")
            if self.path is not None:
                self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _vectors_complete(self) -> tuple[int, str] | None:
        """The state of the last complete check (``(data_version, embedder)``) when it still
        holds, that is every event has its vector from this embedder; else None."""
        if self.embedder is None or self._embedded is None:
            return None
        with self._errors():
            (version,) = self._connection.execute("PRAGMA data_version").fetchone()
        state = (version, self._embedder_key())
        return state if self._embedded == state else None

    def _embed_missing(self) -> int:
        """Embed every event without a vector from the current embedder (all of them when the
        vectors came from another); skipped while :meth:`_vectors_complete` holds.

        Runtime complexity: O(1) while complete; otherwise one scan of every event."""
        embedder = self.embedder
        if embedder is None:
            return 0
        key = self._embedder_key()
        with self._errors():
            # SQLite's data_version changes when another connection commits to the file: while
            # it stays and this index wrote no event without its vector since, every event
            # still has its vector, and the scan of every event for one without is skipped.
            (version,) = self._connection.execute("PRAGMA data_version").fetchone()
            if self._embedded == (version, key):
                return 0
            if read_meta(self._connection, "embedder") != key:
                with self._transaction() as connection:
                    connection.execute("DELETE FROM vectors")
                    write_meta(connection, "embedder", key)
            missing = self._connection.execute(
                "SELECT events.id, events.event_id FROM events "
                "LEFT JOIN vectors ON vectors.id = events.id WHERE vectors.id IS NULL "
                "ORDER BY events.id"
            ).fetchall()
        for start in range(0, len(missing), _EMBED_CHUNK):
            self._store_vectors(self._event_texts(missing[start : start + _EMBED_CHUNK]))
        self._embedded = (version, key)
        return len(missing)

    def _store_vectors(self, texts: Sequence[tuple[int, str]]) -> None:
        """Embed ``(rowid, text)`` pairs and store each vector under its event's rowid, a
        transaction per :data:`_EMBED_CHUNK` texts."""
        for start in range(0, len(texts), _EMBED_CHUNK):
            chunk = texts[start : start + _EMBED_CHUNK]
            rows = self._embed([text for _, text in chunk])
            with self._transaction() as connection:
                connection.executemany(
                    "INSERT OR REPLACE INTO vectors (id, embedding) VALUES (?, ?)",
                    ((rowid, rows[i].tobytes()) for i, (rowid, _) in enumerate(chunk)),
                )

    def _event_texts(self, rows: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
        """``(rowid, event_id)`` rows with the id replaced by the text the event's vector is
        made from, read from the store (empty for an event the store no longer has)."""
        texts: list[tuple[int, str]] = []
        for rowid, event_id in rows:
            event = self.storage.find_event(event_id)
            texts.append((rowid, "" if event is None else _embedding_text(event)))
        return texts

    def _embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        assert self.embedder is not None
        dimension = self.embedder.dimension
        parts = [
            normalized_rows(self.embedder.embed(texts[i : i + _EMBED_BATCH]))
            for i in range(0, len(texts), _EMBED_BATCH)
        ]
        rows = np.concatenate(parts) if parts else np.zeros((0, dimension), dtype=np.float32)
        if rows.shape != (len(texts), dimension):
            raise StorageError(
                f"embedder {self.embedder.name!r} returned an array of shape {rows.shape} for "
                f"{len(texts)} texts of dimension {dimension}"
            )
        return rows

    # -- queries ---------------------------------------------------------------------------
    def _fts(
        self,
        sql: str,
        text: str,
        limit: int,
        extra: tuple[int, ...],
    ) -> list[str]:
        found: dict[str, None] = {}
        every, some = match_all(text), match_any(text)
        # One token: matching any is matching all, and its rows are those already found.
        for expression in (every,) if some == every else (every, some):
            if expression is None or len(found) >= limit:
                break
            try:
                rows = self._connection.execute(
                    sql, (expression, *extra, row_limit(limit))
                ).fetchall()
            except sqlite3.DatabaseError as error:
                raise self._failed(error) from None
            for (key,) in rows:
                found.setdefault(key, None)
        return list(found)[:limit]

    def fts_events(
        self,
        query: str,
        *,
        limit: int,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[str]:
        """Up to ``limit`` event ids whose text matches ``query``, best BM25 first: events
        holding every content word, then events holding any."""
        where, extra = _time_filter("events.time_us >= ?", "events.time_us < ?", start, end)
        sql = (
            "SELECT events.event_id FROM events_fts JOIN events ON events.id = events_fts.rowid "
            f"WHERE events_fts MATCH ?{where} ORDER BY rank LIMIT ?"
        )
        return self._fts(sql, query, limit, extra)

    def fts_segments(
        self,
        query: str,
        *,
        limit: int,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[str]:
        """Up to ``limit`` segment ids whose title, summary, bullets or keywords match
        ``query``, best BM25 first, among segments overlapping ``[start, end)``."""
        where, extra = _time_filter("nodes.end_us >= ?", "nodes.start_us < ?", start, end)
        sql = (
            "SELECT nodes.node_id FROM segments_fts JOIN nodes ON nodes.id = segments_fts.rowid "
            f"WHERE segments_fts MATCH ?{where} ORDER BY rank LIMIT ?"
        )
        return self._fts(sql, query, limit, extra)

    def _vector_matrix(self) -> VectorMatrix:
        import numpy as np

        if self._matrix is None:
            assert self.embedder is not None
            with self._errors():
                rows = self._connection.execute(
                    "SELECT events.event_id, events.time_us, vectors.embedding FROM vectors "
                    "JOIN events ON events.id = vectors.id ORDER BY events.id"
                ).fetchall()
            dimension = self.embedder.dimension
            matrix = np.zeros((len(rows), dimension), dtype=np.float32)
            for i, (_, _, blob) in enumerate(rows):
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape != (dimension,):
                    raise StoreCorrupted(
                        f"{self.path or 'search index'}: a vector of {vector.size} numbers where "
                        f"{dimension} were expected; rebuild it"
                    )
                matrix[i] = vector
            self._matrix = VectorMatrix([row[0] for row in rows], [row[1] for row in rows], matrix)
        return self._matrix

    def nearest_events(
        self,
        query: str,
        *,
        limit: int,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[str]:
        """Up to ``limit`` event ids whose vectors are nearest ``query``'s (cosine), within
        ``[start, end)``; empty without an embedder."""
        if self.embedder is None or not query.strip():
            return []
        vector = self._queries.get(self.embedder, query, lambda text: self._embed([text])[0])
        nearest = self._vector_matrix().nearest(
            vector,
            limit,
            start_us=None if start is None else to_us(start),
            end_us=None if end is None else to_us(end),
        )
        return [event_id for event_id, _ in nearest]

    def owners(self, event_ids: Sequence[str]) -> dict[str, str]:
        """The segment that owns each of ``event_ids`` (events no segment owns are left out)."""
        found: dict[str, str] = {}
        keys = list(dict.fromkeys(event_ids))
        with self._errors():
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(
                    self._connection.execute(
                        f"SELECT event_id, node_id FROM owners WHERE event_id IN ({marks})", chunk
                    ).fetchall()
                )
        return found

    def search(
        self,
        query: str,
        *,
        mode: SearchMode | str = "hybrid",
        limit: int = 10,
        min_score: float = 0.0,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> SearchOutcome:
        """The segments that best answer ``query``, best first (see
        :func:`tocsearch.index.search`). Syncs the index first; an index that cannot be read
        or written falls back to the navigator, and ``mode_used`` and ``note`` say so.

        Raises:
            InvalidArgument: an unknown mode, a limit under 1 or a min_score outside 0-1.
        """
        from tocsearch.index._search import run_search

        usable: SearchIndex | None = self
        unavailable = ""
        try:
            self.sync()
        except StorageError as error:
            usable, unavailable = None, f"search index unusable: {error}"
        return run_search(
            self.storage,
            usable,
            query,
            mode=mode,
            limit=limit,
            min_score=min_score,
            start=start,
            end=end,
            unavailable=unavailable,
        )

    # -- integrity -------------------------------------------------------------------------
    def check(self) -> None:
        """Verify that the index agrees with the store: the same events with the same texts,
        the same segments with the same texts and owned events, a vector for every event when
        there is an embedder.

        Raises:
            StoreCorrupted: naming the first disagreement.
        """
        where = self.path or "search index"
        connection = self._connection
        with self._errors():
            events = dict(
                connection.execute(
                    "SELECT events.event_id, events_fts.text FROM events "
                    "JOIN events_fts ON events_fts.rowid = events.id"
                ).fetchall()
            )
            (fts_events,) = connection.execute("SELECT count(*) FROM events_fts").fetchone()
            segments = {
                row[0]: tuple(row[1:])
                for row in connection.execute(
                    "SELECT nodes.node_id, title, summary, bullets, keywords FROM nodes "
                    "JOIN segments_fts ON segments_fts.rowid = nodes.id"
                )
            }
            (fts_segments,) = connection.execute("SELECT count(*) FROM segments_fts").fetchone()
            owners = dict(connection.execute("SELECT event_id, node_id FROM owners").fetchall())
        if fts_events != len(events) or fts_segments != len(segments):
            raise StoreCorrupted(f"{where}: full-text rows without a record; rebuild it")
        stored = {event.event_id: event for event in self.storage.get_events()}
        for event_id in stored.keys() ^ events.keys():
            side = "store" if event_id in stored else "index"
            raise StoreCorrupted(f"{where}: event {event_id!r} is only in the {side}")
        for event_id, event in stored.items():
            if events[event_id] != event_text(event):
                raise StoreCorrupted(f"{where}: the text of event {event_id!r} differs")
        nodes = [
            node
            for node in map(self.storage.find_node, self.storage.iter_node_ids())
            if node is not None and node.level is TocLevel.SEGMENT
        ]
        expected_owners: dict[str, str] = {}
        for node in nodes:
            if segments.get(node.node_id) != segment_fields(node):
                raise StoreCorrupted(f"{where}: segment {node.node_id!r} differs or is missing")
            expected_owners.update(dict.fromkeys(node.event_ids, node.node_id))
        extra = segments.keys() - {node.node_id for node in nodes}
        if extra:
            raise StoreCorrupted(f"{where}: segment {min(extra)!r} is only in the index")
        if owners != expected_owners:
            wrong = min(owners.keys() ^ expected_owners.keys() or owners.keys())
            raise StoreCorrupted(f"{where}: the owner of event {wrong!r} differs")
        if self.embedder is not None:
            (vectors,) = connection.execute("SELECT count(*) FROM vectors").fetchone()
            if vectors != len(events):
                raise StoreCorrupted(f"{where}: {len(events) - vectors} events have no vector")

    def close(self) -> None:
        """Close the file; closing twice is fine."""
        with contextlib.suppress(sqlite3.Error):
            self._connection.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _time_filter(
    after: str, before: str, start: datetime | None, end: datetime | None
) -> tuple[str, tuple[int, ...]]:
    clauses: list[str] = []
    values: list[int] = []
    if start is not None:
        clauses.append(after)
        values.append(to_us(start))
    if end is not None:
        clauses.append(before)
        values.append(to_us(end))
    return "".join(f" AND {clause}" for clause in clauses), tuple(values)
