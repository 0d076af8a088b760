"""The MemoryService facade: validation, limits, token budgets, browsing and grip expansion."""

from __future__ import annotations

import base64
import contextlib
import json
import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests._support.ingest_strategies import SMALL_CONFIG, event_streams
from tests.strategies import toc_nodes
from tocsearch import ids
from tocsearch.budget import response_tokens
from tocsearch.errors import EventNotFound, GripNotFound, InvalidArgument, NodeNotFound
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocBullet, TocNode
from tocsearch.search import SearchField
from tocsearch.service import (
    BrowseTocRequest,
    ExpandEventRequest,
    ExpandGripRequest,
    MemoryService,
    SearchChildrenRequest,
    SearchNodeRequest,
)
from tocsearch.storage import InMemoryStorage
from tocsearch.text import estimate_tokens

T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)


def _segment(
    suffix: str, title: str, bullets: list[str], minute: int, keywords: tuple[str, ...]
) -> TocNode:
    start = T0 + timedelta(minutes=minute)
    return TocNode(
        node_id=ids.segment_id(T0.date(), suffix),
        level=TocLevel.SEGMENT,
        title=title,
        start_time=start,
        end_time=start + timedelta(minutes=5),
        bullets=[TocBullet(text, (f"grip:1:{suffix}{i}",)) for i, text in enumerate(bullets)],
        keywords=keywords,
    )


@pytest.fixture
def service() -> MemoryService:
    return _day_service()


def _day_service() -> MemoryService:
    """A service over three segments of one day, under their day, week, month and year."""
    storage = InMemoryStorage()
    segments = [
        _segment(
            "a",
            "JWT refresh token rotation",
            ["Fixed JWT refresh race", "Added tests"],
            0,
            ("JWT", "refresh"),
        ),
        _segment("b", "Postgres migration", ["Lock timeout on ALTER TABLE"], 60, ("Postgres",)),
        # "clock" contains "lock": substring matching finds it for "lock timeout" too.
        _segment(
            "c", "JWT clock skew", ["Allowed 30 s of skew for JWT validation"], 120, ("skew",)
        ),
    ]
    day = TocNode(
        node_id=ids.day_id(T0.date()),
        level=TocLevel.DAY,
        title="Auth and database work",
        start_time=segments[0].start_time,
        end_time=segments[-1].end_time,
        child_node_ids=[segment.node_id for segment in reversed(segments)],
    )
    year = TocNode(
        node_id=ids.year_id(2026),
        level=TocLevel.YEAR,
        title="2026",
        start_time=day.start_time,
        end_time=day.end_time,
    )
    storage.put_nodes([*segments, day, year])
    return MemoryService(storage)


def test_search_node_returns_matches_with_node_level(service: MemoryService) -> None:
    """A node search reports the node, its level and whether anything matched."""
    response = service.search_node(SearchNodeRequest("toc:segment:2026-01-30:a", "jwt race"))
    assert response.matched
    assert response.level is TocLevel.SEGMENT
    assert response.node_id == "toc:segment:2026-01-30:a"
    assert response.matches[0].score == 1.0
    assert not response.has_more


@pytest.mark.parametrize("query", ["", "   ", "a b to"])
def test_empty_or_termless_query_is_invalid(service: MemoryService, query: str) -> None:
    """Empty, blank and all-short-word queries are refused as invalid arguments."""
    with pytest.raises(InvalidArgument, match="query"):
        service.search_node(SearchNodeRequest("toc:segment:2026-01-30:a", query))
    with pytest.raises(InvalidArgument, match="query"):
        service.search_children(SearchChildrenRequest(query))


def test_empty_node_id_is_invalid_and_unknown_is_not_found(service: MemoryService) -> None:
    """An empty node id is an invalid argument; an unknown one is NodeNotFound."""
    with pytest.raises(InvalidArgument, match="node_id must not be empty"):
        service.search_node(SearchNodeRequest("", "jwt"))
    with pytest.raises(NodeNotFound, match="toc:day:1999-01-01"):
        service.search_node(SearchNodeRequest("toc:day:1999-01-01", "jwt"))
    with pytest.raises(NodeNotFound):
        service.search_children(SearchChildrenRequest("jwt", parent_id="toc:day:1999-01-01"))
    with pytest.raises(NodeNotFound):
        service.get_node("nonexistent")


