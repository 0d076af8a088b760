"""Term digests of built nodes: a day's holds every word of its events, parents hold the union
of their children's, and late events keep both true."""

from __future__ import annotations

from datetime import timedelta

import attrs
import pytest
from tests._support.synthetic import history

from tocsearch import ids
from tocsearch.digest import TermDigest
from tocsearch.ingest import TocBuilder, _days, _digests
from tocsearch.ingest._digests import SegmentPositions, segment_positions, union_digest
from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocNode
from tocsearch.storage import InMemoryStorage


def assert_parents_are_unions(storage: InMemoryStorage) -> None:
    """Every day has a digest, and every week, month and year holds exactly the union of its
    children's digests."""
    for day in storage.get_nodes_by_level(TocLevel.DAY):
        assert day.digest
    for level in (TocLevel.WEEK, TocLevel.MONTH, TocLevel.YEAR):
        for node in storage.get_nodes_by_level(level):
            children = [storage.get_node(child) for child in node.child_node_ids]
            assert node.digest == union_digest(children), node.node_id


def tool_event(after: Event, text: str) -> Event:
    when = after.timestamp + timedelta(seconds=2)
    return Event(
        event_id=ids.event_id(when, "tool-late"),
        session_id=after.session_id,
        timestamp=when,
        role="tool",
        event_type="tool_result",
        text=text,
    )


def test_parents_hold_the_union_of_their_childrens_digests() -> None:
    """After an ingest, days carry digests and every parent's is its children's union."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(history(400))
    assert_parents_are_unions(storage)


def test_segments_carry_small_digests_of_their_events() -> None:
    """Each segment's digest may hold every word of its events and texts, is far smaller
    than a day's, and rules out a word none of them holds."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(history(400))
    for segment in storage.get_nodes_by_level(TocLevel.SEGMENT):
        digest = TermDigest.from_text(segment.digest)
        assert (
            digest.bits
            < TermDigest.from_text(
                storage.get_node(ids.day_id(segment.start_time.date())).digest
            ).bits
        )
        events = storage.get_event_range(min(segment.event_ids), max(segment.event_ids))
        words = {word for event in events for word in event.text.split() if word.isalpha()}
        for word in words:
            assert digest.may_contain(word), (segment.node_id, word)
        assert not digest.may_contain("zanzibarlock")


def test_a_late_event_reaches_its_segments_digest() -> None:
    """A word said only in a late tool result is in its segment's digest after the ingest."""
    events = history(400)
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    builder.ingest(events)
    late = tool_event(events[200], "stack trace mentions zanzibarlock in the worker")
    builder.ingest([late])
    holders = [
        segment.node_id
        for segment in storage.get_nodes_by_level(TocLevel.SEGMENT)
        if late.event_id in segment.event_ids
    ]
    assert holders
    for node_id in holders:
        assert TermDigest.from_text(storage.get_node(node_id).digest).may_contain("zanzibarlock")


def test_a_late_tool_output_word_reaches_every_ancestor() -> None:
    """A word said only in a late tool result is in the digests of its day, week, month and
    year, and the unions still hold after the late ingest."""
    events = history(400)
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    builder.ingest(events)
    late = tool_event(events[200], "stack trace mentions zanzibarlock in the worker")
    builder.ingest([late])
    assert_parents_are_unions(storage)
    node_id: str | None = ids.day_id(late.timestamp.date())
    while node_id is not None:
        digest = TermDigest.from_text(storage.get_node(node_id).digest)
        assert digest.may_contain("zanzibarlock"), node_id
        node_id = ids.parent_id(node_id)
    other_day = ids.day_id(events[-1].timestamp.date())
    assert other_day != ids.day_id(late.timestamp.date())
    assert not TermDigest.from_text(storage.get_node(other_day).digest).may_contain("zanzibar")


def test_digests_do_not_depend_on_how_events_were_batched() -> None:
    """One batch, or many small ones in reverse order, give the same digests on every node."""
    events = history(300)
    whole = InMemoryStorage()
    TocBuilder(whole).ingest(events)
    pieces = InMemoryStorage()
    builder = TocBuilder(pieces)
    for start in reversed(range(0, len(events), 37)):
        builder.ingest(events[start : start + 37])
    for node_id in whole.iter_node_ids():
        assert whole.get_node(node_id).digest == pieces.get_node(node_id).digest, node_id


