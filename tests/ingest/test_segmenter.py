"""Segmentation rules: gap, token limit, midnight, tool-result cut, overlap, ids."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from tests._support.ingest_strategies import SMALL_CONFIG, event_streams

from tocsearch import ids
from tocsearch.errors import InvalidArgument
from tocsearch.ingest import BuildConfig
from tocsearch.ingest._segmenter import (
    counted_text,
    last_segment,
    overlap_tail,
    plan_segments,
    plan_with_tail,
    segment_node_id,
    split_events,
)
from tocsearch.models import Event, EventRole, EventType, conversation_key
from tocsearch.text import estimate_tokens

T0 = datetime(2026, 1, 30, 10, 0, tzinfo=timezone.utc)


def event(
    minutes: float,
    text: str = "hello there",
    *,
    role: str = "user",
    n: int = 0,
    session: str = "s1",
    project: str | None = None,
) -> Event:
    when = T0 + timedelta(minutes=minutes)
    kind = EventType.TOOL_RESULT if role == "tool" else EventType.USER_MESSAGE
    return Event(
        event_id=ids.event_id(when, f"e{n}-{int(minutes * 1000)}-{session}"),
        session_id=session,
        timestamp=when,
        role=EventRole(role),
        event_type=kind,
        text=text,
        metadata={} if project is None else {"project": project},
    )


def sizes(groups: list[list[Event]]) -> list[int]:
    return [len(group) for group in groups]


def test_a_gap_longer_than_the_setting_starts_a_segment() -> None:
    """31 minutes of silence split; exactly 30 minutes does not."""
    events = [event(0), event(30), event(61)]
    assert sizes(split_events(events, BuildConfig(), estimate_tokens)) == [2, 1]


def test_the_event_that_would_pass_the_token_limit_starts_a_segment() -> None:
    """With a 10-token limit, 3 events of 4 tokens make segments of 2 and 1."""
    config = BuildConfig(max_segment_tokens=10)
    events = [event(i, "x" * 12, n=i) for i in range(3)]  # 4 tokens each
    assert sizes(split_events(events, config, estimate_tokens)) == [2, 1]


def test_an_event_larger_than_the_limit_gets_its_own_segment() -> None:
    """An oversized event is never split and never merged with a neighbour."""
    config = BuildConfig(max_segment_tokens=10)
    events = [event(0, "short"), event(1, "y" * 300), event(2, "short", n=2)]
    assert sizes(split_events(events, config, estimate_tokens)) == [1, 1, 1]


def test_midnight_utc_ends_a_segment() -> None:
    """Events a minute apart on both sides of midnight go to two segments of their own days."""
    late = datetime(2026, 1, 30, 23, 59, tzinfo=timezone.utc)
    events = [
        Event(
            event_id=ids.event_id(late + timedelta(minutes=i), f"m{i}"),
            session_id="s1",
            timestamp=late + timedelta(minutes=i),
            role="user",
            event_type="user_message",
            text="still talking",
        )
        for i in range(3)
    ]
    plans = plan_segments(events, BuildConfig(), estimate_tokens)
    assert [len(plan.events) for plan in plans] == [1, 2]
    assert plans[0].node_id.startswith("toc:segment:2026-01-30:")
    assert plans[1].node_id.startswith("toc:segment:2026-01-31:")
    assert plans[1].overlap_event_ids == (events[0].event_id,)


def test_tool_results_are_cut_before_counting() -> None:
    """A 3,000-character tool result counts as its first 1,000 characters; a user message
    of the same size is counted whole."""
    config = BuildConfig()
    tool = event(0, "z" * 3000, role="tool")
    user = event(1, "z" * 3000)
    assert counted_text(tool, config) == "z" * 1000
    assert counted_text(user, config) == "z" * 3000
    small = BuildConfig(max_segment_tokens=400, tool_result_cut=1000)
    assert sizes(split_events([event(0, "a"), tool], small, estimate_tokens)) == [2]


def test_overlap_is_the_last_minutes_of_the_previous_segment() -> None:
    """Events within 5 minutes of the previous segment's last event are carried, older ones
    are not."""
    events = [event(0, n=0), event(6, n=1), event(8, n=2), event(10, n=3), event(50, n=4)]
    plans = plan_segments(events, BuildConfig(), estimate_tokens)
    assert [len(plan.events) for plan in plans] == [4, 1]
    assert plans[0].overlap_event_ids == ()
    assert plans[1].overlap_event_ids == tuple(e.event_id for e in events[1:4])


def test_overlap_stops_at_its_token_budget() -> None:
    """The newest events fill the 500-token budget; an event that does not fit ends the tail."""
    config = BuildConfig()
    events = [event(0, "w" * 900, n=0), event(1, "w" * 900, n=1), event(2, "w" * 600, n=2)]
    assert overlap_tail(events, config, estimate_tokens) == (events[1].event_id, events[2].event_id)
    assert overlap_tail([event(0, "w" * 1600)], config, estimate_tokens) == ()


def test_overlap_is_context_not_ownership() -> None:
    """Every event is owned by exactly one segment even when it is also carried as overlap."""
    events = [event(i * 10, n=i) for i in range(3)] + [event(100, n=9)]
    plans = plan_segments(events, BuildConfig(), estimate_tokens)
    owned = [e for plan in plans for e in plan.event_ids]
    assert sorted(owned) == sorted(e.event_id for e in events)
    assert set(plans[1].overlap_event_ids) <= set(plans[0].event_ids)


def test_segment_ids_come_from_the_first_owned_event() -> None:
    """The id names the day and the first event's time, and does not depend on the rest."""
    first = event(0)
    node_id = segment_node_id(first)
    assert node_id.startswith("toc:segment:2026-01-30:100000-")
    assert plan_segments([first, event(1, n=1)], BuildConfig(), estimate_tokens)[0].node_id == (
        node_id
    )


