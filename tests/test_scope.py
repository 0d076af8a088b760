"""--project and --session keep a search or a question to some conversations."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from tocsearch import InMemoryStorage, MemoryService, TocBuilder, TocLevel, ids
from tocsearch._scope import Scope
from tocsearch.models import Event, EventRole, EventType
from tocsearch.requests import NavigateRequest, SearchChildrenRequest

T0 = datetime(2026, 8, 3, 9, 0, tzinfo=timezone.utc)
PLACES = [
    ("-home-dev-shop", "/home/dev/shop", "5b1c-aaaa"),
    ("-home-dev-blog", "/home/dev/blog", "77e0-bbbb"),
]


def _history() -> list[Event]:
    events = []
    for i in range(24):
        project, cwd, session = PLACES[i % 2]
        when = T0 + timedelta(minutes=2 * i)
        events.append(
            Event(
                event_id=ids.event_id(when, f"s{i}"),
                session_id=session,
                timestamp=when,
                role=EventRole.USER,
                event_type=EventType.USER_MESSAGE,
                text=f"The redis cache timeout in {cwd.rsplit('/', 1)[1]} needs tuning, take {i}.",
                metadata={"project": project, "cwd": cwd},
            )
        )
    return events


def _service() -> tuple[MemoryService, InMemoryStorage]:
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(_history())
    return MemoryService(storage, now=T0 + timedelta(days=1)), storage


def test_navigate_cites_only_the_chosen_project() -> None:
    """Both projects talk about the cache; --project shop cites the shop's turns only."""
    service, storage = _service()
    result = service.navigate(NavigateRequest("redis cache timeout", project="SHOP"))
    assert result.evidence
    for item in result.evidence:
        event = storage.get_event(item.event_ids[0])
        assert event.metadata["project"] == "-home-dev-shop"


def test_search_keeps_segments_and_periods_of_the_session() -> None:
    """A session filter by the start of the id keeps that session's segments, and the days
    that hold one of them."""
    service, storage = _service()
    segments = service.search_children(
        SearchChildrenRequest("redis cache", child_level=TocLevel.SEGMENT, session="77e0")
    )
    assert segments.results
    for result in segments.results:
        first = storage.get_node(result.node_id).event_ids[0]
        assert storage.get_event(first).session_id == "77e0-bbbb"
    days = service.search_children(
        SearchChildrenRequest("redis cache", child_level=TocLevel.DAY, session="77e0")
    )
    assert [result.node_id for result in days.results] == ["toc:day:2026-08-03"]
    nothing = service.search_children(
        SearchChildrenRequest("redis cache", child_level=TocLevel.DAY, session="nope")
    )
    assert nothing.results == ()


@given(st.sampled_from(PLACES), st.text(max_size=8), st.text(max_size=8))
def test_a_scope_holds_an_event_exactly_when_both_filters_match(
    place: tuple[str, str, str], project: str, session: str
) -> None:
    """An event is in scope when the project filter is part of its project or directory (any
    case) and its session starts with the session filter; empty filters hold everything."""
    name, cwd, session_id = place
    event = _history()[0 if place == PLACES[0] else 1]
    scope = Scope(project or None, session or None)
    expected = (
        not project or project.casefold() in name.casefold() or project.casefold() in cwd.casefold()
    ) and (not session or session_id.startswith(session))
    assert scope.holds(event) == expected
