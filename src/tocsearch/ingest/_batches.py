"""Cutting a long stream of events into batches for :meth:`TocBuilder.ingest
<tocsearch.ingest.TocBuilder.ingest>` that end where a day ends.

The builder rebuilds every day a batch touches from all of that day's stored events. Batches
cut at a fixed count would rebuild a long day once per batch that reaches into it: a single
conversation of 50,000 messages over two days, fed 5,000 at a time, rebuilt its days ten times,
each time from more events. Cut at day boundaries, every day is built once per ingest.

>>> from datetime import datetime, timedelta, timezone
>>> from tocsearch.ids import event_id
>>> from tocsearch.models import Event, EventRole, EventType
>>> def said(at: datetime) -> Event:
...     return Event(event_id(at, "s1"), "s1", at, EventRole.USER, EventType.USER_MESSAGE, "hi")
>>> start = datetime(2026, 3, 1, 22, tzinfo=timezone.utc)
>>> events = [said(start + timedelta(hours=hours)) for hours in range(6)]
>>> [len(batch) for batch in day_batches(events, 1)]
[2, 4]
>>> [len(batch) for batch in day_batches(events, 5)]
[6]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tocsearch.errors import InvalidArgument
from tocsearch.models import Event

__all__ = ["day_batches"]


def day_batches(events: Iterable[Event], size: int) -> Iterator[list[Event]]:
    """``events`` in time order, in batches of whole UTC days: each batch holds at least
    ``size`` events (the last may hold fewer), fewer than ``size`` plus its last day's.

    Raises:
        InvalidArgument: ``size`` is less than 1.
    """
    if size < 1:
        raise InvalidArgument(f"size must be at least 1, got {size}")
    batch: list[Event] = []
    day = None
    for event in sorted(events, key=lambda event: (event.timestamp, event.event_id)):
        today = event.timestamp.date()
        if today != day and len(batch) >= size:
            yield batch
            batch = []
        day = today
        batch.append(event)
    if batch:
        yield batch
