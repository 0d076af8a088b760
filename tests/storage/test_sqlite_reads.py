"""Blocks of reads in one SQLite read transaction (``SqliteStorage.reading()``,
``SearchIndex.reading()``): a block sees one committed state, the next block sees what other
connections committed meanwhile, a write inside a block is read by the rest of it, another
thread's write waits for the block instead of failing, and a block survives whatever is done
inside it (nesting, checks, scrubs, closing the store)."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tests._support.storage_helpers import make_event

from tocsearch.index import SearchIndex
from tocsearch.storage import SqliteStorage
from tocsearch.storage._common import reads_of, revision_of

_T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def test_a_block_reads_one_state_and_the_next_sees_other_writes(tmp_path: Path) -> None:
    """Within a reader's block, a writer's commit is not seen (counts, records and revision
    stay as they were); the block after it sees the commit, as do reads outside blocks."""
    path = tmp_path / "store"
    with SqliteStorage(path) as writer, SqliteStorage(path, readonly=True) as reader:
        writer.put_events([make_event(_T0, "first")])
        late = make_event(_T0 + timedelta(minutes=5), "late")
        with reader.reading():
            revision = reader.revision()
            assert reader.count_events() == 1
            writer.put_events([late])
            assert reader.count_events() == 1
            assert reader.find_event(late.event_id) is None
            assert reader.revision() == revision
        with reader.reading():
            assert reader.revision() != revision
            assert reader.count_events() == 2
            assert reader.find_event(late.event_id) == late
        writer.delete_events([late.event_id])
        assert reader.count_events() == 1


def test_a_write_inside_a_block_is_read_by_the_rest_of_it(tmp_path: Path) -> None:
    """A writer's own write inside its block commits at once: the block's later reads, its
    counts and its revision all see it, and so does a reader in another connection."""
    path = tmp_path / "store"
    with SqliteStorage(path) as writer, SqliteStorage(path, readonly=True) as reader:
        event = make_event(_T0, "inside")
        with writer.reading():
            before = writer.revision()
            assert writer.count_events() == 0
            writer.put_events([event])
            assert writer.count_events() == 1
            assert writer.get_event(event.event_id) == event
            assert writer.revision() != before
            assert reader.count_events() == 1
            with writer.reading():  # a nested block shares the outer one
                assert writer.count_nodes() == 0
                writer.delete_events([event.event_id])
                assert writer.count_events() == 0
        assert writer.count_events() == reader.count_events() == 0


def test_another_threads_write_waits_for_the_block_instead_of_failing(tmp_path: Path) -> None:
    """A write through the same store object from another thread, made while a block is
    open, lands once the block ends (it cannot begin inside the block's transaction)."""
    path = tmp_path / "store"
    failures: list[BaseException] = []
    with SqliteStorage(path) as store:
        asking = threading.Event()
        event = make_event(_T0, "threaded")

        def write() -> None:
            asking.set()
            try:
                store.put_events([event])
            except BaseException as error:  # reported to the test below
                failures.append(error)

        with store.reading():
            assert store.count_events() == 0
            writer = threading.Thread(target=write)
            writer.start()
            assert asking.wait(10)
            writer.join(0.05)
            assert store.count_events() == 0
        writer.join(10)
        assert not writer.is_alive()
        assert failures == []
        assert store.get_event(event.event_id) == event
        assert store.count_events() == 1


def test_checks_scrubs_and_closing_inside_a_block(tmp_path: Path) -> None:
    """check() and scrub() (whose VACUUM cannot run inside a transaction) work inside a
    block, which reads on after them; closing the store inside a block ends it quietly."""
    path = tmp_path / "store"
    store = SqliteStorage(path)
    events = [make_event(_T0 + timedelta(minutes=i), f"e{i}") for i in range(3)]
    store.put_events(events)
    with store.reading():
        store.check()
        store.delete_events([events[0].event_id])
        store.scrub()
        store.check()
        assert store.count_events() == 2
        store.close()
    with SqliteStorage(path, readonly=True) as reader:
        assert reader.get_events() == events[1:]


def test_reads_of_a_store_without_blocks_change_nothing(tmp_path: Path) -> None:
    """reads_of() gives the store's own block where it has one and an empty block
    elsewhere; either way the reads inside answer as outside."""
    from tocsearch.storage import InMemoryStorage

    memory = InMemoryStorage()
    memory.put_events([make_event(_T0, "m")])
    with reads_of(memory):
        assert memory.count_events() == 1
    with SqliteStorage(tmp_path / "store") as store, reads_of(store):
        assert store.count_events() == 0


def test_revision_of_asks_the_store_where_it_can_and_says_none_elsewhere(tmp_path: Path) -> None:
    """revision_of() is the store's revision() where the store has one, and None (keep
    nothing) for an object without it or whose ``revision`` is not a method."""

    class Plain:
        revision = 7

    with SqliteStorage(tmp_path / "store") as store:
        assert revision_of(store) == store.revision()
        before = revision_of(store)
        store.put_events([make_event(_T0, "r")])
        assert revision_of(store) != before
    assert revision_of(object()) is None
    assert revision_of(Plain()) is None


def test_an_index_syncs_inside_its_block_and_sees_later_writes_after_it(
    tmp_path: Path,
) -> None:
    """A sync inside an index's block catches up with the store (its writes commit at once)
    and the block's searches find what it indexed; another connection's writes to the index
    file are read by the next block."""
    path = tmp_path / "store"
    with SqliteStorage(path) as store:
        store.put_events([make_event(_T0, "zebrafinch")])
        index_path = tmp_path / "index.sqlite3"
        index = SearchIndex(store, index_path)
        other = SearchIndex(store, index_path)
        try:
            with index.reading():
                index.sync()
                assert [e for e, _ in index.fts_event_owners("zebrafinch", limit=5)] == [
                    make_event(_T0, "zebrafinch").event_id
                ]
                later = make_event(_T0 + timedelta(minutes=1), "okapi")
                store.put_events([later])
                other.sync()  # another connection indexes it meanwhile
                assert index.fts_events("okapi", limit=5) == []
            with index.reading():
                assert index.fts_events("okapi", limit=5) == [later.event_id]
            index.check()
        finally:
            index.close()
            other.close()