@pytest.mark.parametrize("limit", [0, -1])
def test_limit_below_one_is_invalid(service: MemoryService, limit: int) -> None:
    """A limit below one is refused rather than silently defaulted."""
    with pytest.raises(InvalidArgument, match="limit"):
        service.search_node(SearchNodeRequest("toc:segment:2026-01-30:a", "jwt", limit=limit))


def test_search_node_limit_sets_has_more(service: MemoryService) -> None:
    """Cutting matches to the limit says so through has_more."""
    full = service.search_node(SearchNodeRequest("toc:segment:2026-01-30:a", "jwt refresh"))
    cut = service.search_node(SearchNodeRequest("toc:segment:2026-01-30:a", "jwt refresh", limit=1))
    assert len(full.matches) > 1
    assert cut.matches == full.matches[:1]
    assert cut.has_more


def test_search_children_ranks_children_of_parent(service: MemoryService) -> None:
    """Children of a day are ranked by relevance, best first."""
    response = service.search_children(
        SearchChildrenRequest("jwt refresh rotation", parent_id="toc:day:2026-01-30")
    )
    ids_found = [result.node_id for result in response.results]
    assert ids_found[0] == "toc:segment:2026-01-30:a"
    scores = [result.relevance_score for result in response.results]
    assert scores == sorted(scores, reverse=True)


def test_search_children_empty_parent_searches_level(service: MemoryService) -> None:
    """An empty parent searches every node of the requested level across the store."""
    response = service.search_children(
        SearchChildrenRequest("lock timeout", child_level=TocLevel.SEGMENT)
    )
    assert [result.node_id for result in response.results] == [
        "toc:segment:2026-01-30:b",
        "toc:segment:2026-01-30:c",
    ]


def test_field_names_are_accepted_as_strings(service: MemoryService) -> None:
    """Fields may be given by name, and restrict where matches come from."""
    response = service.search_node(
        SearchNodeRequest(
            "toc:segment:2026-01-30:a",
            "jwt",
            fields=("keywords",),  # type: ignore[arg-type]  # names are converted
        )
    )
    assert {match.field for match in response.matches} == {SearchField.KEYWORDS}
    with pytest.raises(InvalidArgument, match="field must be one of"):
        SearchNodeRequest("toc:segment:2026-01-30:a", "jwt", fields=("colour",))  # type: ignore[arg-type]


def test_budget_drops_lowest_ranked_and_sets_has_more(service: MemoryService) -> None:
    """A tight budget keeps a best-first prefix of the matches and flags what was dropped."""
    request = SearchNodeRequest("toc:segment:2026-01-30:a", "jwt refresh race")
    full = service.search_node(request)
    budget = response_tokens(full, estimate_tokens) - 1
    cut = service.search_node(
        SearchNodeRequest(request.node_id, request.query, token_budget=budget)
    )
    assert response_tokens(cut, estimate_tokens) <= budget
    assert cut.has_more
    assert cut.matches == full.matches[: len(cut.matches)]


def test_budget_below_empty_response_is_invalid(service: MemoryService) -> None:
    """A budget too small for even an empty response is refused with the sizes named."""
    with pytest.raises(InvalidArgument, match="smallest possible response"):
        service.search_node(SearchNodeRequest("toc:segment:2026-01-30:a", "jwt", token_budget=3))
    with pytest.raises(
        InvalidArgument, match="token_budget must be a whole number of at least 1, got 0"
    ):
        service.search_node(SearchNodeRequest("toc:segment:2026-01-30:a", "jwt", token_budget=0))


@given(
    nodes=st.lists(
        toc_nodes(TocLevel.SEGMENT), min_size=1, max_size=12, unique_by=lambda node: node.node_id
    ),
    budget=st.integers(40, 2_000),
    query=st.sampled_from(["jwt", "token refresh", "postgres migration lock", "straße"]),
)
def test_search_children_never_exceeds_budget(
    nodes: list[TocNode], budget: int, query: str
) -> None:
    """Whatever the budget, the response fits it and keeps a best-first prefix of the ranking."""
    storage = InMemoryStorage()
    storage.put_nodes(nodes)
    service = MemoryService(storage)
    unlimited = service.search_children(
        SearchChildrenRequest(query, child_level=TocLevel.SEGMENT, limit=100)
    )
    budgeted = service.search_children(
        SearchChildrenRequest(query, child_level=TocLevel.SEGMENT, limit=100, token_budget=budget)
    )
    assert response_tokens(budgeted, estimate_tokens) <= budget
    assert budgeted.results == unlimited.results[: len(budgeted.results)]
    if len(budgeted.results) < len(unlimited.results):
        assert budgeted.has_more


