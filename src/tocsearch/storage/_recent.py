"""The events a store's writer wrote last, kept decoded.

The builder stores a batch of events and at once reads back every event of the days they fall
on, to segment them; a writer that keeps its newest events decoded answers those reads without
touching the disk. Only a writer keeps them (a reader cannot know when the writer replaces an
event), and only a bounded number.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from tocsearch.models import Event

__all__ = ["RecentEvents"]

_KEPT = 20_000


class RecentEvents:
    """Up to ``limit`` events by id, the most recently written kept.

    >>> from datetime import datetime, timezone
    >>> from tocsearch import ids
    >>> when = datetime(2026, 1, 30, tzinfo=timezone.utc)
    >>> made = [Event(event_id=ids.event_id(when, f"e{n}"), session_id="s", timestamp=when,
    ...               role="user", event_type="user_message", text=str(n)) for n in range(3)]
    >>> recent = RecentEvents(limit=2)
    >>> recent.remember(made)
    >>> [recent.get(event.event_id) is event for event in made]
    [False, True, True]
    """

    def __init__(self, *, limit: int = _KEPT) -> None:
        self._limit = limit
        self._events: OrderedDict[str, Event] = OrderedDict()

    def get(self, event_id: str) -> Event | None:
        """The kept event with this id, or None."""
        return self._events.get(event_id)

    def forget(self, event_ids: Iterable[str]) -> None:
        """Drop these ids (before a write that may fail, so the disk decides what they are)."""
        for event_id in event_ids:
            self._events.pop(event_id, None)

    def remember(self, events: Iterable[Event]) -> None:
        """Keep these events, dropping the oldest kept beyond the limit."""
        kept = self._events
        for event in events:
            kept.pop(event.event_id, None)
            kept[event.event_id] = event
        while len(kept) > self._limit:
            kept.popitem(last=False)

    def clear(self) -> None:
        """Forget every event."""
        self._events.clear()
