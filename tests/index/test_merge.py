"""Merging the index's full-text tables: done by a sync once the index is large enough and
again after it has grown by a quarter, one segment per table after it, the same answers
before and after, and an index that cannot be written answering as it is."""

from __future__ import annotations

import pytest
from tests._support.fts_merges import fts_segments, refuse_merges

from tocsearch.examples import load_example_events
from tocsearch.index import IndexingStorage, SearchIndex
from tocsearch.index._schema import read_meta
from tocsearch.ingest import TocBuilder
from tocsearch.storage import InMemoryStorage, _fts_merge
from tocsearch.storage._fts_merge import MERGE_GROWTH, MERGED_EVENTS

QUERIES = ("JWT refresh", "deploy failed", "redis cache", "migration", "rotation token")


def _segments(index: SearchIndex, table: str) -> int:
    return fts_segments(index._connection, table)


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
    monkeypatch.setattr(_fts_merge, "MERGE_FLOOR", counts[-1] + 1)
    index.sync()
    assert read_meta(index._connection, MERGED_EVENTS) is None
    monkeypatch.setattr(_fts_merge, "MERGE_FLOOR", counts[-1])
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
    monkeypatch.setattr(_fts_merge, "MERGE_FLOOR", 1)
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
    attempts = refuse_merges(monkeypatch, "attempt to write a readonly database")
    assert not index.sync().changed
    assert not index.sync().changed
    assert attempts == ["merge"]
    assert read_meta(index._connection, MERGED_EVENTS) is None
    assert _answers(index) == before