def test_browse_pages_through_children_in_time_order(service: MemoryService) -> None:
    """Browsing pages through children oldest first with a continuation token."""
    first = service.browse_toc(BrowseTocRequest("toc:day:2026-01-30", limit=2))
    assert [child.node_id for child in first.children] == [
        "toc:segment:2026-01-30:a",
        "toc:segment:2026-01-30:b",
    ]
    assert first.has_more
    assert first.continuation_token
    second = service.browse_toc(
        BrowseTocRequest("toc:day:2026-01-30", limit=2, continuation_token=first.continuation_token)
    )
    assert [child.node_id for child in second.children] == ["toc:segment:2026-01-30:c"]
    assert not second.has_more
    assert second.continuation_token is None
    roots = service.browse_toc(BrowseTocRequest())
    assert [node.node_id for node in roots.children] == ["toc:year:2026"]


def test_browse_rejects_foreign_or_malformed_tokens(service: MemoryService) -> None:
    """A token issued for another parent, or garbage, is an invalid argument."""
    first = service.browse_toc(BrowseTocRequest("toc:day:2026-01-30", limit=1))
    with pytest.raises(InvalidArgument, match="issued for parent"):
        service.browse_toc(BrowseTocRequest("", continuation_token=first.continuation_token))
    with pytest.raises(InvalidArgument, match="malformed continuation token"):
        service.browse_toc(BrowseTocRequest("toc:day:2026-01-30", continuation_token="@@@"))


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
_DAY = "toc:day:2026-01-30"


