"""How many segments an FTS5 table has, read from its structure record: what a merge of the
full-text tables leaves at one."""

from __future__ import annotations

import sqlite3


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
