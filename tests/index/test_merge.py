"""Merging the index's full-text tables: done by a sync once the index is large enough and
again after it has grown by a quarter, one segment per table after it, the same answers
before and after, and an index that cannot be written answering as it is."""

from __future__ import annotations

import re
import sqlite3

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tocsearch.examples import load_example_events
from tocsearch.index import IndexingStorage, SearchIndex, _merge, _sidecar
from tocsearch.index._merge import MERGE_GROWTH, MERGED_EVENTS, merge_due
from tocsearch.index._schema import read_meta
from tocsearch.ingest import TocBuilder
from tocsearch.storage import InMemoryStorage

QUERIES = ("JWT refresh", "deploy failed", "redis cache", "migration", "rotation token")


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


def _segments(index: SearchIndex, table: str) -> int:
    """How many segments an FTS5 table of ``index`` has (from its structure record)."""
    (block,) = index._connection.execute(f"SELECT block FROM {table}_data WHERE id = 10").fetchone()
    _levels, at = _varint(block, 4)
    segments, _ = _varint(block, at)
    return segments


def _grown_in_batches(batches: int) -> tuple[IndexingStorage, list[int]]:
    """A store built through its index in ``batches`` ingests (a segment each, at least)."""
    events = load_example_events()
    store = IndexingStorage(SearchIndex(InMemoryStorage()))
    size = len(events) // batches
    counts = []
    for start in range(0, size * batches, size):
        TocBuilder(store).ingest(events[start : start + size])
        counts.append(store.count_events())
    return store, counts


def _answers(index: SearchIndex) -> list[list[str]]:
    return [
        [*index.fts_events(query, limit=40), "|", *index.fts_segments(query, limit=40)]
        for query in QUERIES
    ]


def test_a_sync_merges_each_table_into_one_segment_and_answers_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the floor a sync leaves one segment per table, records the count it merged at,
    and every query finds the same rows in the same order as before."""
    store, counts = _grown_in_batches(6)
    index = store.index
    assert _segments(index, "events_fts") > 1
    before = _answers(index)
    assert any(before)
    monkeypatch.setattr(_merge, "MERGE_FLOOR", counts[-1] + 1)
    index.sync()
    assert read_meta(index._connection, MERGED_EVENTS) is None
    monkeypatch.setattr(_merge, "MERGE_FLOOR", counts[-1])
    index.sync()
    assert _segments(index, "events_fts") == _segments(index, "segments_fts") == 1
    assert read_meta(index._connection, MERGED_EVENTS) == str(counts[-1])
    assert _answers(index) == before
    index.check()


def test_an_index_is_merged_again_only_after_it_grew_by_a_quarter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sync after a small growth keeps the last merge's count; once the index holds a
    quarter more events the next sync merges it again."""
    events = load_example_events()
    store = IndexingStorage(SearchIndex(InMemoryStorage()))
    monkeypatch.setattr(_merge, "MERGE_FLOOR", 1)
    TocBuilder(store).ingest(events[:200])
    store.index.sync()
    first = store.count_events()
    assert read_meta(store.index._connection, MERGED_EVENTS) == str(first)
    TocBuilder(store).ingest(events[200:220])
    store.index.sync()
    assert store.count_events() < first * MERGE_GROWTH
    assert read_meta(store.index._connection, MERGED_EVENTS) == str(first)
    TocBuilder(store).ingest(events[220:])
    store.index.sync()
    assert store.count_events() >= first * MERGE_GROWTH
    assert read_meta(store.index._connection, MERGED_EVENTS) == str(store.count_events())
    assert _segments(store.index, "events_fts") == 1


def test_an_index_that_cannot_be_written_is_searched_unmerged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A merge the file refuses leaves the index as it was: the sync and every search still
    answer, and the process does not try again on each query."""
    store, _ = _grown_in_batches(3)
    index = store.index
    before = _answers(index)
    attempts: list[str] = []

    def refuse(connection: sqlite3.Connection) -> None:
        attempts.append("merge")
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(_merge, "MERGE_FLOOR", 1)
    monkeypatch.setattr(_sidecar, "merge_fts_tables", refuse)
    assert not index.sync().changed
    assert not index.sync().changed
    assert attempts == ["merge"]
    assert read_meta(index._connection, MERGED_EVENTS) is None
    assert _answers(index) == before


@given(
    events=st.integers(0, 10**9),
    merged=st.one_of(st.none(), st.integers(0, 10**9).map(str), st.text(max_size=4)),
)
@example(events=20_000, merged="\u00b9")  # a digit to str.isdigit, not to int()
def test_a_merge_is_due_past_the_floor_when_never_done_or_outgrown(
    events: int, merged: str | None
) -> None:
    """Never below the floor; past it, when there was no readable merge or the index grew
    by a quarter; never right after a merge at this size."""
    due = merge_due(events, merged)
    if events < _merge.MERGE_FLOOR:
        assert not due
    elif merged is None or re.fullmatch("[0-9]+", merged) is None:
        assert due
    else:
        assert due == (events >= int(merged) * MERGE_GROWTH)
    assert not merge_due(events, str(events))
