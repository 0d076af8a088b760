"""Every backend answers a range of event ids alike for any string bound, unpaired surrogates
included: the bounds are compared with the stored ids as Python compares strings, so a bound
SQLite cannot be given as it is finds what the in-memory stores find, and none refuses it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from tests._support.storage_helpers import BACKENDS, MEMORY_BACKENDS, make_event, open_store
from tests.strategies import any_text, surrogates

from tocsearch.models import Event
from tocsearch.storage.protocol import Storage

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)
# Ids that share heads at every length: the same millisecond, neighbouring ones, other suffixes.
_EVENTS = sorted(
    (
        make_event(_T0 + timedelta(milliseconds=ms), suffix)
        for ms in (0, 1, 10, 1000)
        for suffix in ("a", "a.b", "Z", "z-9", "_")
    ),
    key=lambda event: event.event_id,
)
_IDS = [event.event_id for event in _EVENTS]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Storage]]:
    """One store of every backend holding the same events."""
    root = tmp_path_factory.mktemp("bounds")
    opened = {
        backend: open_store(backend, None if backend in MEMORY_BACKENDS else root / backend)
        for backend in BACKENDS
    }
    for store in opened.values():
        store.put_events(_EVENTS)
    yield opened
    for store in opened.values():
        store.close()


@st.composite
def bounds(draw: st.DrawFn) -> str:
    """A string near the stored ids: one of them, a head of one followed by any text (a lone
    surrogate often), or any text at all."""
    head = draw(st.sampled_from(_IDS))[: draw(st.integers(0, 30))]
    tail = draw(st.one_of(any_text, surrogates, st.sampled_from(["", "\ud800", "\U0001f600"])))
    return draw(st.one_of(st.sampled_from(_IDS), st.just(head + tail), any_text))


def _ids(events: list[Event]) -> list[str]:
    return [event.event_id for event in events]


@given(first=bounds(), last=bounds())
@example(first="evt:\ud800", last="evt:\udfff")
@example(first="evt:1769763600000:a\udc80", last="evt:1769763601000:\ud800")
@example(first="", last="\udfff")
def test_a_range_of_ids_is_answered_alike_by_every_backend(
    stores: dict[str, Storage], first: str, last: str
) -> None:
    """get_event_range between any two strings returns the stored ids that sort between them
    as Python strings, in order, on every backend."""
    expected = [event_id for event_id in _IDS if first <= event_id <= last]
    for backend, store in stores.items():
        assert _ids(store.get_event_range(first, last)) == expected, backend


@given(bound=bounds(), limit=st.integers(0, len(_IDS) + 2))
@example(bound="evt:1769763600001:\ud800", limit=3)
def test_neighbours_of_any_bound_are_answered_alike_by_every_backend(
    stores: dict[str, Storage], bound: str, limit: int
) -> None:
    """get_events_before and get_events_after of any string return the nearest stored ids on
    that side, up to the limit, on every backend."""
    before = [event_id for event_id in _IDS if event_id < bound]
    after = [event_id for event_id in _IDS if event_id > bound]
    expected_before = before[max(0, len(before) - limit) :] if limit else []
    for backend, store in stores.items():
        assert _ids(store.get_events_before(bound, limit)) == expected_before, backend
        assert _ids(store.get_events_after(bound, limit)) == after[:limit], backend


def test_the_stores_hold_what_was_put(stores: dict[str, Storage]) -> None:
    """The stores the properties ask hold every event (an empty store would agree trivially)."""
    for store in stores.values():
        assert _ids(store.get_events()) == _IDS
        store.check()
