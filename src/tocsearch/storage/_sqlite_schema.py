"""The tables of a SQLite store, how it is opened, and how SQLite's failures become our errors.

Tables (schema version :data:`SCHEMA_VERSION`, kept in ``PRAGMA user_version``)::

    nodes(id INTEGER PRIMARY KEY, node_id TEXT UNIQUE, level TEXT,
          start_us INTEGER, end_us INTEGER, record TEXT)
        index nodes_by_level(level, start_us, node_id)
    level_spans(level TEXT PRIMARY KEY, longest_us INTEGER)
        the longest span ever stored per level: an upper bound that lets an overlap query
        start its index scan at ``start - longest`` instead of at the level's first node
    grips(grip_id TEXT PRIMARY KEY, record TEXT)
    events(id INTEGER PRIMARY KEY, event_id TEXT UNIQUE, session BLOB,
           time_us INTEGER, record TEXT)
        index events_by_session(session, event_id)
    counts(kind TEXT PRIMARY KEY, n INTEGER)
        'nodes' and 'events', kept by triggers, so counting never scans
    and the FTS5 tables of :mod:`tocsearch.storage._sqlite_fts`

``record`` is the record's JSON (:func:`tocsearch.converter.to_json`). Times are microseconds
since the Unix epoch, exact for every datetime. ``session`` is the session id in UTF-8 with
lone surrogates passed through, so every session id Python can hold is stored as itself.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TypeVar

from tocsearch.converter import from_json, to_dict, to_json
from tocsearch.errors import StoreCorrupted
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._sqlite_fts import create_fts_tables

__all__ = [
    "DATABASE_NAME",
    "SCHEMA_VERSION",
    "create_schema",
    "decode_record",
    "from_us",
    "record_text",
    "session_key",
    "to_us",
]

DATABASE_NAME = "tocsearch.sqlite3"
SCHEMA_VERSION = 1
_R = TypeVar("_R", TocNode, Grip, Event)
_ID_FIELD = {TocNode: "node_id", Grip: "grip_id", Event: "event_id"}
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)

_SCHEMA = (
    """CREATE TABLE nodes (
        id INTEGER PRIMARY KEY,
        node_id TEXT NOT NULL UNIQUE,
        level TEXT NOT NULL,
        start_us INTEGER NOT NULL,
        end_us INTEGER NOT NULL,
        record TEXT NOT NULL
    )""",
    "CREATE INDEX nodes_by_level ON nodes (level, start_us, node_id)",
    """CREATE TABLE level_spans (
        level TEXT PRIMARY KEY, longest_us INTEGER NOT NULL
    ) WITHOUT ROWID""",
    "CREATE TABLE grips (grip_id TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID",
    """CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        event_id TEXT NOT NULL UNIQUE,
        session BLOB NOT NULL,
        time_us INTEGER NOT NULL,
        record TEXT NOT NULL
    )""",
    "CREATE INDEX events_by_session ON events (session, event_id)",
    "CREATE TABLE counts (kind TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID",
    "INSERT INTO counts (kind, n) VALUES ('nodes', 0), ('events', 0)",
    """CREATE TRIGGER nodes_added AFTER INSERT ON nodes
        BEGIN UPDATE counts SET n = n + 1 WHERE kind = 'nodes'; END""",
    """CREATE TRIGGER nodes_removed AFTER DELETE ON nodes
        BEGIN UPDATE counts SET n = n - 1 WHERE kind = 'nodes'; END""",
    """CREATE TRIGGER events_added AFTER INSERT ON events
        BEGIN UPDATE counts SET n = n + 1 WHERE kind = 'events'; END""",
    """CREATE TRIGGER events_removed AFTER DELETE ON events
        BEGIN UPDATE counts SET n = n - 1 WHERE kind = 'events'; END""",
)


def to_us(when: datetime) -> int:
    """Microseconds since the Unix epoch of a timezone-aware datetime (exact)."""
    return (when - _EPOCH) // _MICROSECOND


def from_us(value: int) -> datetime:
    """The UTC datetime of :func:`to_us`'s value."""
    return _EPOCH + timedelta(microseconds=value)


def record_text(record: TocNode | Grip | Event) -> str:
    """A record's JSON as SQLite can hold it: lone surrogates, which UTF-8 cannot carry, are
    written as JSON escapes (which read back as the same string)."""
    text = to_json(record)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(to_dict(record), separators=(",", ":"))
    return text


def decode_record(database: Path, text: object, cls: type[_R], record_id: str) -> _R:
    """The record a row holds, or StoreCorrupted naming the file and the record.

    Raises:
        StoreCorrupted: the row is not a readable ``cls``, or holds another id.
    """
    try:
        record = from_json(text, cls)  # type: ignore[arg-type]  # junk is caught below
    except Exception as error:  # any failure to parse junk means the same thing
        raise StoreCorrupted(
            f"{database}: {cls.__name__} {record_id!r} is not a readable record: {error}"
        ) from None
    found = getattr(record, _ID_FIELD[cls])
    if found != record_id:
        raise StoreCorrupted(f"{database}: the row of {cls.__name__} {record_id!r} holds {found!r}")
    return record


def session_key(session_id: str) -> bytes:
    """How a session id is stored and looked up: UTF-8, lone surrogates passed through."""
    return session_id.encode("utf-8", "surrogatepass")


def create_schema(connection: sqlite3.Connection) -> None:
    """Create every table of an empty database in one transaction."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA:
            connection.execute(statement)
        create_fts_tables(connection)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
