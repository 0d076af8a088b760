"""A sync looks for events without a vector only when something may have left one without:
a write through this index that did not embed its events, or a commit by another connection
to the file; a batch written through the index embeds its own events and scans no others."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt

from tocsearch.examples import load_example_events
from tocsearch.index import HashingEmbedder, IndexingStorage, SearchIndex
from tocsearch.ingest import TocBuilder
from tocsearch.models import Event
from tocsearch.storage import InMemoryStorage

_SCAN = "LEFT JOIN vectors"


def _traced(index: SearchIndex) -> list[str]:
    """The statements ``index`` runs from now on."""
    statements: list[str] = []
    index._connection.set_trace_callback(statements.append)
    return statements


def _store() -> tuple[InMemoryStorage, list[Event]]:
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
    store.put_events(more[:30])
    other.add_events(more[:30], embed=False)
    other.mark_synced()
    assert index.sync().vectors_added == 30
    store.put_events(more[30:])
    index.add_events(more[30:], embed=False)
    index.mark_synced()
    assert index.sync().vectors_added == len(more) - 30
    assert index.counts()[2] == store.count_events()
    index.check()


class _CountingEmbedder(HashingEmbedder):
    """A hashing embedder that remembers how many texts it was given."""

    def __init__(self, dimension: int) -> None:
        super().__init__(dimension)
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts += len(texts)
        return super().embed(texts)


def test_a_batch_through_the_indexing_store_embeds_only_its_own_events(tmp_path: Path) -> None:
    """Once every event has its vector, a batch written through IndexingStorage embeds its
    own events (new or changed) and scans no other event for a missing vector."""
    store, more = _store()
    embedder = _CountingEmbedder(16)
    writer = IndexingStorage(SearchIndex(store, tmp_path / "index.sqlite", embedder=embedder))
    assert embedder.texts == store.count_events()
    statements = _traced(writer.index)
    embedder.texts = 0
    for start in range(0, len(more), 20):
        writer.put_events(more[start : start + 20])
    changed = attrs.evolve(more[0], text="the same event, said again otherwise")
    writer.put_events([changed])
    assert embedder.texts == len(more) + 1
    assert not [sql for sql in statements if _SCAN in sql]
    assert writer.index.counts()[2] == store.count_events()
    writer.index.check()


def test_a_batch_after_another_connection_wrote_still_leaves_every_event_a_vector(
    tmp_path: Path,
) -> None:
    """Events another connection indexed without vectors between two batches of this index
    are found by the scan the next batch makes, and embedded."""
    store, more = _store()
    path = tmp_path / "index.sqlite"
    writer = IndexingStorage(SearchIndex(store, path, embedder=HashingEmbedder(16)))
    other = SearchIndex(store, path, embedder=HashingEmbedder(16))
    store.put_events(more[:30])
    other.add_events(more[:30], embed=False)
    other.mark_synced()
    statements = _traced(writer.index)
    writer.put_events(more[30:])
    assert [sql for sql in statements if _SCAN in sql]
    assert writer.index.counts()[2] == store.count_events()
    writer.index.check()
