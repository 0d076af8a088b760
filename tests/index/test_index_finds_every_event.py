"""Store/index agreement as a searcher sees it: after any sequence of ingests through the
builder and syncs of the index, full-text search finds every stored event by a term only it
holds, and a term every event holds finds exactly the stored events. (``index.check()`` in
``test_index_properties.py`` compares the tables; this asks the index the way search does.)"""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.ingest_strategies import SMALL_CONFIG, batchings, event_streams

from tocsearch.index import IndexingStorage, SearchIndex
from tocsearch.ingest import TocBuilder
from tocsearch.models import Event
from tocsearch.storage import InMemoryStorage, Storage

_SHARED = "omnipresent"


def _unique_term(position: int) -> str:
    # Letters then digits: one unicode61 token that the porter stemmer leaves as it is.
    return f"uniq{position:04d}"


def _marked(stream: list[Event]) -> list[Event]:
    """Each event's text led by its own term and the shared one (leading, so a cut of a long
    tool result keeps them)."""
    return [
        attrs.evolve(event, text=f"{_unique_term(i)} {_SHARED} {event.text}")
        for i, event in enumerate(stream)
    ]


@settings(max_examples=scaled(25), deadline=None)
@given(event_streams(max_size=20), st.data())
def test_full_text_finds_each_stored_event_and_only_those(
    stream: list[Event], data: st.DataObject
) -> None:
    """However the events were batched, whether the builder wrote through IndexingStorage or
    to the store behind the index, and whenever the index was synced in between, one final
    sync leaves search finding each stored event by its own term and nothing else."""
    events = _marked(stream)
    batches = data.draw(batchings(events))
    syncs = data.draw(st.lists(st.booleans(), min_size=len(batches), max_size=len(batches)))
    store: Storage = InMemoryStorage()
    index = SearchIndex(store)
    if data.draw(st.booleans(), label="write through the index"):
        store = IndexingStorage(index)
    builder = TocBuilder(store, config=SMALL_CONFIG)
    for batch, sync in zip(batches, syncs, strict=True):
        builder.ingest(batch)
        if sync:
            index.sync()
    index.sync()
    stored = {event.event_id: event for event in store.get_events()}
    assert set(stored) == {event.event_id for event in events}
    for position, event in enumerate(events):
        term = _unique_term(position)
        assert stored[event.event_id].text.startswith(term)
        assert index.fts_events(term, limit=5) == [event.event_id]
    everything = index.fts_events(_SHARED, limit=len(events) + 10)
    assert sorted(everything) == sorted(stored)
    assert index.counts()[0] == len(stored)
