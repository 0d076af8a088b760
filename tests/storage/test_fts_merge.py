"""When full-text tables are merged (one rule for a SQLite store's own tables and a sidecar
index's): a SqliteStorage merges its tables after the write that grows it past the floor and
again after each growth by a quarter, answers the same before and after, and a merge the
database refuses loses no write."""

from __future__ import annotations

import re
import sqlite3
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.fts_merges import fts_segments, refuse_merges
from tests._support.storage_helpers import make_event, make_node

from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.storage import _fts_merge
from tocsearch.storage._fts_merge import MERGE_GROWTH, MERGED_EVENTS, merge_due
from tocsearch.storage.sqlite import SqliteStorage

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)
_WORDS = ("deploy", "failed", "redis", "cache", "migration", "token", "rotation", "lunch")
_QUERIES = ("deploy", "redis OR token", "failed AND cache", "migr*", "lunch")


def _events(first: int, count: int) -> list[Event]:
    """``count`` events from number ``first`` on, a second apart, each with two common words
    and one of its own."""
    return [
        attrs.evolve(
            make_event(_T0 + timedelta(seconds=number), f"e{number}"),
            text=f"{_WORDS[number % 8]} {_WORDS[number * 3 % 7]} number{number}",
        )
        for number in range(first, first + count)
    ]


def _connection(store: SqliteStorage) -> sqlite3.Connection:
    return sqlite3.connect(f"{store.database_path.as_uri()}?mode=ro", uri=True)


def _mark(store: SqliteStorage) -> str | None:
    with _connection(store) as connection:
        row = connection.execute(
            "SELECT value FROM fts_meta WHERE key = ?", (MERGED_EVENTS,)
        ).fetchone()
    return None if row is None else str(row[0])


def _answers(store: SqliteStorage) -> list[list[str]]:
    """What each query finds in both tables, best first."""
    with _connection(store) as connection:
        return [
            [
                row[0]
                for table, owner, column in (
                    ("events_fts", "events", "event_id"),
                    ("segments_fts", "nodes", "node_id"),
                )
                for row in connection.execute(
                    f"SELECT {owner}.{column} FROM {table} JOIN {owner} "
                    f"ON {owner}.id = {table}.rowid WHERE {table} MATCH ? ORDER BY rank",
                    (query,),
                )
            ]
            for query in _QUERIES
        ]


def _segments(store: SqliteStorage, table: str) -> int:
    with _connection(store) as connection:
        return fts_segments(connection, table)


def _grown(path: Path, batches: int, size: int) -> SqliteStorage:
    """A store written in ``batches`` puts of ``size`` events, with a segment per batch."""
    store = SqliteStorage(path)
    for batch in range(batches):
        store.put_events(_events(batch * size, size))
        store.put_nodes(
            [make_node(f"toc:segment:2026-01-30:b{batch}", TocLevel.SEGMENT, _T0, hours=0.5)]
        )
    return store


def test_a_write_past_the_floor_merges_each_table_into_one_segment_and_answers_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below the floor the tables keep a segment per batch and no merge is recorded; the
    write that reaches the floor leaves one segment per table, records the count it merged
    at, and every query finds the same rows in the same order as an unmerged store."""
    monkeypatch.setattr(_fts_merge, "MERGE_FLOOR", 10_000)
    unmerged = _grown(tmp_path / "unmerged", 6, 40)
    assert _segments(unmerged, "events_fts") > 1
    assert _mark(unmerged) is None
    monkeypatch.setattr(_fts_merge, "MERGE_FLOOR", 200)
    merged = _grown(tmp_path / "merged", 5, 40)
    assert _mark(merged) == "200"
    assert _segments(merged, "events_fts") == 1
    merged.put_events(_events(200, 40))
    merged.put_nodes([make_node("toc:segment:2026-01-30:b5", TocLevel.SEGMENT, _T0, hours=0.5)])
    assert _answers(merged) == _answers(unmerged)
    merged.check()
    merged.close()
    unmerged.close()


@settings(max_examples=scaled(20), deadline=None)
@given(sizes=st.lists(st.integers(1, 60), min_size=1, max_size=12), floor=st.integers(1, 150))
def test_the_store_is_merged_exactly_when_the_rule_says(sizes: list[int], floor: int) -> None:
    """After every batch the recorded merge count is what the rule gives for the counts seen
    so far: set to the count when a merge was due, kept otherwise."""
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as scratch:
        patch.setattr(_fts_merge, "MERGE_FLOOR", floor)
        store = SqliteStorage(Path(scratch) / "store")
        model: str | None = None
        written = 0
        for size in sizes:
            store.put_events(_events(written, size))
            written += size
            if merge_due(written, model):
                model = str(written)
            assert _mark(store) == model
            if model == str(written):
                assert _segments(store, "events_fts") == 1
        store.close()


def test_a_merge_the_database_refuses_loses_no_write_and_is_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge that fails leaves the batch stored and searchable, records no merge, and the
    store does not try again on each later write."""
    attempts = refuse_merges(monkeypatch, "database or disk is full")
    store = SqliteStorage(tmp_path / "store")
    store.put_events(_events(0, 10))
    store.put_events(_events(10, 10))
    assert attempts == ["merge"]
    assert store.count_events() == 20
    assert _mark(store) is None
    with _connection(store) as connection:
        found = connection.execute(
            "SELECT count(*) FROM events_fts WHERE events_fts MATCH 'number19 OR number0'"
        ).fetchone()
    assert found == (2,)
    store.check()
    store.close()


def test_scrub_records_the_merge_it_makes(tmp_path: Path) -> None:
    """A scrub merges the tables, so the next merge is due only after a quarter's growth."""
    store = _grown(tmp_path / "store", 3, 20)
    store.scrub()
    assert _mark(store) == "60"
    assert _segments(store, "events_fts") == 1
    store.close()


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
    if events < _fts_merge.MERGE_FLOOR:
        assert not due
    elif merged is None or re.fullmatch("[0-9]+", merged) is None:
        assert due
    else:
        assert due == (events >= int(merged) * MERGE_GROWTH)
    assert not merge_due(events, str(events))
