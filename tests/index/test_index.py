"""The sidecar index: built on first use, kept in step, backfilled, rebuilt, checked."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs
import pytest

from tocsearch.errors import StoreCorrupted
from tocsearch.examples import load_example_events
from tocsearch.index import HashingEmbedder, IndexingStorage, SearchIndex
from tocsearch.index._sidecar_file import INDEX_FILE_NAME
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.storage import InMemoryStorage, JsonDirStorage


def _built(count: int = 120) -> InMemoryStorage:
    store = InMemoryStorage()
    TocBuilder(store).ingest(load_example_events()[:count])
    return store


def test_first_sync_indexes_every_event_and_segment() -> None:
    """A new index holds every event and segment of the store, and check() agrees."""
    store = _built()
    index = SearchIndex(store)
    report = index.sync()
    segments = len(store.get_nodes_by_level(TocLevel.SEGMENT))
    assert report.rebuilt
    assert index.counts() == (store.count_events(), segments, 0)
    index.check()
    assert not index.sync().changed


def test_fts_finds_an_event_by_a_stemmed_word() -> None:
    """Porter stemming: 'rotating' finds an event that says 'rotation'."""
    store = _built(480)
    index = SearchIndex(store)
    index.sync()
    found = index.fts_events("rotating", limit=5)
    assert found
    assert all("rotat" in store.get_event(event_id).text.casefold() for event_id in found)


def test_backfill_catches_writes_made_around_the_index() -> None:
    """Events and segments added to the store directly are indexed by the next sync."""
    events = load_example_events()
    store = InMemoryStorage()
    TocBuilder(store).ingest(events[:60])
    index = SearchIndex(store)
    index.sync()
    TocBuilder(store).ingest(events[60:200])
    assert not index.is_current()
    report = index.sync()
    assert report.events_added == 140
    assert report.segments_indexed > 0
    index.check()


def test_a_segment_deleted_behind_the_index_is_dropped_by_sync() -> None:
    """Sync forgets a segment the store lost, with the events it owned."""
    store = _built()
    index = SearchIndex(store)
    index.sync()
    gone = store.get_nodes_by_level(TocLevel.SEGMENT)[0]
    store.delete_node(gone.node_id)
    assert index.sync().segments_removed == 1
    assert not any(gone.node_id in owners for owners in index.owners(gone.event_ids).values())
    index.check()


def test_deleting_through_the_indexing_store_removes_the_segment_texts() -> None:
    """A delete through IndexingStorage leaves no FTS row of the segment behind."""
    store = IndexingStorage(SearchIndex(_built()))
    store.index.sync()
    segment = store.get_nodes_by_level(TocLevel.SEGMENT)[0]
    assert segment.node_id in store.index.fts_segments(segment.title, limit=50)
    store.delete_node(segment.node_id)
    assert segment.node_id not in store.index.fts_segments(segment.title, limit=50)
    assert store.index.is_current()
    store.check()


def test_the_indexing_store_reports_the_revision_of_the_store_it_writes() -> None:
    """Writes through IndexingStorage move its revision, which is the wrapped store's."""
    store = IndexingStorage(SearchIndex(_built()))
    before = store.revision()
    assert before is not None
    assert before == store.storage.revision()
    store.get_events()
    assert store.revision() == before
    event = store.get_events()[0]
    store.put_event(attrs.evolve(event, text="said again"))
    assert store.revision() not in (None, before)
    assert store.revision() == store.storage.revision()


def test_check_reports_a_text_that_differs_from_the_store() -> None:
    """An event whose stored text changed behind the index is named by check()."""
    store = _built()
    index = SearchIndex(store)
    index.sync()
    event = store.get_events()[3]
    store.put_event(attrs.evolve(event, text="something else entirely"))
    with pytest.raises(StoreCorrupted, match="text of event"):
        index.check()
    index.rebuild()
    index.check()


def test_sidecar_file_lives_in_the_store_directory_and_persists(tmp_path: Path) -> None:
    """A JSON-dir store's index is a file in its directory, reused when opened again."""
    with JsonDirStorage(tmp_path / "store") as store:
        TocBuilder(store).ingest(load_example_events()[:80])
        with SearchIndex(store, embedder=HashingEmbedder(32)) as index:
            assert index.path == tmp_path / "store" / INDEX_FILE_NAME
            index.sync()
    with (
        JsonDirStorage(tmp_path / "store", readonly=True) as store,
        SearchIndex(store, embedder=HashingEmbedder(32)) as index,
    ):
        assert index.is_current()
        assert not index.sync().changed
        assert index.counts()[2] == store.count_events()
        index.check()


def test_a_sidecar_of_another_format_is_rebuilt(tmp_path: Path) -> None:
    """A file with an older format number is rebuilt on sync, not trusted."""
    with JsonDirStorage(tmp_path / "store") as store:
        TocBuilder(store).ingest(load_example_events()[:50])
        with SearchIndex(store) as index:
            index.sync()
        connection = sqlite3.connect(tmp_path / "store" / INDEX_FILE_NAME)
        connection.execute("UPDATE index_meta SET value = '0' WHERE key = 'format'")
        connection.commit()
        connection.close()
        with SearchIndex(store) as index:
            assert index.sync().rebuilt
            index.check()


def test_a_new_embedder_re_embeds_every_event() -> None:
    """Vectors from another model are replaced, never mixed with the new model's."""
    store = _built(60)
    index = SearchIndex(store, embedder=HashingEmbedder(16))
    index.sync()
    index.embedder = HashingEmbedder(24)
    assert index.sync().vectors_added == store.count_events()
    index.check()


def test_an_unreadable_sidecar_is_a_store_corrupted_error(tmp_path: Path) -> None:
    """Garbage in the sidecar file surfaces as StoreCorrupted naming the file."""
    with JsonDirStorage(tmp_path / "store") as store:
        (tmp_path / "store" / INDEX_FILE_NAME).write_bytes(b"not a database" * 100)
        with pytest.raises(StoreCorrupted, match=INDEX_FILE_NAME):
            SearchIndex(store).sync()


def test_rebuild_replaces_an_unreadable_sidecar(tmp_path: Path) -> None:
    """rebuild() turns a damaged file back into a working index."""
    with JsonDirStorage(tmp_path / "store") as store:
        TocBuilder(store).ingest(load_example_events()[:50])
        (tmp_path / "store" / INDEX_FILE_NAME).write_bytes(b"not a database" * 100)
        index = SearchIndex(store)
        assert index.rebuild().rebuilt
        index.check()
        assert index.counts()[0] == store.count_events()
        index.close()


def test_a_sync_by_another_connection_is_seen_at_once(tmp_path: Path) -> None:
    """An index keeps what it last read of its file's state only while nothing wrote to the
    file: a sync by another index on the same file, or its own, is seen by the next check."""
    events = load_example_events()
    store = InMemoryStorage()
    TocBuilder(store).ingest(events[:60])
    path = tmp_path / "index.sqlite3"
    with SearchIndex(store, path) as first, SearchIndex(store, path) as second:
        first.sync()
        assert first.is_current()
        assert second.is_current()
        TocBuilder(store).ingest(events[60:120])
        assert not first.is_current()
        assert second.sync().events_added > 0
        assert first.is_current()
        assert not first.sync().changed
        TocBuilder(store).ingest(events[120:])
        assert not second.is_current()
        assert first.sync().events_added > 0
        assert first.is_current()
        assert second.is_current()
        first.check()
