"""Behaviour only SqliteStorage has: FTS5 tables in step with the records, damaged databases,
readers beside a writer, text SQLite cannot encode, symbolic links."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.storage_helpers import make_event, make_node
from tests._support.synthetic import history
from tests.strategies import events

from tocsearch import check_store, repair_store
from tocsearch.errors import StoreCorrupted, StoreReadOnly
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocBullet
from tocsearch.storage._sqlite_fts import (
    FTS_VERSION,
    create_fts_tables,
    drop_fts_tables,
    fts_version,
    segment_fields,
    storable_text,
)
from tocsearch.storage.sqlite import SqliteStorage

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)


def _matches(store: SqliteStorage, table: str, query: str) -> list[str]:
    """The ids whose text in ``table`` matches an FTS5 query, read through a connection of
    one's own as the index does."""
    owner, column = ("events", "event_id") if table == "events_fts" else ("nodes", "node_id")
    with sqlite3.connect(f"{store.database_path.as_uri()}?mode=ro", uri=True) as connection:
        rows = connection.execute(
            f"SELECT {owner}.{column} FROM {table} JOIN {owner} ON {owner}.id = {table}.rowid "
            f"WHERE {table} MATCH ? ORDER BY {owner}.{column}",
            (query,),
        ).fetchall()
    connection.close()
    return [row[0] for row in rows]


def test_event_texts_are_searchable_in_the_same_commit(tmp_path: Path) -> None:
    """A put event is found by FTS5 (with porter stemming) at once; a replaced text replaces
    its old words; the rowid joins back to the event."""
    with SqliteStorage(tmp_path / "store") as store:
        first = attrs.evolve(make_event(_T0, "a"), text="the deploys were failing")
        second = attrs.evolve(make_event(_T0 + timedelta(seconds=1), "b"), text="all green")
        store.put_events([first, second])
        assert _matches(store, "events_fts", "fail") == [first.event_id]
        store.put_event(attrs.evolve(first, text="rollback done", session_id="s2"))
        assert _matches(store, "events_fts", "fail") == []
        assert _matches(store, "events_fts", "rollback") == [first.event_id]
        store.check()


def test_segment_texts_follow_puts_and_deletes(tmp_path: Path) -> None:
    """Segments are indexed over title, summary, bullets and keywords; other levels are not;
    a deleted segment leaves the index in the same transaction."""
    segment = attrs.evolve(
        make_node("toc:segment:2026-01-30:s1", TocLevel.SEGMENT, _T0),
        summary="tuned the cache",
        bullets=(TocBullet("rotated the signing keys"),),
        keywords=("jwt",),
    )
    day = attrs.evolve(make_node("toc:day:2026-01-30", TocLevel.DAY, _T0), title="keys day")
    with SqliteStorage(tmp_path / "store") as store:
        store.put_nodes([segment, day])
        assert _matches(store, "segments_fts", "key") == [segment.node_id]
        assert _matches(store, "segments_fts", "summary:cache") == [segment.node_id]
        assert _matches(store, "segments_fts", "keywords:jwt") == [segment.node_id]
        store.delete_node(segment.node_id)
        assert _matches(store, "segments_fts", "key") == []
        store.check()


@settings(max_examples=scaled(25), deadline=None)
@given(
    batches=st.lists(st.lists(events(), max_size=5), max_size=5),
    moved=st.sets(st.integers(0, 24), max_size=5),
)
def test_the_index_agrees_with_the_store_after_any_puts(
    tmp_path_factory: pytest.TempPathFactory, batches: list[list[Event]], moved: set[int]
) -> None:
    """After any sequence of puts and re-puts, every stored event's text is indexed exactly
    once, under its own row, and nothing else is."""
    path = tmp_path_factory.mktemp("fts") / "store"
    stored: dict[str, Event] = {}
    with SqliteStorage(path) as store:
        for batch in batches:
            store.put_events(batch)
            stored.update((event.event_id, event) for event in batch)
        for number, event_id in enumerate(sorted(stored)):
            if number in moved:
                again = attrs.evolve(stored[event_id], text="moved away", session_id="s9")
                store.put_event(again)
                stored[event_id] = again
        store.check()
        with sqlite3.connect(store.database_path) as connection:
            indexed = dict(
                connection.execute(
                    "SELECT events.event_id, events_fts.text FROM events_fts "
                    "JOIN events ON events.id = events_fts.rowid"
                )
            )
        connection.close()
    assert indexed == {event_id: event.text for event_id, event in stored.items()}


