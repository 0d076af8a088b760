"""The index and the store never disagree, whatever sequence of writes reached the store."""

from __future__ import annotations

import re
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests.strategies import events, sentences, toc_nodes

from tocsearch.errors import StoreCorrupted
from tocsearch.index import HashingEmbedder, IndexingStorage, SearchIndex
from tocsearch.index._embedder import normalized_rows
from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocNode
from tocsearch.storage import InMemoryStorage, Storage
from tocsearch.storage._sqlite_fts import event_text

_segments = toc_nodes(TocLevel.SEGMENT)


@st.composite
def _owned_segments(draw: st.DrawFn, pool: dict[str, Event], given_out: set[str]) -> TocNode:
    node = draw(_segments)
    # Each event belongs to one segment at most, as in every tree the builder makes.
    free = sorted(set(pool) - given_out)
    owned = draw(st.lists(st.sampled_from(free), max_size=4, unique=True)) if free else []
    given_out.update(owned)
    return attrs.evolve(node, event_ids=tuple(owned))


@st.composite
def _sharing_segments(draw: st.DrawFn, pool: dict[str, Event]) -> TocNode:
    """A segment listing any stored events, those another segment lists included: no tree the
    builder makes holds one, but a store takes it, and the index must agree with the store."""
    node = draw(_segments)
    owned = draw(st.lists(st.sampled_from(sorted(pool)), max_size=4, unique=True)) if pool else []
    return attrs.evolve(node, event_ids=tuple(sorted(owned)))


_operations = st.lists(
    st.one_of(
        st.tuples(st.just("events"), st.lists(events(), min_size=1, max_size=4)),
        st.tuples(st.just("segments"), st.integers(1, 3)),
        st.tuples(st.just("sharing segments"), st.integers(1, 3)),
        st.tuples(st.just("delete"), st.integers(0, 10)),
        st.tuples(st.just("forget owned"), st.integers(0, 10)),
        st.tuples(st.just("day"), toc_nodes(TocLevel.DAY)),
    ),
    max_size=12,
)

# Batches that also put stored events again with another text, and delete stored events.
_event_operations = st.lists(
    st.one_of(
        st.tuples(st.just("events"), st.lists(events(), min_size=1, max_size=4)),
        st.tuples(st.just("retext"), st.tuples(st.integers(0, 10), sentences)),
        st.tuples(st.just("forget"), st.lists(st.integers(0, 10), min_size=1, max_size=3)),
        st.tuples(st.just("forget owned"), st.integers(0, 10)),
        st.tuples(st.just("segments"), st.integers(1, 3)),
        st.tuples(st.just("delete"), st.integers(0, 10)),
    ),
    max_size=12,
)


def _apply(store: Storage, data: st.DataObject, operations: list[tuple[str, Any]]) -> None:
    pool: dict[str, Event] = {}
    given_out: set[str] = set()
    for kind, value in operations:
        if kind == "events":
            store.put_events(value)
            pool.update((event.event_id, event) for event in value)
        elif kind == "segments":
            store.put_nodes([data.draw(_owned_segments(pool, given_out)) for _ in range(value)])
        elif kind == "sharing segments":
            sharing = [data.draw(_sharing_segments(pool)) for _ in range(value)]
            store.put_nodes(sharing)
            given_out.update(event_id for node in sharing for event_id in node.event_ids)
        elif kind == "delete":
            ids = sorted(store.iter_node_ids())
            if ids:
                store.delete_node(ids[value % len(ids)])
        elif kind == "retext":
            stored = sorted(pool)
            if stored:
                at, text = value
                changed = attrs.evolve(pool[stored[at % len(stored)]], text=text)
                store.put_events([changed])
                pool[changed.event_id] = changed
        elif kind == "forget":
            # Events no segment owns: forgetting an owned one rebuilds its segment first.
            stored = sorted(pool.keys() - given_out)
            if stored:
                gone = {stored[at % len(stored)] for at in value}
                store.delete_events(sorted(gone))
                for event_id in gone:
                    del pool[event_id]
        elif kind == "forget owned":
            # An event a stored segment owns, deleted without rewriting the segment: the
            # segment still lists it, in the store and in the index alike.
            owned = sorted(pool.keys() & given_out)
            if owned:
                gone_id = owned[value % len(owned)]
                store.delete_events([gone_id])
                del pool[gone_id]
        else:
            store.put_node(value)


@settings(max_examples=scaled(30))
@given(st.data(), _operations)
def test_writes_through_the_indexing_store_keep_the_index_in_step(
    data: st.DataObject, operations: list[tuple[str, Any]]
) -> None:
    """After every sequence of puts and deletes made through IndexingStorage, check() passes
    without a sync and the index knows it is current."""
    store = IndexingStorage(SearchIndex(InMemoryStorage(), embedder=HashingEmbedder(8)))
    store.index.sync()
    _apply(store, data, operations)
    assert store.index.is_current()
    store.index.check()


