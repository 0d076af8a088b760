"""Every Storage method that takes an id refuses one that is not a string with one InvalidId
naming it, on every backend and through the indexing wrapper, and changes nothing: no record
can have such an id, so answering None, False or [] (or deleting nothing) would hide the
caller's mistake."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from tests._support.examples import scaled
from tests._support.storage_helpers import (
    BACKENDS,
    MEMORY_BACKENDS,
    make_event,
    make_node,
    open_store,
)
from tests.strategies import non_string_ids

from tocsearch import ids
from tocsearch.errors import InvalidArgument, InvalidId
from tocsearch.index import IndexingStorage, SearchIndex
from tocsearch.levels import TocLevel
from tocsearch.models import Grip
from tocsearch.storage import InMemoryStorage
from tocsearch.storage.protocol import Storage

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)
_EVENT = make_event(_T0, "a")
_DAY = make_node("toc:day:2026-01-30", TocLevel.DAY, _T0)
_GRIP = Grip(
    grip_id=ids.grip_id(_T0, "g"),
    excerpt="excerpt",
    event_id_start=_EVENT.event_id,
    event_id_end=_EVENT.event_id,
    timestamp=_T0,
    source="test",
)

Call = Callable[[Storage, object], object]

# (name the message uses, the call with the odd id in its place)
_ID_CALLS: dict[str, tuple[str, Call]] = {
    "get_node": ("node_id", lambda s, v: s.get_node(v)),  # type: ignore[arg-type]
    "find_node": ("node_id", lambda s, v: s.find_node(v)),  # type: ignore[arg-type]
    "delete_node": ("node_id", lambda s, v: s.delete_node(v)),  # type: ignore[arg-type]
    "get_child_nodes": ("node_id", lambda s, v: s.get_child_nodes(v)),  # type: ignore[arg-type]
    "get_grip": ("grip_id", lambda s, v: s.get_grip(v)),  # type: ignore[arg-type]
    "find_grip": ("grip_id", lambda s, v: s.find_grip(v)),  # type: ignore[arg-type]
    "find_grips": ("grip_id", lambda s, v: s.find_grips([_GRIP.grip_id, v])),  # type: ignore[list-item]
    "delete_grip": ("grip_id", lambda s, v: s.delete_grip(v)),  # type: ignore[arg-type]
    "get_event": ("event_id", lambda s, v: s.get_event(v)),  # type: ignore[arg-type]
    "find_event": ("event_id", lambda s, v: s.find_event(v)),  # type: ignore[arg-type]
    "has_event": ("event_id", lambda s, v: s.has_event(v)),  # type: ignore[arg-type]
    "get_event_range first": (
        "first_id",
        lambda s, v: s.get_event_range(v, "evt:9"),  # type: ignore[arg-type]
    ),
    "get_event_range last": (
        "last_id",
        lambda s, v: s.get_event_range("evt:0", v),  # type: ignore[arg-type]
    ),
    "get_events_before": ("event_id", lambda s, v: s.get_events_before(v, 3)),  # type: ignore[arg-type]
    "get_events_after": ("event_id", lambda s, v: s.get_events_after(v, 3)),  # type: ignore[arg-type]
    "get_session_events": ("session_id", lambda s, v: s.get_session_events(v)),  # type: ignore[arg-type]
    "delete_events": (
        "event_id",
        lambda s, v: s.delete_events([_EVENT.event_id, v]),  # type: ignore[list-item]
    ),
}

_WRAPPED = "indexing"


def _open(backend: str, path: Path) -> Storage:
    if backend == _WRAPPED:
        return IndexingStorage(SearchIndex(InMemoryStorage()))
    return open_store(backend, None if backend in MEMORY_BACKENDS else path)


@pytest.fixture(params=[*BACKENDS, _WRAPPED])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    """A store of each backend (and the indexing wrapper) holding one node, grip and event."""
    opened = _open(request.param, tmp_path / "store")
    opened.put_node(_DAY)
    opened.put_grip(_GRIP)
    opened.put_event(_EVENT)
    yield opened
    opened.close()


def _unchanged(store: Storage) -> None:
    store.check()
    assert store.get_node(_DAY.node_id) == _DAY
    assert store.get_grip(_GRIP.grip_id) == _GRIP
    assert store.get_events() == [_EVENT]


@pytest.mark.parametrize("method", sorted(_ID_CALLS))
@settings(max_examples=scaled(15), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(odd=non_string_ids)
@example(odd=7)
@example(odd=None)
@example(odd=b"evt:1769763600000:a")
@example(odd=("evt:1769763600000:a",))
def test_an_id_that_is_not_a_string_is_refused(store: Storage, method: str, odd: object) -> None:
    """The call raises InvalidId naming the argument and the value, and the store holds what
    it held."""
    kind, call = _ID_CALLS[method]
    with pytest.raises(InvalidId) as refused:
        call(store, odd)
    assert str(refused.value) == f"{kind} must be a string, got {type(odd).__name__} {odd!r}"
    _unchanged(store)


@pytest.mark.parametrize("method", ["get_events_before", "get_events_after"])
@pytest.mark.parametrize("limit", [None, "3", 2.5, True])
def test_a_limit_that_is_not_a_whole_number_is_refused(
    store: Storage, method: str, limit: object
) -> None:
    """A neighbour query's limit that is not an int is an InvalidArgument naming it, not a
    TypeError from deep in a backend or a silent empty answer."""
    with pytest.raises(
        InvalidArgument, match=f"limit must be a whole number of at least 0, got {limit!r}"
    ):
        getattr(store, method)(_EVENT.event_id, limit)
    assert store.get_events_after("evt:0", 0) == []
    assert store.get_events_after("evt:0", 5) == [_EVENT]


def test_one_string_given_for_the_ids_to_delete_is_refused(store: Storage) -> None:
    """delete_events of one id string (which would read as one id per character and delete
    nothing) is an InvalidArgument, and the event stays."""
    with pytest.raises(InvalidArgument, match="not one string"):
        store.delete_events(_EVENT.event_id)
    _unchanged(store)
    store.delete_events([_EVENT.event_id])
    assert store.get_events() == []