def test_a_parent_of_a_child_without_a_digest_has_none() -> None:
    """A parent whose child's digest is unknown (or unreadable) is unknown too, so it never
    hides that child from a search."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(history(200))
    days = storage.get_nodes_by_level(TocLevel.DAY)
    assert union_digest(days) != ""
    blank = [attrs.evolve(days[0], digest=""), *days[1:]]
    assert union_digest(blank) == ""
    broken = [attrs.evolve(days[0], digest="not a digest"), *days[1:]]
    assert union_digest(broken) == ""
    assert union_digest([]) == ""


def test_a_day_rebuilt_for_new_events_rereads_only_its_new_segments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ingesting the second half of a day reads the text of the segments that are new or
    changed, not again that of the segments the first half built."""
    made = history(400)
    events = [event for event in made if event.timestamp.date() == made[0].timestamp.date()]
    half = len(events) // 2
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    builder.ingest(events[:half])
    first = {node.node_id: node for node in storage.get_nodes_by_level(TocLevel.SEGMENT)}
    read: list[tuple[str, ...]] = []
    real = _digests.segment_positions

    def counting(found: list[Event], segment: TocNode) -> set[int]:
        read.append(tuple(event.event_id for event in found))
        return real(found, segment)

    # The builder reads new segments itself and remembered ones through SegmentPositions.
    monkeypatch.setattr(_digests, "segment_positions", counting)
    monkeypatch.setattr(_days, "segment_positions", counting)
    builder.ingest(events[half:])
    kept = [
        node
        for node in storage.get_nodes_by_level(TocLevel.SEGMENT)
        if first.get(node.node_id) == node
    ]
    assert len(first) >= 2
    assert kept
    assert len(read) == len(storage.get_nodes_by_level(TocLevel.SEGMENT)) - len(kept)
    assert not {node.event_ids for node in kept} & set(read)


@pytest.mark.parametrize("capacity", [0, 1, 1024])
def test_remembered_positions_are_the_positions_at_any_capacity(capacity: int) -> None:
    """However many segments are remembered, each answer is the segment's positions."""
    storage = InMemoryStorage()
    events = history(300)
    TocBuilder(storage).ingest(events)
    by_id = {event.event_id: event for event in events}
    remembered = SegmentPositions(capacity)
    for _ in range(2):
        for segment in storage.get_nodes_by_level(TocLevel.SEGMENT):
            owned = [by_id[event_id] for event_id in segment.event_ids]
            expected = segment_positions(owned, segment)
            assert set(remembered.of(owned, segment)) == expected
            assert len(remembered.of(owned, segment)) == len(expected)


def test_a_build_joins_the_days_it_made_without_reading_them_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Weeks, months and years of new days are the unions of the digests just made: no
    child digest is read back from its text (a day's segment map reads its segments' small
    digests, not through this), and every parent still holds exactly its children's union."""
    read: list[int] = []
    real = TermDigest.from_text

    def counting(text: str) -> TermDigest:
        read.append(len(text))
        return real(text)

    monkeypatch.setattr(TermDigest, "from_text", staticmethod(counting))
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(history(1500))
    assert not read
    assert len(storage.get_nodes_by_level(TocLevel.WEEK)) >= 2
    monkeypatch.undo()
    assert_parents_are_unions(storage)


def test_a_week_with_older_days_reads_them_and_stays_their_union() -> None:
    """A day added to a week whose other days were built before: the week's digest is the
    union of all its days, not of the new day alone."""
    made = history(1500)
    days = sorted({event.timestamp.date() for event in made})
    storage = InMemoryStorage()
    builder = TocBuilder(storage)
    builder.ingest([event for event in made if event.timestamp.date() != days[2]])
    builder.ingest([event for event in made if event.timestamp.date() == days[2]])
    assert_parents_are_unions(storage)
    fresh = InMemoryStorage()
    TocBuilder(fresh).ingest(made)
    for level in (TocLevel.WEEK, TocLevel.MONTH, TocLevel.YEAR):
        assert [node.digest for node in storage.get_nodes_by_level(level)] == [
            node.digest for node in fresh.get_nodes_by_level(level)
        ]