def test_the_estimator_is_pluggable() -> None:
    """A word-counting estimator changes where the token limit falls."""
    config = BuildConfig(max_segment_tokens=4)
    events = [event(i, "one two", n=i) for i in range(4)]

    def words(text: str) -> int:
        return len(text.split())

    assert sizes(split_events(events, config, words)) == [2, 2]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("segment_gap", timedelta(0)),
        ("segment_gap", 30),
        ("max_segment_tokens", 0),
        ("overlap_window", timedelta(seconds=-1)),
        ("overlap_max_tokens", -1),
        ("tool_result_cut", 0),
        ("grip_excerpt_chars", 5),
        ("max_segment_tokens", True),
    ],
)
def test_bad_config_values_are_refused_by_name(field: str, value: object) -> None:
    """BuildConfig names the field and the value it refuses."""
    with pytest.raises(InvalidArgument, match=field):
        BuildConfig(**{field: value})  # type: ignore[arg-type]


def test_two_sessions_close_in_time_get_segments_of_their_own() -> None:
    """Two chats 17 minutes apart are two segments, not one."""
    events = [event(0, session="deploy"), event(5, session="deploy"), event(22, session="pasta")]
    groups = split_events(events, BuildConfig(), estimate_tokens)
    assert [[e.session_id for e in group] for group in groups] == [["deploy", "deploy"], ["pasta"]]


def test_interleaved_sessions_are_cut_independently() -> None:
    """Turns of two sessions that alternate in time make one segment per session, in the
    order of their first events, and a silence in one session does not cut the other."""
    events = [event(i, session="ab"[i % 2], n=i) for i in range(6)]
    groups = split_events(events, BuildConfig(), estimate_tokens)
    assert [{e.session_id for e in group} for group in groups] == [{"a"}, {"b"}]
    assert sizes(groups) == [3, 3]


def test_the_same_session_in_two_projects_is_two_conversations() -> None:
    """A segment never spans two projects, even under one session id."""
    events = [event(0, project="web"), event(1, project="api", n=1)]
    assert sizes(split_events(events, BuildConfig(), estimate_tokens)) == [1, 1]


def test_overlap_comes_from_the_same_conversation_only() -> None:
    """A segment's overlap is the tail of its own conversation's previous segment; a carried
    tail of another conversation goes to nobody."""
    config = BuildConfig()
    events = [
        event(0, session="a"),
        event(1, session="b", n=1),
        event(40, session="a", n=2),
        event(41, session="b", n=3),
    ]
    plans = plan_segments(events, config, estimate_tokens, ("evt:x",), ("", "b", ""))
    by_first = {plan.events[0].event_id: plan for plan in plans}
    assert by_first[events[0].event_id].overlap_event_ids == ()
    assert by_first[events[1].event_id].overlap_event_ids == ("evt:x",)
    assert by_first[events[2].event_id].overlap_event_ids == (events[0].event_id,)
    assert by_first[events[3].event_id].overlap_event_ids == (events[1].event_id,)


@given(event_streams(min_size=1, max_size=30))
def test_the_tail_planned_with_a_run_is_the_overlap_tail_of_its_last_segment(
    events: list[Event],
) -> None:
    """The overlap a run hands on, worked out while planning it, is the overlap tail of the
    segment that holds its last event, and that segment's conversation; the plans are those
    plan_segments makes."""
    plans, tail, key = plan_with_tail(events, SMALL_CONFIG, estimate_tokens)
    assert plans == plan_segments(events, SMALL_CONFIG, estimate_tokens)
    last = last_segment(split_events(events, SMALL_CONFIG, estimate_tokens))
    assert tail == overlap_tail(last, SMALL_CONFIG, estimate_tokens)
    assert key == conversation_key(last[-1])
