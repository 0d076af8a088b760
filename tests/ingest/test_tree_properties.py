"""Property tests: whatever the stream, order or batching, the tree is strict and the same."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st
from tests._support.ingest_strategies import SMALL_CONFIG, batchings, event_streams

from tocsearch.digest import TermDigest
from tocsearch.ids import parse_node_id
from tocsearch.ingest import TocBuilder, check_tree
from tocsearch.ingest._digests import day_digest, segment_positions, union_digest
from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.storage import InMemoryStorage


def snapshot(storage: InMemoryStorage) -> dict[str, Any]:
    """Everything a reader can see, with node versions (a history counter) left out."""
    nodes = {
        node_id: attrs.evolve(storage.get_node(node_id), version=1)
        for node_id in storage.iter_node_ids()
    }
    grips = {grip_id: storage.get_grip(grip_id) for grip_id in storage.iter_grip_ids()}
    return {"nodes": nodes, "grips": grips, "events": storage.get_events()}


def build(batches: list[list[Event]]) -> InMemoryStorage:
    storage = InMemoryStorage()
    builder = TocBuilder(storage, config=SMALL_CONFIG)
    for batch in batches:
        builder.ingest(batch)
        check_tree(storage)
    return storage


@given(event_streams(max_size=40))
def test_any_stream_builds_a_strict_tree(events: list[Event]) -> None:
    """check_tree passes after ingesting any stream: strict levels, one parent each, covering
    spans, sorted children, resolving grips, every event in exactly one segment."""
    storage = build([events])
    assert storage.count_events() == len(events)
    segments = [node for node_id in storage.iter_node_ids() if (node := storage.get_node(node_id))]
    owned = sorted(e for node in segments for e in node.event_ids)
    assert owned == sorted(event.event_id for event in events)


@given(st.data())
def test_order_and_batching_do_not_change_the_tree(data: st.DataObject) -> None:
    """Ingesting the same events in any order and batching (with repeats) gives the same nodes,
    grips and events as one in-order batch."""
    events = data.draw(event_streams(max_size=30))
    batches = data.draw(batchings(events))
    assert snapshot(build(batches)) == snapshot(build([events]))


@given(event_streams(max_size=30))
def test_ingesting_twice_changes_nothing(events: list[Event]) -> None:
    """A second ingest of the same events stores nothing and rewrites no node."""
    storage = InMemoryStorage()
    builder = TocBuilder(storage, config=SMALL_CONFIG)
    builder.ingest(events)
    before = {node_id: storage.get_node(node_id) for node_id in storage.iter_node_ids()}
    report = builder.ingest(events)
    assert report.events_added == 0
    assert report.duplicates_skipped == len(events)
    assert report.nodes_updated == 0
    assert {node_id: storage.get_node(node_id) for node_id in storage.iter_node_ids()} == before


@given(event_streams(min_size=2, max_size=30), st.data())
def test_late_events_land_where_a_fresh_build_puts_them(
    events: list[Event], data: st.DataObject
) -> None:
    """Holding some events back and ingesting them later gives the tree of a fresh build."""
    late = data.draw(st.lists(st.sampled_from(events), min_size=1, max_size=5, unique=True))
    early = [event for event in events if event not in late]
    assert snapshot(build([early, late])) == snapshot(build([events]))


@given(st.data())
def test_a_days_digest_is_the_digest_of_its_events_and_segments(data: st.DataObject) -> None:
    """However the events were batched, each day's digest is exactly ``day_digest`` of the
    day's stored events and segments (the builder joins its segments' bit positions instead of
    reading the day's text again)."""
    events = data.draw(event_streams(max_size=30))
    storage = build(data.draw(batchings(events)))
    days = storage.get_nodes_by_level(TocLevel.DAY)
    assert days
    for day in days:
        segments = storage.get_child_nodes(day.node_id)
        midnight = parse_node_id(day.node_id).start
        day_events = storage.get_events(midnight, midnight + timedelta(days=1))
        assert day.digest == day_digest(day_events, segments)


@given(st.data())
def test_a_parents_digest_is_the_union_of_its_childrens(data: st.DataObject) -> None:
    """However the events were batched, each week, month and year digest is exactly the
    union of its stored children's digests (the builder joins the digests of the days it has
    just made instead of reading them back from their texts)."""
    events = data.draw(event_streams(max_size=30))
    storage = build(data.draw(batchings(events)))
    for level in (TocLevel.WEEK, TocLevel.MONTH, TocLevel.YEAR):
        for node in storage.get_nodes_by_level(level):
            children = [storage.get_node(child) for child in node.child_node_ids]
            assert node.digest == union_digest(children), node.node_id


@given(st.data())
def test_a_segments_digest_is_sized_to_its_events_and_texts(data: st.DataObject) -> None:
    """However the events were batched, each segment's digest is the sized digest of the
    bit positions of its own events and texts, whether it has its day to itself or not."""
    events = data.draw(event_streams(max_size=30))
    storage = build(data.draw(batchings(events)))
    by_id = {event.event_id: event for event in events}
    for segment in storage.get_nodes_by_level(TocLevel.SEGMENT):
        owned = [by_id[event_id] for event_id in segment.event_ids]
        expected = TermDigest.from_positions(segment_positions(owned, segment), sized=True)
        assert segment.digest == expected.to_text(), segment.node_id