def _owners_in_store(store: Storage) -> dict[str, tuple[str, ...]]:
    """Every event some stored segment lists, with the segments that list it, in id order."""
    found: dict[str, list[str]] = {}
    for node in store.get_nodes_by_level(TocLevel.SEGMENT):
        for event_id in node.event_ids:
            found.setdefault(event_id, []).append(node.node_id)
    return {event_id: tuple(sorted(set(nodes))) for event_id, nodes in found.items()}


@settings(max_examples=scaled(30))
@given(st.data(), _operations)
def test_the_index_names_every_segment_the_store_lists_an_event_under(
    data: st.DataObject, operations: list[tuple[str, Any]]
) -> None:
    """After any writes, segments that share events included (made, rewritten, deleted),
    owners() answers for each event the segments of the store that list it, all of them,
    whichever was written last, through IndexingStorage and after a sync alike."""
    through = IndexingStorage(SearchIndex(InMemoryStorage()))
    _apply(through, data, operations)
    behind = InMemoryStorage()
    index = SearchIndex(behind)
    index.sync()
    for node_id in through.iter_node_ids():
        behind.put_node(through.get_node(node_id))
    behind.put_events(through.get_events())
    index.sync()
    expected = _owners_in_store(through)
    asked = sorted({*expected, *(event.event_id for event in through.get_events())})
    assert through.index.owners(asked) == expected
    assert index.owners(asked) == expected
    through.index.check()
    index.check()


@settings(max_examples=scaled(30))
@given(st.data(), _operations)
def test_sync_after_writes_behind_the_index_restores_agreement(
    data: st.DataObject, operations: list[tuple[str, Any]]
) -> None:
    """Writes made to the store directly are all reflected after one sync."""
    plain = InMemoryStorage()
    index = SearchIndex(plain)
    index.sync()
    _apply(plain, data, operations)
    index.sync()
    index.check()


@settings(max_examples=scaled(30))
@given(st.data(), _event_operations)
def test_every_event_has_one_vector_of_its_current_text_after_any_batches(
    data: st.DataObject, operations: list[tuple[str, Any]]
) -> None:
    """After any sequence of batches (new events, events put again with another text) and
    deletes made through IndexingStorage with an embedder, every stored event has exactly one
    vector, the embedding of its current text, and no removed event keeps one."""
    embedder = HashingEmbedder(8)
    store = IndexingStorage(SearchIndex(InMemoryStorage(), embedder=embedder))
    _apply(store, data, operations)
    rows = store.index._connection.execute(
        "SELECT events.event_id, vectors.embedding FROM vectors "
        "LEFT JOIN events ON events.id = vectors.id"
    ).fetchall()
    vectors: dict[str | None, list[bytes]] = {}
    for event_id, blob in rows:
        vectors.setdefault(event_id, []).append(blob)
    stored = {event.event_id: event for event in store.get_events()}
    assert vectors.keys() == stored.keys()
    for event_id, event in stored.items():
        (blob,) = vectors[event_id]
        expected = normalized_rows(embedder.embed([event_text(event)]))[0]
        assert np.frombuffer(blob, dtype=np.float32).tolist() == expected.tolist()
    store.index.check()


_TAMPERS = ("move a vector", "drop a vector, add a stray", "cut a vector short")


@settings(max_examples=scaled(30))
@given(st.data(), _event_operations, st.sampled_from(_TAMPERS))
def test_check_names_any_vector_that_is_missing_stray_or_cut(
    data: st.DataObject, operations: list[tuple[str, Any]], tamper: str
) -> None:
    """Whatever the writes, a vector moved to no event, one missing beside a stray one (the
    count unchanged) or one cut short is reported by check(), naming what is wrong."""
    store = IndexingStorage(SearchIndex(InMemoryStorage(), embedder=HashingEmbedder(8)))
    _apply(store, data, operations)
    store.index.check()
    connection = store.index._connection
    rows = connection.execute(
        "SELECT events.id, events.event_id FROM events ORDER BY events.event_id"
    ).fetchall()
    assume(rows)
    rowid, event_id = data.draw(st.sampled_from(rows))
    (top,) = connection.execute("SELECT max(id) FROM events").fetchone()
    if tamper == "move a vector":
        connection.execute("UPDATE vectors SET id = ? WHERE id = ?", (top + 1, rowid))
        wrong = event_id
    elif tamper == "drop a vector, add a stray":
        (blob,) = connection.execute(
            "SELECT embedding FROM vectors WHERE id = ?", (rowid,)
        ).fetchone()
        connection.execute("DELETE FROM vectors WHERE id = ?", (rowid,))
        connection.execute("INSERT INTO vectors (id, embedding) VALUES (?, ?)", (top + 7, blob))
        wrong = event_id
    else:
        connection.execute(
            "UPDATE vectors SET embedding = substr(embedding, 1, 12) WHERE id = ?", (rowid,)
        )
        wrong = event_id
    assert connection.execute("SELECT count(*) FROM vectors").fetchone()[0] == len(rows)
    with pytest.raises(StoreCorrupted, match=re.escape(repr(wrong))):
        store.index.check()
