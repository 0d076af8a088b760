"""Expanding a grip or an event stays inside its conversation."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from tocsearch import InMemoryStorage, MemoryService, TocBuilder, ids
from tocsearch._neighbours import conversation_neighbours
from tocsearch.models import Event, EventRole, EventType, conversation_key
from tocsearch.service import ExpandEventRequest, ExpandGripRequest

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=timezone.utc)
CONVERSATIONS = [("web", "s1"), ("web", "s2"), ("api", "s1")]


def _events(owners: list[int]) -> list[Event]:
    events = []
    for i, owner in enumerate(owners):
        project, session = CONVERSATIONS[owner]
        when = T0 + timedelta(seconds=30 * i)
        events.append(
            Event(
                event_id=ids.event_id(when, f"n{i}"),
                session_id=session,
                timestamp=when,
                role=EventRole.USER,
                event_type=EventType.USER_MESSAGE,
                text=f"turn {i} of {project} {session} about the cache",
                metadata={"project": project},
            )
        )
    return events


@given(
    st.lists(st.integers(0, len(CONVERSATIONS) - 1), min_size=1, max_size=60),
    st.data(),
    st.integers(0, 8),
)
def test_neighbours_are_the_nearest_turns_of_the_same_conversation(
    owners: list[int], data: st.DataObject, count: int
) -> None:
    """Before and after an event come exactly the ``count`` nearest events of its own
    conversation, in id order, whatever the other conversations interleave."""
    events = _events(owners)
    storage = InMemoryStorage()
    storage.put_events(events)
    anchor = data.draw(st.sampled_from(events))
    own = [e for e in events if conversation_key(e) == conversation_key(anchor)]
    at = own.index(anchor)
    assert (
        conversation_neighbours(storage, anchor, count, before=True) == own[max(0, at - count) : at]
    )
    assert (
        conversation_neighbours(storage, anchor, count, before=False)
        == own[at + 1 : at + 1 + count]
    )


def test_expand_of_a_grip_and_of_an_event_show_one_conversation() -> None:
    """Two projects talking at once: a grip of one expands to that project's turns only."""
    events = _events([0, 2] * 10)
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(events)
    service = MemoryService(storage)
    for grip_id in storage.iter_grip_ids():
        response = service.expand_grip(ExpandGripRequest(grip_id, 5, 5))
        shown = [*response.events_before, *response.excerpt_events, *response.events_after]
        assert len({conversation_key(e) for e in shown}) == 1
        assert shown == sorted(shown, key=lambda e: e.event_id)
    middle = events[9]
    response_event = service.expand_event(ExpandEventRequest(middle.event_id, 3, 3))
    assert {conversation_key(e) for e in response_event.events_before} == {conversation_key(middle)}
    assert len(response_event.events_before) == 3
    assert len(response_event.events_after) == 3


def test_context_is_found_across_many_pages_of_other_conversations() -> None:
    """An event whose conversation speaks once in 100 turns still gets its neighbours, read
    across several pages of the others."""
    owners = [0 if i % 100 == 0 else 1 + i % 2 for i in range(501)]
    events = _events(owners)
    storage = InMemoryStorage()
    storage.put_events(events)
    anchor = events[300]
    before = conversation_neighbours(storage, anchor, 2, before=True)
    after = conversation_neighbours(storage, anchor, 2, before=False)
    assert before == [events[100], events[200]]
    assert after == [events[400], events[500]]
