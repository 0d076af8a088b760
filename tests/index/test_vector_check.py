"""A sync looks for events without a vector only when something may have left one without:
a write through this index, or a commit by another connection to the file."""

from __future__ import annotations

from pathlib import Path

from tocsearch.examples import load_example_events
from tocsearch.index import HashingEmbedder, SearchIndex
from tocsearch.ingest import TocBuilder
from tocsearch.storage import InMemoryStorage

_SCAN = "LEFT JOIN vectors"


def _traced(index: SearchIndex) -> list[str]:
    """The statements ``index`` runs from now on."""
    statements: list[str] = []
    index._connection.set_trace_callback(statements.append)
    return statements


def _store() -> tuple[InMemoryStorage, list[object]]:
    events = load_example_events()
    store = InMemoryStorage()
    TocBuilder(store).ingest(events[:200])
    return store, list(events[200:260])


def test_an_unchanged_index_is_not_scanned_for_missing_vectors(tmp_path: Path) -> None:
    """Once every event has its vector, syncs with nothing written skip the scan."""
    store, _ = _store()
    index = SearchIndex(store, tmp_path / "index.sqlite", embedder=HashingEmbedder(16))
    assert index.sync().vectors_added == store.count_events()
    statements = _traced(index)
    for _ in range(3):
        assert not index.sync().changed
    assert not [sql for sql in statements if _SCAN in sql]


def test_events_written_without_vectors_are_embedded_by_the_next_sync(tmp_path: Path) -> None:
    """Events another connection indexed without vectors, and events this index indexed
    without them, are embedded by the next sync of this index."""
    store, more = _store()
    path = tmp_path / "index.sqlite"
    index = SearchIndex(store, path, embedder=HashingEmbedder(16))
    index.sync()
    other = SearchIndex(store, path, embedder=HashingEmbedder(16))
    store.put_events(more[:30])  # type: ignore[arg-type]
    other.add_events(more[:30], embed=False)  # type: ignore[arg-type]
    other.mark_synced()
    assert index.sync().vectors_added == 30
    store.put_events(more[30:])  # type: ignore[arg-type]
    index.add_events(more[30:], embed=False)  # type: ignore[arg-type]
    index.mark_synced()
    assert index.sync().vectors_added == len(more) - 30
    assert index.counts()[2] == store.count_events()
    index.check()
