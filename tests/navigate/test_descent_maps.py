"""The descent opens a day through its segment map: it reads only the segments the map keeps,
and keeps exactly the children that reading every segment and pruning them would keep, never
dropping one that holds a term."""

from __future__ import annotations

from datetime import timedelta

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.synthetic import history
from tests._support.walks import WALK_LIMITS, term_sets

from tocsearch.ingest import TocBuilder
from tocsearch.ingest._digests import MAP_SEGMENTS
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._book import EvidenceBook
from tocsearch.navigate._descent import _Descent
from tocsearch.navigate._digests import DigestCache
from tocsearch.navigate._folded import searchable_text
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._trail import Trail
from tocsearch.navigate._walk import Walk, inside
from tocsearch.navigate.timehints import TimeRange
from tocsearch.storage import InMemoryStorage


class CountingStorage(InMemoryStorage):
    """An in-memory store that counts the segments it rebuilds."""

    def __init__(self) -> None:
        super().__init__()
        self.segments_read = 0

    def _read_node(self, node_id: str) -> TocNode | None:
        node = super()._read_node(node_id)
        if node is not None and node.level is TocLevel.SEGMENT:
            self.segments_read += 1
        return node


@pytest.fixture(scope="module")
def built() -> CountingStorage:
    """Busy days (16 sessions a day): they carry segment maps."""
    storage = CountingStorage()
    TocBuilder(storage).ingest(history(3000, sessions_per_day=16))
    return storage


def mapped_days(storage: InMemoryStorage) -> list[TocNode]:
    days = [
        day
        for day in storage.get_nodes_by_level(TocLevel.DAY)
        if len(day.child_node_ids) >= MAP_SEGMENTS
    ]
    assert len(days) >= 3
    return days


def walk_for(storage: InMemoryStorage, terms: tuple[str, ...]) -> Walk:
    lens = Lens(terms, digests=DigestCache())
    return Walk(
        storage=storage,
        lens=lens,
        trail=Trail(WALK_LIMITS, keeps_grep=False),
        book=EvidenceBook(lens, WALK_LIMITS.max_evidence),
    )


def read_and_pruned(
    storage: InMemoryStorage,
    day: TocNode,
    terms: tuple[str, ...],
    seen: set[str],
    ranges: tuple[TimeRange, ...],
) -> tuple[list[str], int]:
    """What opening ``day`` keeps when every segment is read first and then pruned by the
    map, and how many children were considered."""
    lens = Lens(terms, digests=DigestCache())
    fresh = {
        child.node_id: child
        for child in storage.get_child_nodes(day.node_id)
        if child.node_id not in seen and inside(child, ranges)
    }
    kept = lens.prune_children(day, list(fresh.values()))
    return sorted(child.node_id for child in kept), len(fresh)


@settings(max_examples=scaled(60), deadline=None)
@given(
    index=st.integers(0, 10_000),
    terms=term_sets,
    seen_every=st.integers(0, 5),
    cut=st.sampled_from(["none", "day", "inside", "cutting"]),
)
def test_a_day_opened_through_its_map_keeps_what_reading_it_would(
    built: CountingStorage, index: int, terms: tuple[str, ...], seen_every: int, cut: str
) -> None:
    """Whatever the terms, the children already seen and the ranges (none, the day's own, one
    inside it, one cutting it), opening a day keeps the children that reading every segment
    and pruning would keep, counts as many considered, and keeps every child holding a term."""
    days = mapped_days(built)
    day = days[index % len(days)]
    ids = day.child_node_ids
    seen = {ids[at] for at in range(0, len(ids), seen_every)} if seen_every else set()
    ranges = {
        "none": (),
        "day": (TimeRange(day.start_time, day.end_time + timedelta(microseconds=1)),),
        "inside": (TimeRange(day.start_time, day.start_time + timedelta(hours=6)),),
        "cutting": (TimeRange(day.start_time + timedelta(hours=12), day.end_time),),
    }[cut]
    expected, considered = read_and_pruned(built, day, terms, seen, ranges)
    walk = walk_for(built, terms)
    walk.trail.seen.update(seen)
    descent = _Descent(walk, ranges)
    kept = descent.children([day])
    assert sorted(child.node_id for child in kept) == expected
    assert kept == sorted(kept, key=lambda node: (node.start_time, node.node_id))
    assert descent.pruned == (considered - len(expected), considered)
    for child in built.get_child_nodes(day.node_id):
        held = walk.lens.matcher.present(searchable_text(child))
        if held and child.node_id not in seen and inside(child, ranges):
            assert child.node_id in expected


def test_opening_a_mapped_day_reads_only_the_segments_its_map_keeps(
    built: CountingStorage,
) -> None:
    """A term said in a few segments of a busy day costs reading those segments, not the day."""
    day = mapped_days(built)[0]
    lens = Lens(("alembic",), digests=DigestCache())
    mapped = lens.map_kept(day, 1)
    assert mapped is not None
    walk = walk_for(built, ("alembic",))
    before = built.segments_read
    kept = _Descent(walk, ()).children([day])
    assert built.segments_read - before == bin(mapped).count("1")
    assert len(kept) == bin(mapped).count("1") < len(day.child_node_ids)


def test_a_day_whose_map_does_not_cover_its_children_is_read_whole(
    built: CountingStorage,
) -> None:
    """A day whose children no longer match its map (a hand-edited store) has every segment
    read and pruned by its own digest, keeping the same children as before the edit."""
    day = mapped_days(built)[1]
    reordered = attrs.evolve(day, child_node_ids=day.child_node_ids[::-1])
    walk = walk_for(built, ("alembic",))
    before = built.segments_read
    kept = _Descent(walk, ()).children([reordered])
    assert built.segments_read - before == len(day.child_node_ids)
    own = Lens(("alembic",), digests=DigestCache()).prune(built.get_child_nodes(day.node_id))
    assert sorted(child.node_id for child in kept) == sorted(child.node_id for child in own)
