"""The tables of a search-index sidecar file, beside the FTS5 tables every index shares.

Tables (format :data:`INDEX_FORMAT`, kept in ``index_meta``)::

    events(id INTEGER PRIMARY KEY, event_id TEXT UNIQUE, time_us INTEGER)
        the indexed events; ``id`` is the rowid of the event's text in ``events_fts``
    nodes(id INTEGER PRIMARY KEY, node_id TEXT UNIQUE, level TEXT, start_us INTEGER,
          end_us INTEGER)
        the indexed segments; ``id`` is the rowid of the segment's texts in ``segments_fts``
    owners(event_id TEXT, node_id TEXT, PRIMARY KEY (event_id, node_id))
        which stored segments list an event among those they own (indexed or not): every
        one of them, as in the store, so an event two segments list is found under each.
        A sidecar written when the table kept one segment an event (``event_id`` its primary
        key) has it made again from the store's segments (:func:`owners_table_is_current`);
        the rest of the file, its vectors included, is kept
    vectors(id INTEGER PRIMARY KEY, embedding BLOB)     float32 vector of events.id
    index_meta(key TEXT PRIMARY KEY, value TEXT)
        'format', the store counts at the last sync ('store_events', 'store_nodes') and the
        embedder the vectors come from ('embedder', 'dimension')
    and the FTS5 tables of :mod:`tocsearch.storage._sqlite_fts`

``events`` and ``nodes`` carry the columns of the same name in a SQLite store, so one query
serves both.
"""

from __future__ import annotations

import sqlite3

from tocsearch.storage._sqlite_fts import (
    FTS_STATE_SQL,
    FTS_VERSION,
    create_fts_tables,
    drop_fts_tables,
    fts_version,
    version_of,
)
from tocsearch.text import ascii_digits

__all__ = [
    "INDEX_FORMAT",
    "create_index_tables",
    "create_owners_table",
    "current_format",
    "drop_index_tables",
    "index_format",
    "index_state",
    "owners_table_is_current",
    "read_meta",
    "write_meta",
]

INDEX_FORMAT = 1
"""The version of the sidecar's own tables; a sidecar of another version is rebuilt."""

_OWNERS_KEY = "PRIMARY KEY (event_id, node_id)"
_OWNERS = (
    f"""CREATE TABLE IF NOT EXISTS owners (
        event_id TEXT NOT NULL, node_id TEXT NOT NULL, {_OWNERS_KEY}
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS owners_by_node ON owners (node_id)",
)
_TABLES = (
    """CREATE TABLE IF NOT EXISTS events (
        id INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, time_us INTEGER NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS events_by_time ON events (time_us)",
    """CREATE TABLE IF NOT EXISTS nodes (
        id INTEGER PRIMARY KEY, node_id TEXT NOT NULL UNIQUE, level TEXT NOT NULL,
        start_us INTEGER NOT NULL, end_us INTEGER NOT NULL
    )""",
    *_OWNERS,
    "CREATE TABLE IF NOT EXISTS vectors (id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_DROPPED = ("events", "nodes", "owners", "vectors", "index_meta")


def create_index_tables(connection: sqlite3.Connection) -> None:
    """Create every table of a sidecar (FTS5 tables included) unless it exists."""
    for statement in _TABLES:
        connection.execute(statement)
    create_fts_tables(connection)
    connection.execute(
        "INSERT OR IGNORE INTO index_meta (key, value) VALUES ('format', ?)", (str(INDEX_FORMAT),)
    )


def owners_table_is_current(connection: sqlite3.Connection) -> bool:
    """Whether the ``owners`` table keeps every segment of an event, as this code writes it
    (or is missing, which a rebuild mends), rather than one segment an event."""
    row = connection.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'owners'"
    ).fetchone()
    return row is None or _OWNERS_KEY in " ".join(str(row[0]).split())


def create_owners_table(connection: sqlite3.Connection) -> None:
    """Drop the ``owners`` table and make it empty, of the form this code writes."""
    connection.execute("DROP TABLE IF EXISTS owners")
    for statement in _OWNERS:
        connection.execute(statement)


def drop_index_tables(connection: sqlite3.Connection) -> None:
    """Remove every table of a sidecar, so :func:`create_index_tables` starts afresh."""
    drop_fts_tables(connection)
    for table in _DROPPED:
        connection.execute(f"DROP TABLE IF EXISTS {table}")


def index_format(connection: sqlite3.Connection) -> tuple[int, int] | None:
    """``(index format, FTS version)`` of a sidecar, or None when it has no tables yet or
    they are unreadable."""
    return index_state(connection)[0]


def index_state(
    connection: sqlite3.Connection,
) -> tuple[tuple[int, int] | None, dict[str, str]]:
    """:func:`index_format` and every value of ``index_meta`` (empty without the table),
    read together by one statement when the tables are there: what a sync checks before each
    query."""
    try:
        rows = connection.execute(
            f"SELECT 'meta', key, value FROM index_meta UNION ALL {FTS_STATE_SQL}"
        ).fetchall()
    except sqlite3.OperationalError:  # a table is missing: each part on its own
        return _state_by_parts(connection)
    meta = {str(key): str(value) for kind, key, value in rows if kind == "meta"}
    tables = {str(key) for kind, key, _ in rows if kind == "table"}
    stored = [value for kind, _, value in rows if kind == "fts"]
    return _format(meta, version_of(tables, stored[0] if stored else None)), meta


def _state_by_parts(
    connection: sqlite3.Connection,
) -> tuple[tuple[int, int] | None, dict[str, str]]:
    try:
        meta = {
            str(key): str(value)
            for key, value in connection.execute("SELECT key, value FROM index_meta")
        }
    except sqlite3.OperationalError:  # no such table
        meta = {}
    return _format(meta, fts_version(connection)), meta


def _format(meta: dict[str, str], version: int | None) -> tuple[int, int] | None:
    value = meta.get("format")
    if value is None or version is None or not ascii_digits(value):
        return None
    return int(value), version


def current_format() -> tuple[int, int]:
    """The ``(index format, FTS version)`` this code writes."""
    return INDEX_FORMAT, FTS_VERSION


def read_meta(connection: sqlite3.Connection, key: str) -> str | None:
    """The value stored under ``key`` in ``index_meta``, or None."""
    try:
        row = connection.execute("SELECT value FROM index_meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:  # no such table
        return None
    return None if row is None else str(row[0])


def write_meta(connection: sqlite3.Connection, key: str, value: str) -> None:
    """Store ``value`` under ``key`` in ``index_meta``."""
    connection.execute(
        "INSERT INTO index_meta (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
