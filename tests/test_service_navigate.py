"""MemoryService.navigate and the time windows of search_children: what a window and a limit
let through."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._support.examples import scaled
from tocsearch.examples import EXAMPLE_END, load_example_events
from tocsearch.ingest import TocBuilder
from tocsearch.levels import TocLevel
from tocsearch.navigate.timehints import TimeRange
from tocsearch.requests import NavigateRequest, SearchChildrenRequest
from tocsearch.service import MemoryService
from tocsearch.storage import InMemoryStorage

QUESTION = "JWT refresh tokens"


@pytest.fixture(scope="module")
def service() -> MemoryService:
    """The bundled example history, questions read as of its end."""
    storage = InMemoryStorage()
    TocBuilder(storage).ingest(load_example_events())
    return MemoryService(storage, now=EXAMPLE_END)


def _span(service: MemoryService) -> TimeRange:
    years = service.get_toc_root()
    return TimeRange(years[0].start_time, years[-1].end_time + timedelta(seconds=1))


def test_navigate_answers_like_the_navigator(service: MemoryService) -> None:
    """Without a window or limit the service returns the navigator's evidence."""
    result = service.navigate(NavigateRequest(QUESTION))
    assert result.evidence
    assert result.token_budget == 2000


def test_navigate_limit_caps_the_evidence(service: MemoryService) -> None:
    """limit keeps at most that many evidence items, the best ones first (whole, where the
    full answer may have slimmed them to fit more)."""
    full = service.navigate(NavigateRequest(QUESTION))
    one = service.navigate(NavigateRequest(QUESTION, limit=1))
    assert len(one.evidence) == 1
    (best,) = one.evidence
    assert best.matched_terms
    assert best.segment_title
    assert best.session_id
    assert best == attrs.evolve(
        full.evidence[0],
        matched_terms=best.matched_terms,
        grip_ids=best.grip_ids,
        segment_title=best.segment_title,
        project=best.project,
        session_id=best.session_id,
    )


def test_a_window_before_the_history_leaves_no_evidence(service: MemoryService) -> None:
    """Nothing happened before the history began, so a window there returns nothing."""
    start = _span(service).start
    result = service.navigate(NavigateRequest(QUESTION, until=start))
    assert result.evidence == ()


@settings(max_examples=scaled(25), deadline=None)
@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.integers(1, 8))
def test_navigate_evidence_lies_inside_the_window(
    service: MemoryService, first: float, second: float, limit: int
) -> None:
    """Every evidence item of a windowed question overlaps the window; never more than limit."""
    span = _span(service)
    length = span.end - span.start
    low, high = sorted((first, second))
    since = span.start + length * low
    until = max(span.start + length * high, since + timedelta(hours=1))
    result = service.navigate(NavigateRequest(QUESTION, limit=limit, since=since, until=until))
    window = TimeRange(since, until)
    assert len(result.evidence) <= limit
    for item in result.evidence:
        assert window.overlaps(item.start_time, item.end_time)


@settings(max_examples=scaled(25), deadline=None)
@given(st.floats(0.0, 1.0), st.sampled_from([TocLevel.SEGMENT, TocLevel.DAY]))
def test_search_children_keeps_nodes_that_overlap_the_window(
    service: MemoryService, share: float, level: TocLevel
) -> None:
    """A windowed search returns only nodes overlapping the window, the same ones whether the
    level is searched whole or through a parent."""
    span = _span(service)
    since = span.start + (span.end - span.start) * share
    request = SearchChildrenRequest("refresh token", child_level=level, limit=500, since=since)
    found = service.search_children(request)
    window = TimeRange(since, datetime.max.replace(tzinfo=timezone.utc))
    for result in found.results:
        node = service.get_node(result.node_id)
        assert window.overlaps(node.start_time, node.end_time)
    everything = service.search_children(
        SearchChildrenRequest("refresh token", child_level=level, limit=500)
    )
    kept = {
        result.node_id
        for result in everything.results
        if window.overlaps(
            service.get_node(result.node_id).start_time, service.get_node(result.node_id).end_time
        )
    }
    assert {result.node_id for result in found.results} == kept
