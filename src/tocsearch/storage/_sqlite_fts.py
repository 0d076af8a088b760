"""The FTS5 tables over event and segment texts: one schema for every SQLite file that holds them.

:class:`~tocsearch.storage.sqlite.SqliteStorage` keeps these tables inside its own database and
writes them in the same transaction as the records; an index kept beside another backend can
create the same tables in a sidecar file with the same functions. Every function takes an open
``sqlite3.Connection`` and neither begins nor commits a transaction: the caller decides where
the transaction is, so the texts and the records they describe commit together.

Schema (version :data:`FTS_VERSION`)::

    events_fts(text)                               tokenize='porter unicode61'
        rowid = the rowid of the event's row (``events.id`` in a SqliteStorage file)
        text  = event_text(event): the event's text
    segments_fts(title, summary, bullets, keywords) tokenize='porter unicode61'
        rowid = the rowid of the segment's row (``nodes.id`` in a SqliteStorage file)
        the columns of segment_fields(node); bullets and keywords one per line
    fts_meta(key TEXT PRIMARY KEY, value TEXT)
        ('version', '<FTS_VERSION>')

Both FTS5 tables store their own copy of the text (they are not external-content tables:
SQLite fires no triggers on writes to another virtual table, and a copy keeps ``highlight()``
and ``snippet()`` working). Rowids tie a text to its record; a query joins back on them::

    SELECT events.record FROM events_fts JOIN events ON events.id = events_fts.rowid
    WHERE events_fts MATCH ? ORDER BY rank LIMIT ?

Example, on a database of its own:

>>> import sqlite3
>>> connection = sqlite3.connect(":memory:")
>>> create_fts_tables(connection)
>>> fts_version(connection) == FTS_VERSION
True
>>> upsert_event_texts(connection, [(7, "the deploy failed twice"), (8, "all green")])
>>> connection.execute("SELECT rowid FROM events_fts WHERE events_fts MATCH 'failing'").fetchall()
[(7,)]
>>> delete_event_texts(connection, [7])
>>> connection.execute("SELECT count(*) FROM events_fts").fetchone()
(1,)
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from typing import Any

from tocsearch.models import Event, TocNode

__all__ = [
    "FTS_STATE_SQL",
    "FTS_VERSION",
    "SegmentFields",
    "create_fts_tables",
    "delete_event_texts",
    "delete_segment_texts",
    "drop_fts_tables",
    "event_text",
    "fts_version",
    "merge_fts_tables",
    "segment_fields",
    "storable_text",
    "upsert_event_texts",
    "upsert_segment_texts",
    "version_of",
]

FTS_VERSION = 1
"""The version of the schema above; a file holding another version must be rebuilt."""

_TOKENIZE = "porter unicode61"
_SURROGATE_RE = re.compile("[\ud800-\udfff]")

SegmentFields = tuple[str, str, str, str]
"""A segment's ``(title, summary, bullets, keywords)`` as the FTS5 columns hold them."""


