"""Keeping a search index in sync with its store: building it, backfilling what the store
gained or lost behind its back, and the writes that reach the index with the store's.

The index is derived data. It is built on first use, brought up to date when the store has
changed behind its back (:meth:`SyncedSidecar.sync`, detected cheaply by comparing the store's
record counts with the counts the index last saw), and can be rebuilt from the store at any
time (:meth:`SyncedSidecar.rebuild`, ``tocsearch index --rebuild``). Writes made through
:class:`~tocsearch.index.IndexingStorage` reach the store and the index together.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable

import attrs

from tocsearch.errors import InvalidId
from tocsearch.ids import parse_node_id
from tocsearch.index._schema import (
    create_index_tables,
    create_owners_table,
    current_format,
    drop_index_tables,
    owners_table_is_current,
    write_meta,
)
from tocsearch.index._sidecar_file import to_us
from tocsearch.index._sidecar_vectors import EmbeddedSidecar, embedding_text
from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocNode
from tocsearch.storage._fts_merge import MERGED_EVENTS
from tocsearch.storage._sqlite_fts import (
    delete_event_texts,
    delete_segment_texts,
    event_text,
    merge_fts_tables,
    segment_fields,
    upsert_event_texts,
    upsert_segment_texts,
)
from tocsearch.text import ascii_digits

__all__ = ["IndexSync", "SyncedSidecar"]


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


def _is_segment(node_id: str) -> bool:
    try:
        return parse_node_id(node_id).level is TocLevel.SEGMENT
    except InvalidId:
        return False


def _own(connection: sqlite3.Connection, nodes: Iterable[TocNode]) -> None:
    """Record every event each segment lists as owned by it (beside any other owner)."""
    connection.executemany(
        "INSERT OR IGNORE INTO owners (event_id, node_id) VALUES (?, ?)",
        ((event_id, node.node_id) for node in nodes for event_id in node.event_ids),
    )


class SyncedSidecar(EmbeddedSidecar):
    """A sidecar file kept in sync with its store: built, backfilled, written and scrubbed."""

    # Whether the owners table is known to be of the form this code writes (see sync()).
    _owners_current = False

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
        self._owners_current = True
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
        if not self._owners_current:
            self._upgrade_owners()
        report = IndexSync()
        if not self._counts_agree(meta):
            report = self._backfill()
            meta = self._meta()
        vectors = self._embed_missing()
        self._merge_when_grown(meta)
        if not vectors:
            return report
        return attrs.evolve(report, vectors_added=report.vectors_added + vectors)

    def _merge_when_grown(self, meta: dict[str, str]) -> None:
        """Merge the full-text tables when the index has grown enough since it was last
        merged (:mod:`tocsearch.storage._fts_merge`)."""
        events = meta.get("store_events", "")
        if ascii_digits(events):
            self._merges.merge_when_grown(int(events), meta.get(MERGED_EVENTS))

    def _upgrade_owners(self) -> None:
        """Make the owners table of a sidecar written when it kept one segment an event
        again, from the store's segments, keeping the rest of the file (texts and vectors):
        looked at once per opened index."""
        with self._errors():
            current = owners_table_is_current(self._connection)
        if not current:
            segments = self.storage.get_nodes_by_level(TocLevel.SEGMENT)
            with self._transaction() as connection:
                create_owners_table(connection)
                _own(connection, segments)
        self._owners_current = True

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
        self._store_vectors([(rowids[event.event_id], embedding_text(event)) for event in batch])
        # The data_version read before the write: a commit by another connection since then
        # (which may have left events without vectors) still makes the next check scan.
        self._embedded = complete

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
            _own(connection, batch)

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
        """Forget events: their texts and vectors. Ids not indexed are ignored.

        Which segment owns an event is the segments' to say: a stored segment that still
        lists a removed event keeps it among its owned events, here as in the store, until
        the segment is written again or removed."""
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

    def scrub(self) -> None:
        """Leave no page of the index file holding removed text: merge the full-text indexes,
        rewrite the file without free pages and empty its write-ahead log."""
        with self._transaction() as connection:
            merge_fts_tables(connection)
        # VACUUM cannot run inside a transaction, such as that of a reading() block.
        with self._reads.paused(), self._errors():
            self._state = None
            self._connection.execute("VACUUM")
            if self.path is not None:
                self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
