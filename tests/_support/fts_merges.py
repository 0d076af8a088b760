"""Watching the merges of full-text tables: how many segments an FTS5 table has (read from
its structure record; a merge leaves one), and a merge that the database refuses."""

from __future__ import annotations

import sqlite3

import pytest

from tocsearch.storage import _fts_merge


def _varint(block: bytes, at: int) -> tuple[int, int]:
    """An FTS5 varint of ``block`` at ``at`` and where the next value starts."""
    value = 0
    for step in range(9):
        byte = block[at]
        at += 1
        if step == 8:
            return (value << 8) | byte, at
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return value, at


def fts_segments(connection: sqlite3.Connection, table: str) -> int:
    """How many segments the FTS5 table ``table`` of ``connection``'s database has."""
    (block,) = connection.execute(f"SELECT block FROM {table}_data WHERE id = 10").fetchone()
    _levels, at = _varint(block, 4)
    segments, _ = _varint(block, at)
    return segments


def refuse_merges(monkeypatch: pytest.MonkeyPatch, message: str) -> list[str]:
    """Make every merge due from one event on, and fail it as SQLite fails with ``message``;
    the list returned grows by one entry per merge tried."""
    attempts: list[str] = []

    def refuse(connection: sqlite3.Connection) -> None:
        attempts.append("merge")
        raise sqlite3.OperationalError(message)

    monkeypatch.setattr(_fts_merge, "MERGE_FLOOR", 1)
    monkeypatch.setattr(_fts_merge, "merge_fts_tables", refuse)
    return attempts
