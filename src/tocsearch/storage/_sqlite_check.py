"""Reading a SQLite store row by row: the half of ``SqliteStorage.check()`` that SQLite cannot
do (records, key columns, FTS5 texts, counts), and salvaging what a damaged one still holds.

SQLite's own checks vouch for pages and indexes; these vouch for what only tocsearch knows:
that a row's key columns are the ones its record implies and that the full-text tables hold
exactly the texts of the stored events and segments.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tocsearch.errors import StoreCorrupted, TocsearchError
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._salvage import Salvage, SalvageBuilder
from tocsearch.storage._sqlite_fts import (
    create_fts_tables,
    drop_fts_tables,
    event_text,
    segment_fields,
    upsert_event_texts,
    upsert_segment_texts,
)
from tocsearch.storage._sqlite_schema import decode_record, session_key, to_us

__all__ = ["check_rows", "rebuild_fts", "salvage_database"]


def _check_nodes(connection: sqlite3.Connection, database: Path) -> int:
    longest = dict(connection.execute("SELECT level, longest_us FROM level_spans"))
    rows = connection.execute(
        "SELECT n.node_id, n.level, n.start_us, n.end_us, n.record, f.rowid IS NOT NULL, "
        "f.title, f.summary, f.bullets, f.keywords "
        "FROM nodes AS n LEFT JOIN segments_fts AS f ON f.rowid = n.id"
    )
    seen = 0
    for node_id, level, start, end, text, indexed, *texts in rows:
        seen += 1
        node = decode_record(database, text, TocNode, node_id)
        span = (to_us(node.start_time), to_us(node.end_time))
        if (level, start, end) != (node.level.value, *span):
            raise StoreCorrupted(f"{database}: the key columns of node {node_id!r} disagree")
        if span[1] - span[0] > longest.get(level, -1):
            raise StoreCorrupted(f"{database}: level_spans does not cover node {node_id!r}")
        is_segment = node.level is TocLevel.SEGMENT
        if indexed != is_segment or (is_segment and tuple(texts) != segment_fields(node)):
            raise StoreCorrupted(f"{database}: segments_fts disagrees with node {node_id!r}")
    return seen


def _check_events(connection: sqlite3.Connection, database: Path) -> int:
    rows = connection.execute(
        "SELECT e.event_id, e.session, e.time_us, e.record, f.text "
        "FROM events AS e LEFT JOIN events_fts AS f ON f.rowid = e.id"
    )
    seen = 0
    for event_id, session, time_us, text, indexed_text in rows:
        seen += 1
        event = decode_record(database, text, Event, event_id)
        if (session, time_us) != (session_key(event.session_id), to_us(event.timestamp)):
            raise StoreCorrupted(f"{database}: the key columns of event {event_id!r} disagree")
        if indexed_text != event_text(event):
            raise StoreCorrupted(f"{database}: events_fts disagrees with event {event_id!r}")
    return seen


def check_rows(connection: sqlite3.Connection, database: Path) -> None:
    """Raise StoreCorrupted, naming the first broken record, unless every row agrees.

    Runtime complexity: O(n) rows read and decoded, for n records.
    """
    nodes = _check_nodes(connection, database)
    events = _check_events(connection, database)
    for grip_id, text in connection.execute("SELECT grip_id, record FROM grips"):
        decode_record(database, text, Grip, grip_id)
    counts = dict(connection.execute("SELECT kind, n FROM counts"))
    if counts != {"nodes": nodes, "events": events}:
        raise StoreCorrupted(
            f"{database}: counts {counts} disagree with {nodes} nodes and {events} events"
        )
    indexed_segments = connection.execute("SELECT count(*) FROM segments_fts").fetchone()[0]
    segments = connection.execute(
        "SELECT count(*) FROM nodes WHERE level = ?", (TocLevel.SEGMENT.value,)
    ).fetchone()[0]
    indexed_events = connection.execute("SELECT count(*) FROM events_fts").fetchone()[0]
    if (indexed_segments, indexed_events) != (segments, events):
        raise StoreCorrupted(
            f"{database}: the full-text tables hold {indexed_segments} segments and "
            f"{indexed_events} events, the store {segments} and {events}"
        )


def _salvage_table(
    connection: sqlite3.Connection,
    database: Path,
    table: str,
    key: str,
    found: SalvageBuilder,
) -> None:
    try:
        rows = connection.execute(f"SELECT {key}, record FROM {table}")
        for record_id, text in rows:
            try:
                if table == "nodes":
                    found.node(decode_record(database, text, TocNode, str(record_id)))
                else:
                    found.event(decode_record(database, text, Event, str(record_id)))
            except TocsearchError as error:
                found.problem(f"{database}: {table} row {record_id!r}", error)
    except sqlite3.DatabaseError as error:
        # A damaged page ends the scan of this table; what was read before it is kept.
        found.problem(f"{database}: table {table}", error)


def salvage_database(database: Path) -> Salvage:
    """Every readable event of a possibly damaged store database, and the event ids its
    readable segments cite; each row, table or file that cannot be read is named."""
    found = SalvageBuilder()
    if database.is_symlink() or not database.is_file():
        found.problem(str(database), "missing, or not a regular file")
        return found.done()
    try:
        connection = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        found.problem(str(database), error)
        return found.done()
    try:
        _salvage_table(connection, database, "nodes", "node_id", found)
        _salvage_table(connection, database, "events", "event_id", found)
    finally:
        connection.close()
    return found.done()


def rebuild_fts(connection: sqlite3.Connection, database: Path) -> None:
    """Drop the FTS tables and index every stored event and segment again, inside the
    caller's transaction: the backfill of a store whose full-text tables are missing or of
    another version.

    Raises:
        StoreCorrupted: a record cannot be read (the store needs a repair first).
    """
    drop_fts_tables(connection)
    create_fts_tables(connection)
    segments = connection.execute(
        "SELECT id, node_id, record FROM nodes WHERE level = ?", (TocLevel.SEGMENT.value,)
    ).fetchall()
    upsert_segment_texts(
        connection,
        [
            (rowid, segment_fields(decode_record(database, text, TocNode, node_id)))
            for rowid, node_id, text in segments
        ],
    )
    rows = connection.execute("SELECT id, event_id, record FROM events")
    while batch := rows.fetchmany(5_000):
        upsert_event_texts(
            connection,
            [
                (rowid, event_text(decode_record(database, text, Event, event_id)))
                for rowid, event_id, text in batch
            ],
        )
