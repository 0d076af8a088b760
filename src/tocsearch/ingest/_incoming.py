"""The new events of one ingest, as planning reads them before they are stored.

The builder stores an ingest's new events once the first window of days is planned and its
helpers are forked, so that storing them runs beside the helpers' work instead of before
it. Until then planning reads what the store will hold through :class:`Incoming`: the event
just before a given one (the store's or the batch's, whichever is later), the next later day
with events, and the events of a day the store held none of (once stored, those are exactly
the day's, so such a day is planned without reading it back, before or after).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from datetime import date, datetime, timedelta, timezone

from tocsearch.ids import event_id_floor
from tocsearch.models import Event
from tocsearch.storage.protocol import Storage

__all__ = ["DAY", "Incoming", "day_start"]

DAY = timedelta(days=1)


def day_start(day: date) -> datetime:
    """The UTC midnight that starts ``day``."""
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


class Incoming:
    """``events`` (new to ``storage``, distinct, in id order) until :meth:`store` writes them.

    Runtime: the days the store held none of are found with one read of one stored event a
    day of ``events``; the other answers are a binary search and a read of one stored event.
    """

    def __init__(self, storage: Storage, events: Sequence[Event] = ()) -> None:
        self._storage = storage
        self._pending = list(events)
        self._events = self._pending
        self._ids = [event.event_id for event in self._events]
        by_day: dict[date, list[Event]] = {}
        for event in self._events:
            day = event.timestamp.date()
            same = by_day.get(day)
            if same is None:
                same = by_day[day] = []
            same.append(event)
        self._days = sorted(by_day)
        self._new: dict[date, tuple[Event, ...]] = {}
        for day, same in by_day.items():
            start = day_start(day)
            stored = storage.get_events_after(event_id_floor(start), 1)
            if not stored or stored[0].timestamp >= start + DAY:
                self._new[day] = tuple(same)

    @property
    def stored(self) -> bool:
        """Whether the events are in the store (or there were none)."""
        return not self._pending

    def store(self) -> None:
        """Write the events to the store, once."""
        if self._pending:
            self._storage.put_events(self._pending)
            self._pending = []

    def new_day(self, day: date) -> tuple[Event, ...] | None:
        """All the events the store holds for ``day`` once these are stored, when every one
        of them is new; None for a day the store held events of before."""
        return self._new.get(day)

    def event_before(self, event_id: str) -> Event | None:
        """The event just before ``event_id`` in the store as it is once these are stored."""
        stored = self._storage.get_events_before(event_id, 1)
        at = bisect_left(self._ids, event_id)
        mine = self._events[at - 1] if at else None
        if not stored:
            return mine
        if mine is None or stored[0].event_id > mine.event_id:
            return stored[0]
        return mine

    def next_day(self, day: date, stored: date | None) -> date | None:
        """The first later day than ``day`` with events, given ``stored``, the first later
        day with events the store read (before or after these are stored)."""
        at = bisect_right(self._days, day)
        mine = self._days[at] if at < len(self._days) else None
        if stored is None or (mine is not None and mine < stored):
            return mine
        return stored