def test_a_file_that_is_no_database_is_reported_not_raised(tmp_path: Path) -> None:
    """Junk where the database should be makes opening raise StoreCorrupted naming the file,
    for a reader and for a writer."""
    path = tmp_path / "store"
    with SqliteStorage(path) as store:
        store.put_event(make_event(_T0, "a"))
    database = path / "tocsearch.sqlite3"
    database.write_bytes(b"this is not a database at all" * 200)
    for readonly in (True, False):
        with pytest.raises(StoreCorrupted, match=re.escape(str(database))):
            SqliteStorage(path, readonly=readonly)


def test_a_truncated_database_is_reported(tmp_path: Path) -> None:
    """A database cut short opens or fails cleanly; reads or check() raise StoreCorrupted."""
    path = tmp_path / "store"
    with SqliteStorage(path) as store:
        store.put_events([make_event(_T0 + timedelta(seconds=n), f"e{n}") for n in range(400)])
    database = path / "tocsearch.sqlite3"
    database.write_bytes(database.read_bytes()[: 3 * 4096])

    def read_everything() -> None:
        with SqliteStorage(path) as store:
            store.get_events()
            store.check()

    with pytest.raises(StoreCorrupted):
        read_everything()


def test_a_missing_database_is_reported(tmp_path: Path) -> None:
    """A store whose database file was removed does not silently start empty."""
    path = tmp_path / "store"
    SqliteStorage(path).close()
    (path / "tocsearch.sqlite3").unlink()
    with pytest.raises(StoreCorrupted, match="missing"):
        SqliteStorage(path)


def test_a_junk_row_is_named_by_reads_and_check(tmp_path: Path) -> None:
    """A row whose record is junk leaves the others readable; reading it and check() name it."""
    path = tmp_path / "store"
    with SqliteStorage(path) as store:
        store.put_node(make_node("toc:day:2026-01-30", TocLevel.DAY, _T0))
        store.put_node(make_node("toc:day:2026-01-31", TocLevel.DAY, _T0 + timedelta(days=1)))
    with sqlite3.connect(path / "tocsearch.sqlite3") as connection:
        connection.execute(
            "UPDATE nodes SET record = '{\"node_id\": 1' WHERE node_id = 'toc:day:2026-01-30'"
        )
    connection.close()
    with SqliteStorage(path) as store:
        assert store.get_node("toc:day:2026-01-31").title.startswith("title")
        with pytest.raises(StoreCorrupted, match="toc:day:2026-01-30"):
            store.get_node("toc:day:2026-01-30")
        with pytest.raises(StoreCorrupted, match="toc:day:2026-01-30"):
            store.check()


def test_an_index_out_of_step_fails_check(tmp_path: Path) -> None:
    """An FTS5 row removed behind the store's back is found by check(), reader or writer."""
    path = tmp_path / "store"
    with SqliteStorage(path) as store:
        store.put_events([make_event(_T0, "a"), make_event(_T0, "b")])
    with sqlite3.connect(path / "tocsearch.sqlite3") as connection:
        connection.execute("DELETE FROM events_fts WHERE rowid = (SELECT min(rowid) FROM events)")
    connection.close()
    for readonly in (True, False):
        with (
            SqliteStorage(path, readonly=readonly) as store,
            pytest.raises(StoreCorrupted, match="events_fts"),
        ):
            store.check()


def test_another_schema_version_is_refused(tmp_path: Path) -> None:
    """A database of an unknown schema or FTS version is refused with both versions named."""
    path = tmp_path / "store"
    SqliteStorage(path).close()
    with sqlite3.connect(path / "tocsearch.sqlite3") as connection:
        connection.execute("PRAGMA user_version = 99")
    connection.close()
    with pytest.raises(StoreCorrupted, match="schema version 99"):
        SqliteStorage(path, readonly=True)


def test_a_reader_sees_each_commit_of_a_live_writer(tmp_path: Path) -> None:
    """A reader opened beside a writer reads what the writer commits, without reopening,
    and refuses writes."""
    path = tmp_path / "store"
    with SqliteStorage(path) as writer, SqliteStorage(path, readonly=True) as reader:
        assert reader.count_events() == 0
        writer.put_event(make_event(_T0, "a"))
        assert reader.count_events() == 1
        assert reader.get_event(make_event(_T0, "a").event_id).text == "text a"
        with pytest.raises(StoreReadOnly):
            reader.put_event(make_event(_T0, "b"))
        with pytest.raises(StoreReadOnly):
            reader.delete_node("toc:day:2026-01-30")
        reader.refresh()
        reader.check()


