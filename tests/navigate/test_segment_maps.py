"""The navigator reads a day's segments through its segment map: it finds what it found
without maps, reads fewer nodes, and ignores a map that does not match the day's children."""

from __future__ import annotations

import attrs
import pytest
from tests._support.synthetic import history

from tocsearch._segment_map import split
from tocsearch.digest import TermDigest
from tocsearch.ingest import TocBuilder
from tocsearch.ingest._digests import MAP_SEGMENTS, segment_map
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate import Navigator
from tocsearch.navigate._digests import DigestCache, _Decoded
from tocsearch.navigate._lens import Lens
from tocsearch.storage import InMemoryStorage
from tocsearch.text import ELLIPSIS

QUERIES = (
    "refresh token rotation",
    "lock_timeout alembic",
    "readiness probe OOMKilled",
    "presigned URL CORS",
    "cache stampede eviction",
    "useEffect memo",
    "docker alpine",
    "pytest retry GitHub",
)


@pytest.fixture(scope="module")
def built() -> InMemoryStorage:
    """A store built from 3,000 events of the synthetic history, 16 sessions a day: busy
    days carry segment maps."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(history(3000, sessions_per_day=16))
    return storage


def without_maps(storage: InMemoryStorage) -> InMemoryStorage:
    """A copy of ``storage`` whose days keep their digests but no segment maps, as a store
    built before maps."""
    copy = InMemoryStorage()
    for level in TocLevel:
        nodes = storage.get_nodes_by_level(level)
        copy.put_nodes(
            attrs.evolve(node, digest=TermDigest.from_text(node.digest).to_text())
            if level is TocLevel.DAY
            else node
            for node in nodes
        )
    copy.put_events(storage.get_events())
    for grip_id in storage.iter_grip_ids():
        copy.put_grip(storage.get_grip(grip_id))
    return copy


def test_every_built_day_carries_a_map_of_its_segments(built: InMemoryStorage) -> None:
    """Each day of at least MAP_SEGMENTS segments holds the map of exactly its children, made
    from their digests; a quieter day holds none."""
    days = built.get_nodes_by_level(TocLevel.DAY)
    assert sum(len(day.child_node_ids) >= MAP_SEGMENTS for day in days) >= 3
    for day in days:
        parts = split(day.digest)
        assert parts is not None
        found = parts[1]
        if len(day.child_node_ids) < MAP_SEGMENTS:
            assert found is None
            continue
        assert found is not None
        assert found.covers(day.child_node_ids)
        assert found == segment_map(built.get_child_nodes(day.node_id))


@pytest.mark.parametrize("query", QUERIES)
def test_maps_change_no_answer(built: InMemoryStorage, query: str) -> None:
    """The same question finds the same evidence with and without segment maps, reading no
    more nodes with them. (An event clipped to the budget may keep a few characters more or
    less: the count of nodes read is part of what the budget holds.)"""
    now = max(day.end_time for day in built.get_nodes_by_level(TocLevel.DAY))
    mapped = Navigator(built, now=now).navigate(query)
    plain = Navigator(without_maps(built), now=now).navigate(query)
    assert [(item.segment_id, item.event_ids, item.clipped) for item in mapped.evidence] == [
        (item.segment_id, item.event_ids, item.clipped) for item in plain.evidence
    ]
    for ours, theirs in zip(mapped.evidence, plain.evidence, strict=True):
        if ours.clipped:
            shorter = min(len(ours.text), len(theirs.text)) - len(ELLIPSIS)
            assert ours.text[:shorter] == theirs.text[:shorter]
        else:
            assert ours.text == theirs.text
    assert mapped.nodes_visited <= plain.nodes_visited


def _first_day(storage: InMemoryStorage) -> TocNode:
    return next(
        day
        for day in storage.get_nodes_by_level(TocLevel.DAY)
        if len(day.child_node_ids) >= MAP_SEGMENTS
    )


def test_a_map_made_for_other_children_is_not_used(built: InMemoryStorage) -> None:
    """A day whose children no longer match its map (a hand-edited store) is read without it."""
    day = _first_day(built)
    terms = ("token",)
    assert Lens(terms, digests=DigestCache()).segment_masks(day) is not None
    reordered = attrs.evolve(day, child_node_ids=day.child_node_ids[::-1])
    assert Lens(terms, digests=DigestCache()).segment_masks(reordered) is None
    shorter = attrs.evolve(day, child_node_ids=day.child_node_ids[1:])
    assert Lens(terms, digests=DigestCache()).segment_masks(shorter) is None


def test_a_day_read_through_its_map_is_not_decompressed(built: InMemoryStorage) -> None:
    """Reading the segment counts of a day leaves its bitmap compressed; the digest is still
    decoded on demand and equals the stored one."""
    day = _first_day(built)
    cache = DigestCache()
    assert Lens(("token",), digests=cache).segment_masks(day) is not None
    entry = next(iter(cache._entries.values()))
    assert isinstance(entry, _Decoded)
    assert entry.packed is not None
    assert cache.of(day) == TermDigest.from_text(day.digest)
    assert entry.packed is None


def test_maps_spare_reading_segments_that_cannot_hold_the_terms(built: InMemoryStorage) -> None:
    """Over the questions, the walks read fewer nodes with maps than without."""
    now = max(day.end_time for day in built.get_nodes_by_level(TocLevel.DAY))
    plain_store = without_maps(built)
    mapped = sum(Navigator(built, now=now).navigate(q).nodes_visited for q in QUERIES)
    plain = sum(Navigator(plain_store, now=now).navigate(q).nodes_visited for q in QUERIES)
    assert mapped < plain
