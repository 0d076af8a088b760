"""Incoming: what planning reads of an ingest's new events before they are stored is what the
store answers once they are."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from hypothesis import given
from hypothesis import strategies as st
from tests._support.ingest_strategies import SMALL_CONFIG, event_streams

from tocsearch.ids import event_id_floor
from tocsearch.ingest import TocBuilder
from tocsearch.ingest._incoming import DAY, Incoming, day_start
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage import InMemoryStorage


def _next_stored_day(storage: InMemoryStorage, day: date) -> date | None:
    after = storage.get_events_after(event_id_floor(day_start(day) + DAY), 1)
    return after[0].timestamp.date() if after else None


@given(st.data())
def test_answers_before_storing_are_the_stores_after(data: st.DataObject) -> None:
    """For a store holding some of a stream and the rest incoming: the event before any event,
    the next day with events after any day, and the days all of whose events are incoming
    (with those events) are, before storing, what the store answers after."""
    events = data.draw(event_streams(max_size=30))
    chosen = data.draw(st.lists(st.booleans(), min_size=len(events), max_size=len(events)))
    stored = [event for event, keep in zip(events, chosen, strict=True) if keep]
    new = sorted(
        (event for event, keep in zip(events, chosen, strict=True) if not keep),
        key=lambda event: event.event_id,
    )
    storage = InMemoryStorage()
    storage.put_events(stored)
    days = sorted({event.timestamp.date() for event in events})
    probe_days = [days[0] - DAY, *days]
    held = {event.timestamp.date() for event in stored}

    incoming = Incoming(storage, new)
    assert incoming.stored == (not new)
    before = {event.event_id: incoming.event_before(event.event_id) for event in events}
    following = {day: incoming.next_day(day, _next_stored_day(storage, day)) for day in probe_days}
    whole = {day: incoming.new_day(day) for day in days}
    incoming.store()

    assert incoming.stored
    assert storage.count_events() == len(events)
    for event in events:
        found = storage.get_events_before(event.event_id, 1)
        assert before[event.event_id] == (found[0] if found else None)
        # Stored already, the answers stay the store's.
        assert incoming.event_before(event.event_id) == before[event.event_id]
    for day in probe_days:
        assert following[day] == _next_stored_day(storage, day)
    for day in days:
        start = day_start(day)
        expected = None if day in held else tuple(storage.get_events(start, start + DAY))
        assert whole[day] == expected


class _WriteLog(InMemoryStorage):
    """An in-memory store that records the kind of each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []
        self.grips_written = 0
        self.nodes_written: list[TocNode] = []

    def put_events(self, events: object) -> None:
        self.writes.append("events")
        super().put_events(events)  # type: ignore[arg-type]

    def put_grips(self, grips: Iterable[Grip]) -> None:
        written = list(grips)
        self.writes.append("grips")
        self.grips_written += len(written)
        super().put_grips(written)

    def put_nodes(self, nodes: Iterable[TocNode]) -> None:
        written = list(nodes)
        self.writes.append("nodes")
        self.nodes_written.extend(written)
        super().put_nodes(written)


@given(event_streams(min_size=2, max_size=30), st.integers(0, 29))
def test_events_are_stored_before_anything_else_is_written(events: list[Event], cut: int) -> None:
    """Whatever the store held, an ingest writes its new events once and before any grip or
    node, so that a crash at any point leaves them durable, and its grips before its nodes."""
    storage = _WriteLog()
    builder = TocBuilder(storage, config=SMALL_CONFIG, helpers=0)
    builder.ingest(events[: cut % len(events)])  # at least one event is left new
    storage.writes.clear()
    storage.grips_written = 0
    storage.nodes_written.clear()
    builder.ingest(events)
    assert storage.writes.count("events") == 1
    assert storage.writes[0] == "events"
    # A build of fewer events than a window and of fewer grips than are written at once
    # stores its grips in one write, before any node, and none when it has none (its bullets
    # cite no new event: every word too common to say); either way every grip a written node
    # cites is stored.
    assert storage.writes.count("grips") <= 1
    if storage.grips_written:
        assert storage.writes.index("grips") < storage.writes.index("nodes")
    for node in storage.nodes_written:
        for bullet in node.bullets:
            assert all(storage.find_grip(grip_id) for grip_id in bullet.grip_ids)
