"""Checking a search index against its store: the invariant a property or stress test calls
after every write."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tocsearch.errors import StoreCorrupted
from tocsearch.levels import TocLevel
from tocsearch.storage._sqlite_fts import event_text, segment_fields

if TYPE_CHECKING:
    from tocsearch.index._sidecar import SearchIndex

__all__ = ["check_index"]


def check_index(index: SearchIndex) -> None:
    """Verify that ``index`` agrees with its store (see :meth:`SearchIndex.check`).

    Raises:
        StoreCorrupted: naming the first disagreement.
    """
    where = index.path or "search index"
    connection = index._connection
    with index._errors():
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
        owners = set(connection.execute("SELECT event_id, node_id FROM owners").fetchall())
    if fts_events != len(events) or fts_segments != len(segments):
        raise StoreCorrupted(f"{where}: full-text rows without a record; rebuild it")
    stored = {event.event_id: event for event in index.storage.get_events()}
    for event_id in stored.keys() ^ events.keys():
        side = "store" if event_id in stored else "index"
        raise StoreCorrupted(f"{where}: event {event_id!r} is only in the {side}")
    for event_id, event in stored.items():
        if events[event_id] != event_text(event):
            raise StoreCorrupted(f"{where}: the text of event {event_id!r} differs")
    nodes = [
        node
        for node in map(index.storage.find_node, index.storage.iter_node_ids())
        if node is not None and node.level is TocLevel.SEGMENT
    ]
    # Every (event, segment) pair a stored segment lists: an event two segments list is owned
    # by both, in the index as in the store.
    expected_owners: set[tuple[str, str]] = set()
    for node in nodes:
        if segments.get(node.node_id) != segment_fields(node):
            raise StoreCorrupted(f"{where}: segment {node.node_id!r} differs or is missing")
        expected_owners.update((event_id, node.node_id) for event_id in node.event_ids)
    extra = segments.keys() - {node.node_id for node in nodes}
    if extra:
        raise StoreCorrupted(f"{where}: segment {min(extra)!r} is only in the index")
    if owners != expected_owners:
        event_id, node_id = min(owners ^ expected_owners)
        side = "index" if (event_id, node_id) in owners else "store"
        raise StoreCorrupted(
            f"{where}: event {event_id!r} is owned by segment {node_id!r} only in the {side}"
        )
    if index.embedder is not None:
        _check_vectors(index, where, index.embedder.dimension)


def _check_vectors(index: SearchIndex, where: object, dimension: int) -> None:
    """Raise unless every indexed event has one vector of ``dimension`` numbers and every
    vector is an indexed event's: compared by identity, so a vector missing and a stray one
    do not cancel out as counts would."""
    connection = index._connection
    with index._errors():
        rows = connection.execute(
            "SELECT events.event_id, vectors.id, length(vectors.embedding) FROM events "
            "LEFT JOIN vectors ON vectors.id = events.id"
        ).fetchall()
        stray = connection.execute(
            "SELECT min(vectors.id), count(*) FROM vectors "
            "LEFT JOIN events ON events.id = vectors.id WHERE events.id IS NULL"
        ).fetchone()
    missing = sorted(event_id for event_id, vector, _ in rows if vector is None)
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise StoreCorrupted(f"{where}: event {missing[0]!r} has no vector{more}; rebuild it")
    if stray[1]:
        raise StoreCorrupted(
            f"{where}: {stray[1]} vectors belong to no indexed event (row {stray[0]} first); "
            "rebuild it"
        )
    size = 4 * dimension  # float32
    for event_id, _, length in sorted(rows):
        if length != size:
            raise StoreCorrupted(
                f"{where}: the vector of event {event_id!r} holds {length} bytes where "
                f"{size} ({dimension} float32 numbers) were expected; rebuild it"
            )
