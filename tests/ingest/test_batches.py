"""day_batches: every event once, in time order, in batches of whole days of at least the
asked size (but the last), so an ingest builds each day once."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import events

from tocsearch.errors import InvalidArgument
from tocsearch.ingest._batches import day_batches
from tocsearch.models import Event


@given(st.lists(events(), max_size=60, unique_by=lambda event: event.event_id), st.integers(1, 12))
def test_batches_are_whole_days_in_time_order(history: list[Event], size: int) -> None:
    batches = list(day_batches(history, size))
    flat = [event for batch in batches for event in batch]
    assert flat == sorted(history, key=lambda event: (event.timestamp, event.event_id))
    assert all(batch for batch in batches)
    days = [{event.timestamp.date() for event in batch} for batch in batches]
    for earlier, later in itertools.pairwise(days):
        assert max(earlier) < min(later)  # a day never spans two batches
    for batch in batches[:-1]:
        assert len(batch) >= size
        last_day = batch[-1].timestamp.date()
        assert len(batch) - sum(event.timestamp.date() == last_day for event in batch) < size


def test_a_size_below_one_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="size must be at least 1"):
        list(day_batches([], 0))
