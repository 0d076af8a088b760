"""The turns around an event within its own conversation.

Event ids sort by time across every session, so the events just before an event in id order
may be another project's, hours away. Context for a grip or an event is read from its own
conversation (:func:`tocsearch.models.conversation_key`) only, paging through the events
around it and skipping the others.
"""

from __future__ import annotations

from tocsearch.models import Event, conversation_key
from tocsearch.storage.protocol import Storage

__all__ = ["MAX_SCANNED", "conversation_events", "conversation_neighbours"]

MAX_SCANNED = 20_000
"""At most this many events are read looking for one side's context: a conversation quiet for
longer than that gets less context rather than a scan of the whole history."""


def conversation_neighbours(
    storage: Storage, anchor: Event, count: int, *, before: bool
) -> list[Event]:
    """Up to ``count`` events of ``anchor``'s conversation just before (or after) it, in id
    order.

    Runtime complexity: O(events read), at most ``count`` plus the other conversations' events
    in between, and never more than :data:`MAX_SCANNED`.
    """
    if count <= 0:
        return []
    key = conversation_key(anchor)
    found: list[Event] = []
    cursor = anchor.event_id
    scanned = 0
    page = min(max(64, 4 * count), MAX_SCANNED)
    while len(found) < count and scanned < MAX_SCANNED:
        if before:
            batch = storage.get_events_before(cursor, page)
            ordered = reversed(batch)
        else:
            batch = storage.get_events_after(cursor, page)
            ordered = iter(batch)
        if not batch:
            break
        scanned += len(batch)
        for event in ordered:
            if conversation_key(event) == key:
                found.append(event)
                if len(found) == count:
                    break
        cursor = batch[0].event_id if before else batch[-1].event_id
    if before:
        found.reverse()
    return found


def conversation_events(storage: Storage, first_id: str, last_id: str) -> list[Event]:
    """The events from ``first_id`` to ``last_id`` (inclusive) of the first one's conversation,
    in id order: a grip's events, without another session's turns that fell between them."""
    events = storage.get_event_range(first_id, last_id)
    if not events:
        return events
    key = conversation_key(events[0])
    return [event for event in events if conversation_key(event) == key]