def test_text_with_lone_surrogates_round_trips(tmp_path: Path) -> None:
    """Text and session ids that UTF-8 cannot carry reach the store as Event holds them, with
    U+FFFD for each lone surrogate; looking a surrogate up finds nothing rather than failing."""
    event = attrs.evolve(make_event(_T0, "a"), text="half \ud800 pair", session_id="s\udfff")
    assert (event.text, event.session_id) == ("half \ufffd pair", "s\ufffd")
    with SqliteStorage(tmp_path / "store") as store:
        store.put_event(event)
        assert store.get_event(event.event_id) == event
        assert store.get_session_events("s\ufffd") == [event]
        assert store.get_session_events("s\udfff") == []
        assert store.find_node("toc:day:\ud800") is None
        store.check()
    with SqliteStorage(tmp_path / "store", readonly=True) as reader:
        assert reader.get_events() == [event]


@pytest.mark.parametrize("name", ["tocsearch.sqlite3", "tocsearch.sqlite3-wal"])
def test_symbolic_links_in_the_store_are_refused(tmp_path: Path, name: str) -> None:
    """A store whose database or log is a symbolic link is not opened, so a planted link
    cannot make the store write elsewhere."""
    path = tmp_path / "store"
    SqliteStorage(path).close()
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    (path / name).unlink(missing_ok=True)
    (path / name).symlink_to(target)
    for readonly in (True, False):
        with pytest.raises(StoreCorrupted, match="symbolic link"):
            SqliteStorage(path, readonly=readonly)


def test_fts_functions_build_the_same_tables_in_a_file_of_their_own() -> None:
    """The FTS schema module works on any connection: create, version, drop, recreate."""
    connection = sqlite3.connect(":memory:")
    assert fts_version(connection) is None
    create_fts_tables(connection)
    create_fts_tables(connection)
    assert fts_version(connection) == FTS_VERSION
    drop_fts_tables(connection)
    assert fts_version(connection) is None
    connection.close()


def test_segment_fields_put_bullets_and_keywords_one_per_line() -> None:
    """The segment columns are title, summary, bullets and keywords, lists one per line."""
    node = attrs.evolve(
        make_node("toc:segment:2026-01-30:s1", TocLevel.SEGMENT, _T0),
        bullets=(TocBullet("one"), TocBullet("two \udc80")),
        keywords=("k1", "k2"),
    )
    assert segment_fields(node) == (
        "title of toc:segment:2026-01-30:s1",
        "",
        "one\ntwo \ufffd",
        "k1\nk2",
    )
    assert storable_text("plain ? text") == "plain ? text"


def test_a_damaged_store_is_found_by_the_deep_check_and_rebuilt_by_repair(tmp_path: Path) -> None:
    """A damaged event row makes check_store raise StoreCorrupted; repair_store rebuilds the
    store from every event it can still read, names the lost one, and the result checks."""
    events = history(300, seed=5)
    path = tmp_path / "store"
    with SqliteStorage(path) as store:
        TocBuilder(store).ingest(events)
    check_store(path)
    lost = events[100].event_id
    with sqlite3.connect(path / "tocsearch.sqlite3") as connection:
        connection.execute("UPDATE events SET record = 'junk' WHERE event_id = ?", (lost,))
    connection.close()
    with pytest.raises(StoreCorrupted, match=re.escape(lost)):
        check_store(path)
    report = repair_store(path)
    assert report.events_recovered == len(events) - 1
    assert report.missing_event_ids == (lost,)
    assert any(lost in problem for problem in report.problems)
    check_store(path)
    with SqliteStorage(path, readonly=True) as store:
        assert store.count_events() == len(events) - 1
        assert not store.has_event(lost)


@pytest.mark.parametrize("damage", ["DROP TABLE events_fts", "UPDATE fts_meta SET value = '0'"])
def test_missing_or_stale_fts_tables_are_rebuilt_by_the_next_writer(
    tmp_path: Path, damage: str
) -> None:
    """A store whose FTS tables are missing or of another version is refused by a reader
    (with what to do) and backfilled by the next writer: every text indexed again."""
    path = tmp_path / "store"
    segment = attrs.evolve(
        make_node("toc:segment:2026-01-30:s1", TocLevel.SEGMENT, _T0), title="rotated keys"
    )
    with SqliteStorage(path) as store:
        store.put_events([attrs.evolve(make_event(_T0, "a"), text="deploys were failing")])
        store.put_node(segment)
    with sqlite3.connect(path / "tocsearch.sqlite3") as connection:
        connection.execute(damage)
    connection.close()
    with pytest.raises(StoreCorrupted, match="as a writer to rebuild"):
        SqliteStorage(path, readonly=True)
    with SqliteStorage(path) as store:
        store.check()
        assert _matches(store, "events_fts", "fail") == [make_event(_T0, "a").event_id]
        assert _matches(store, "segments_fts", "key") == [segment.node_id]
    with SqliteStorage(path, readonly=True) as reader:
        reader.check()
