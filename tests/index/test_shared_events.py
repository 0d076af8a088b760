"""An event that two stored segments list (no tree the builder makes holds one, but a store takes
it) is owned by both in the index, as in the store: found and cited under each, whichever
segment was written last, and still under the one left when the other goes."""

from __future__ import annotations

import itertools
from pathlib import Path

import attrs
import pytest

from tocsearch.examples import load_example_events
from tocsearch.index import HashingEmbedder, IndexingStorage, IndexSeeder, SearchIndex
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate import Navigator
from tocsearch.storage import InMemoryStorage

_WORD = "quokkafjord"


def _sharing_store(last: str) -> tuple[InMemoryStorage, TocNode, TocNode, str]:
    """The example history, one event's text holding a word no other event holds, with that
    event of segment A also listed by segment B of the same day; ``last`` names the segment
    written last."""
    events = load_example_events()[:240]
    store = InMemoryStorage()
    TocBuilder(store).ingest(events)
    segments = store.get_nodes_by_level(TocLevel.SEGMENT)
    a, b = next(
        (one, other)
        for one, other in itertools.pairwise(segments)
        if one.node_id.split(":")[2] == other.node_id.split(":")[2]
    )
    shared = a.event_ids[0]
    # Built again with the word in the event, so the tree's summaries and digests hold it.
    store = InMemoryStorage()
    TocBuilder(store).ingest(
        [attrs.evolve(e, text=f"{e.text} {_WORD}") if e.event_id == shared else e for e in events]
    )
    a, b = store.get_node(a.node_id), store.get_node(b.node_id)
    assert shared in a.event_ids
    assert shared not in b.event_ids
    b = attrs.evolve(b, event_ids=tuple(sorted({*b.event_ids, shared})))
    store.put_nodes([b, a] if last == "a" else [a, b])
    return store, a, b, shared


@pytest.mark.parametrize("last", ["a", "b"])
def test_the_index_finds_the_event_under_both_segments(last: str) -> None:
    """A search for the event's word returns both segments, each citing the event, in the
    same order whichever was written last; owners() names both; check() passes."""
    store, a, b, shared = _sharing_store(last)
    index = SearchIndex(store)
    outcome = index.search(_WORD, mode="fts", limit=5)
    cited = {hit.segment_id: hit.event_ids for hit in outcome.hits}
    assert cited == {a.node_id: (shared,), b.node_id: (shared,)}
    assert index.owners([shared]) == {shared: tuple(sorted((a.node_id, b.node_id)))}
    assert index.fts_event_owners(_WORD, limit=5) == [(shared, tuple(sorted(cited)))]
    other, _, _, _ = _sharing_store("b" if last == "a" else "a")
    assert [hit.segment_id for hit in SearchIndex(other).search(_WORD, mode="fts").hits] == [
        hit.segment_id for hit in outcome.hits
    ]
    index.check()


@pytest.mark.parametrize("gone", ["a", "b"])
def test_removing_one_segment_leaves_the_event_to_the_other(gone: str) -> None:
    """Deleting either segment (the one written last included) leaves the event owned by, and
    found under, the other one, through IndexingStorage and by a sync alike."""
    store, a, b, shared = _sharing_store("b")
    removed, kept = (a, b) if gone == "a" else (b, a)
    behind = SearchIndex(store)
    behind.sync()
    through = IndexingStorage(SearchIndex(store))
    through.index.sync()
    through.delete_node(removed.node_id)
    for index in (through.index, behind):
        index.sync()
        assert index.owners([shared]) == {shared: (kept.node_id,)}
        hits = index.search(_WORD, mode="fts").hits
        assert [(hit.segment_id, hit.event_ids) for hit in hits] == [(kept.node_id, (shared,))]
        index.check()


@pytest.mark.parametrize("last", ["a", "b"])
def test_the_navigator_cites_the_event_under_a_segment_that_lists_it(last: str) -> None:
    """With the index as its teleport and without, the navigator cites the event once, under
    one of the two segments that list it."""
    store, a, b, shared = _sharing_store(last)
    for seeder in (None, IndexSeeder(SearchIndex(store))):
        result = Navigator(store, seeder=seeder).navigate(_WORD)
        citing = [item for item in result.evidence if shared in item.event_ids]
        assert citing, seeder
        assert {item.segment_id for item in citing} <= {a.node_id, b.node_id}
        assert sum(item.event_ids == (shared,) for item in citing) == 1


def test_a_sidecar_that_kept_one_owner_an_event_is_upgraded_in_place(tmp_path: Path) -> None:
    """An index file whose owners table kept one segment an event (event_id its key, as
    written before) has its owners made again from the store on the next sync, which rebuilds
    nothing else: the vectors stay, and the event is found under both segments."""
    store, a, b, shared = _sharing_store("b")
    path = tmp_path / "index.sqlite3"
    with SearchIndex(store, path, embedder=HashingEmbedder(8)) as index:
        index.sync()
        vectors = index._connection.execute("SELECT id, embedding FROM vectors").fetchall()
        connection = index._connection
        connection.execute("DROP TABLE owners")
        connection.execute(
            "CREATE TABLE owners (event_id TEXT PRIMARY KEY, node_id TEXT NOT NULL) WITHOUT ROWID"
        )
        connection.execute("CREATE INDEX owners_by_node ON owners (node_id)")
        connection.executemany(
            "INSERT OR REPLACE INTO owners (event_id, node_id) VALUES (?, ?)",
            [(e, n.node_id) for n in (a, b) for e in n.event_ids],
        )
        for node in store.get_nodes_by_level(TocLevel.SEGMENT):
            if node.node_id not in (a.node_id, b.node_id):
                connection.executemany(
                    "INSERT OR REPLACE INTO owners (event_id, node_id) VALUES (?, ?)",
                    [(e, node.node_id) for e in node.event_ids],
                )
    with SearchIndex(store, path, embedder=HashingEmbedder(8)) as index:
        assert index.owners([shared]) == {shared: (b.node_id,)}
        assert not index.sync().changed
        assert index.owners([shared]) == {shared: tuple(sorted((a.node_id, b.node_id)))}
        assert index._connection.execute("SELECT id, embedding FROM vectors").fetchall() == vectors
        assert {hit.segment_id for hit in index.search(_WORD, mode="fts").hits} == {
            a.node_id,
            b.node_id,
        }
        index.check()