def _token_text(body: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


@given(
    text=st.one_of(
        _JSON_VALUES.map(_token_text),
        st.fixed_dictionaries(
            {"parent": st.sampled_from([_DAY, "toc:year:2026"]), "offset": _JSON_VALUES}
        ).map(_token_text),
    )
)
@example(text=base64.urlsafe_b64encode(b"[" * 100_000).decode())
@example(text=_token_text({"parent": _DAY, "offset": True}))
@example(text=_token_text({"parent": _DAY, "offset": 1.0}))
def test_a_continuation_token_is_read_exactly_or_refused(text: str) -> None:
    """A token holds its parent and a whole-number offset (not true, not 1.0); one that does
    pages from that offset, anything else (nested too deep to read included) is an
    InvalidArgument."""
    body: Any = None
    with contextlib.suppress(RecursionError):  # too deep to read: no token
        body = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    offset: Any = body.get("offset") if isinstance(body, dict) else None
    readable = isinstance(body, dict) and body.get("parent") == _DAY
    readable = readable and type(offset) is int and offset >= 0
    service = _day_service()
    request = BrowseTocRequest(_DAY, limit=1, continuation_token=text)
    if not readable:
        with pytest.raises(InvalidArgument, match="continuation token"):
            service.browse_toc(request)
        return
    every = service.browse_toc(BrowseTocRequest(_DAY, limit=100)).children
    assert service.browse_toc(request).children == every[offset : offset + 1]


def _event(minute: int, text: str) -> Event:
    when = T0 + timedelta(minutes=minute)
    return Event(ids.event_id(when, f"e{minute}"), "s1", when, "user", "user_message", text)


def test_expand_grip_returns_context_in_order() -> None:
    """Expanding a grip gives the events before, the excerpt events and the events after."""
    storage = InMemoryStorage()
    events = [_event(minute, f"message {minute}") for minute in range(10)]
    storage.put_events(reversed(events))
    grip = Grip(
        grip_id=ids.grip_id(events[4].timestamp, "g"),
        excerpt="message 4",
        event_id_start=events[4].event_id,
        event_id_end=events[5].event_id,
        timestamp=events[4].timestamp,
        source="s1",
    )
    storage.put_grip(grip)
    expanded = MemoryService(storage).expand_grip(ExpandGripRequest(grip.grip_id, 2, 3))
    assert expanded.grip == grip
    assert list(expanded.events_before) == events[2:4]
    assert list(expanded.excerpt_events) == events[4:6]
    assert list(expanded.events_after) == events[6:9]


def test_expand_unknown_grip_is_not_found() -> None:
    """An unknown grip is a NotFound error; an empty id an invalid argument."""
    service = MemoryService(InMemoryStorage())
    with pytest.raises(GripNotFound, match="grip:1:nope"):
        service.expand_grip(ExpandGripRequest("grip:1:nope"))
    with pytest.raises(InvalidArgument):
        service.expand_grip(ExpandGripRequest(""))
    with pytest.raises(InvalidArgument, match="events_before"):
        service.expand_grip(ExpandGripRequest("grip:1:nope", events_before=-1))


def test_expand_event_returns_neighbours_in_order() -> None:
    """An event comes back with its neighbours; an unknown event is EventNotFound."""
    storage = InMemoryStorage()
    events = [_event(minute, f"message {minute}") for minute in range(6)]
    storage.put_events(events)
    service = MemoryService(storage)
    around = service.expand_event(ExpandEventRequest(events[0].event_id, 2, 2))
    assert around.event == events[0]
    assert around.events_before == ()
    assert list(around.events_after) == events[1:3]
    with pytest.raises(EventNotFound, match="event not found"):
        service.expand_event(ExpandEventRequest("evt:0000000000001:none"))
    with pytest.raises(InvalidArgument, match="events_after"):
        service.expand_event(ExpandEventRequest(events[0].event_id, events_after=-2))


def test_empty_nodes_do_not_crash() -> None:
    """Nodes with no bullets, keywords or summary are searched without error."""
    storage = InMemoryStorage()
    storage.put_node(TocNode("toc:day:2026-01-30", TocLevel.DAY, "", T0, T0))
    service = MemoryService(storage)
    response = service.search_node(SearchNodeRequest("toc:day:2026-01-30", "anything"))
    assert not response.matched
    assert response.matches == ()


def test_search_logs_query_count_and_duration(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    """Searches leave a debug record on the 'tocsearch' logger with query, count and duration."""
    with caplog.at_level(logging.DEBUG, logger="tocsearch"):
        service.search_children(SearchChildrenRequest("jwt", parent_id="toc:day:2026-01-30"))
    record = next(r for r in caplog.records if r.name == "tocsearch")
    assert "query='jwt'" in record.getMessage()
    assert "results=2" in record.getMessage()
    assert " ms" in record.getMessage()


def _place(session_id: str) -> dict[str, str]:
    return {"project": f"-dev-{session_id}", "cwd": f"/dev/{session_id}"}


@given(events=event_streams(max_size=20))
def test_search_children_names_each_segments_conversation(events: list[Event]) -> None:
    """A segment result names the project and session of every event in it (one segment is
    one conversation); a day result, which spans conversations, names none."""
    placed = [
        attrs.evolve(
            event,
            metadata={
                "project": f"-home-dev-{event.session_id}",
                "cwd": f"/dev/{event.session_id}",
            },
        )
        for event in events
    ]
    storage = InMemoryStorage()
    TocBuilder(storage, config=SMALL_CONFIG).ingest(placed)
    service = MemoryService(storage)
    query = "refresh token postgres lock docker adoption ci log"
    segments = service.search_children(
        SearchChildrenRequest(query, child_level=TocLevel.SEGMENT, limit=100)
    )
    for result in segments.results:
        assert result.level is TocLevel.SEGMENT
        node = storage.get_node(result.node_id)
        said = {(f"/dev/{event.session_id}", event.session_id) for event in placed}
        in_segment = {
            (storage.get_event(event_id).metadata["cwd"], storage.get_event(event_id).session_id)
            for event_id in node.event_ids
        }
        assert in_segment <= said
        assert in_segment == {(result.project, result.session_id)}
        assert (result.start_time, result.end_time) == (node.start_time, node.end_time)
    days = service.search_children(
        SearchChildrenRequest(query, child_level=TocLevel.DAY, limit=100)
    )
    assert all((result.project, result.session_id) == ("", "") for result in days.results)