def storable_text(text: str) -> str:
    """``text`` as SQLite can hold it: unchanged, unless it holds lone surrogates (which no
    UTF-8 encoding carries); those become U+FFFD.

    >>> storable_text("caf\\u00e9") == "caf\\u00e9", storable_text("a \\ud800 b") == "a \\ufffd b"
    (True, True)
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE_RE.sub("\ufffd", text)
    return text


def event_text(event: Event) -> str:
    """The text of an event that ``events_fts`` indexes."""
    return storable_text(event.text)


def segment_fields(node: TocNode) -> SegmentFields:
    """The ``segments_fts`` columns of a segment: title, summary, bullets and keywords, the
    last two one per line."""
    return (
        storable_text(node.title),
        storable_text(node.summary or ""),
        storable_text("\n".join(bullet.text for bullet in node.bullets)),
        storable_text("\n".join(node.keywords)),
    )


def create_fts_tables(connection: sqlite3.Connection) -> None:
    """Create the FTS5 tables and record :data:`FTS_VERSION`, unless they exist."""
    connection.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS events_fts USING fts5(text, tokenize='{_TOKENIZE}')"
    )
    connection.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS segments_fts USING fts5("
        f"title, summary, bullets, keywords, tokenize='{_TOKENIZE}')"
    )
    connection.execute(
        "CREATE TABLE IF NOT EXISTS fts_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    connection.execute(
        "INSERT OR IGNORE INTO fts_meta (key, value) VALUES ('version', ?)", (str(FTS_VERSION),)
    )


def merge_fts_tables(connection: sqlite3.Connection) -> None:
    """Merge each FTS5 table's segments into one (FTS5's ``optimize``), so a query reads one
    b-tree per term instead of one per segment. What a query finds, and its rank, stay the
    same.

    Runtime complexity: one pass over both tables' index.
    """
    for table in ("events_fts", "segments_fts"):
        connection.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


def drop_fts_tables(connection: sqlite3.Connection) -> None:
    """Remove the FTS5 tables and their version, so :func:`create_fts_tables` starts afresh."""
    for table in ("events_fts", "segments_fts", "fts_meta"):
        connection.execute(f"DROP TABLE IF EXISTS {table}")


def fts_version(connection: sqlite3.Connection) -> int | None:
    """The schema version the FTS tables were created with, or None when they (or one of
    them) are missing."""
    tables = {
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE name IN ('events_fts', 'segments_fts')"
        )
    }
    if len(tables) != 2:
        return None
    try:
        row = connection.execute("SELECT value FROM fts_meta WHERE key = 'version'").fetchone()
    except sqlite3.OperationalError:  # no such table
        return None
    return version_of(tables, None if row is None else row[0])


FTS_STATE_SQL = (
    "SELECT 'fts', key, value FROM fts_meta WHERE key = 'version'"
    " UNION ALL SELECT 'table', name, NULL FROM sqlite_master"
    " WHERE name IN ('events_fts', 'segments_fts')"
)
"""The rows :func:`version_of` reads, for a statement that reads them with others: the
version as ``('fts', 'version', value)`` and each FTS table as ``('table', name, None)``.
Raises ``sqlite3.OperationalError`` when ``fts_meta`` is missing."""


def version_of(tables: set[str], value: Any) -> int | None:
    """The FTS version from the FTS tables found and the stored version ``value`` (None when
    there is none): None unless both tables exist and the value is a number."""
    if len(tables) != 2 or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def upsert_event_texts(connection: sqlite3.Connection, rows: Iterable[tuple[int, str]]) -> None:
    """Index ``(rowid, text)`` pairs, replacing the text a rowid had."""
    connection.executemany("INSERT OR REPLACE INTO events_fts (rowid, text) VALUES (?, ?)", rows)


def upsert_segment_texts(
    connection: sqlite3.Connection, rows: Iterable[tuple[int, SegmentFields]]
) -> None:
    """Index ``(rowid, segment_fields(node))`` pairs, replacing the texts a rowid had."""
    connection.executemany(
        "INSERT OR REPLACE INTO segments_fts (rowid, title, summary, bullets, keywords) "
        "VALUES (?, ?, ?, ?, ?)",
        ((rowid, *fields) for rowid, fields in rows),
    )


def _delete(connection: sqlite3.Connection, table: str, rowids: Iterable[int]) -> None:
    connection.executemany(f"DELETE FROM {table} WHERE rowid = ?", ((rowid,) for rowid in rowids))


def delete_event_texts(connection: sqlite3.Connection, rowids: Iterable[int]) -> None:
    """Remove the texts of these event rowids; rowids not indexed are ignored."""
    _delete(connection, "events_fts", rowids)


def delete_segment_texts(connection: sqlite3.Connection, rowids: Iterable[int]) -> None:
    """Remove the texts of these segment rowids; rowids not indexed are ignored."""
    _delete(connection, "segments_fts", rowids)
