"""The records: validation on construction, UTC normalisation, immutability, evolve()."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.strategies import events, grips, toc_nodes
from tocsearch import ids
from tocsearch.errors import InvalidArgument, InvalidId
from tocsearch.levels import TocLevel
from tocsearch.models import (
    Event,
    EventRole,
    EventType,
    Grip,
    TocBullet,
    TocNode,
    event_project,
)

T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)
PLUS_TWO = timezone(timedelta(hours=2))


def make_node(**changes: Any) -> TocNode:
    fields: dict[str, Any] = {
        "node_id": "toc:segment:2026-01-30:abc",
        "level": TocLevel.SEGMENT,
        "title": "JWT refresh",
        "start_time": T0,
        "end_time": T0 + timedelta(minutes=5),
    }
    fields.update(changes)
    return TocNode(**fields)


def make_event(**changes: Any) -> Event:
    fields: dict[str, Any] = {
        "event_id": ids.event_id(T0, "e1"),
        "session_id": "s1",
        "timestamp": T0,
        "role": EventRole.USER,
        "event_type": EventType.USER_MESSAGE,
        "text": "why does the JWT refresh fail?",
    }
    fields.update(changes)
    return Event(**fields)


def make_grip(**changes: Any) -> Grip:
    fields: dict[str, Any] = {
        "grip_id": ids.grip_id(T0, "g1"),
        "excerpt": "refresh fails after rotation",
        "event_id_start": ids.event_id(T0, "e1"),
        "event_id_end": ids.event_id(T0 + timedelta(seconds=30), "e2"),
        "timestamp": T0,
        "source": "s1",
    }
    fields.update(changes)
    return Grip(**fields)


MAKERS = {"node": make_node, "event": make_event, "grip": make_grip}
TIME_FIELDS = [
    ("node", "start_time"),
    ("node", "end_time"),
    ("event", "timestamp"),
    ("grip", "timestamp"),
]


# -- times -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("record", "field"), TIME_FIELDS)
def test_naive_datetimes_rejected(record: str, field: str) -> None:
    """A naive datetime is refused with a message saying it must be timezone-aware."""
    naive = datetime(2026, 1, 30, 9, 0)
    with pytest.raises(InvalidArgument, match=r"timezone-aware.*naive 2026-01-30T09:00:00"):
        MAKERS[record](**{field: naive})


@pytest.mark.parametrize(("record", "field"), TIME_FIELDS)
def test_non_datetimes_rejected(record: str, field: str) -> None:
    """A string or number where a datetime belongs is refused, naming the value."""
    with pytest.raises(InvalidArgument, match="must be a datetime, got str: '2026-01-30'"):
        MAKERS[record](**{field: "2026-01-30"})


def test_aware_times_are_converted_to_utc() -> None:
    """An aware datetime in another zone is stored as the same instant in UTC."""
    local = datetime(2026, 1, 30, 11, 0, tzinfo=PLUS_TWO)
    node = make_node(start_time=local, end_time=local)
    event = make_event(timestamp=local)
    grip = make_grip(timestamp=local)
    for stored in (node.start_time, node.end_time, event.timestamp, grip.timestamp):
        assert stored.tzinfo is timezone.utc
        assert stored == T0
        assert stored.hour == 9


any_offset = st.builds(
    timezone,
    st.timedeltas(
        min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59)
    ),
)


@given(
    field=st.sampled_from(TIME_FIELDS),
    when=st.datetimes(timezones=any_offset),
)
@example(field=("event", "timestamp"), when=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))))
@example(
    field=("node", "end_time"),
    when=datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))),
)
def test_any_aware_time_is_stored_in_utc_or_refused_by_name(
    field: tuple[str, str], when: datetime
) -> None:
    """Any aware datetime is stored as the same instant in UTC, or refused with an
    InvalidArgument; one whose instant lies outside the dates a UTC datetime can hold (early
    on 0001-01-01 east of Greenwich, late on 9999-12-31 west of it) is refused by its value."""
    record, name = field
    try:
        when.astimezone(timezone.utc)
    except OverflowError:
        with pytest.raises(InvalidArgument, match=re.escape(f"{when.isoformat()} lies outside")):
            MAKERS[record](**{name: when})
        return
    try:
        made = MAKERS[record](**{name: when})
    except InvalidArgument:
        return  # refused for another reason (an id or an order it breaks)
    stored = getattr(made, name)
    assert stored == when
    assert stored.tzinfo is timezone.utc


def test_node_end_before_start_rejected() -> None:
    """A node whose end_time precedes its start_time is refused, showing both times."""
    with pytest.raises(InvalidArgument, match=r"end_time 2026-01-30T08:59:59.*before start_time"):
        make_node(end_time=T0 - timedelta(seconds=1))


def test_node_end_equal_to_start_allowed() -> None:
    """A node may cover a single instant."""
    assert make_node(end_time=T0).end_time == T0


def test_node_order_checked_after_utc_conversion() -> None:
    """Times in different zones are compared as instants: 10:00+02:00 is before 09:00Z."""
    with pytest.raises(InvalidArgument, match="before start_time"):
        make_node(end_time=datetime(2026, 1, 30, 10, 0, tzinfo=PLUS_TWO))


# -- ids -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node_id", "level"),
    [
        ("toc:day:2026-01-30", TocLevel.SEGMENT),
        ("toc:segment:2026-01-30:abc", TocLevel.DAY),
        ("toc:week:2026-W05", TocLevel.MONTH),
        ("toc:year:2026", TocLevel.MONTH),
    ],
)
def test_node_id_must_match_level(node_id: str, level: TocLevel) -> None:
    """A node whose id names another level is refused with InvalidId naming both."""
    with pytest.raises(InvalidId, match=f"{node_id!r}.*but level is {level.value}"):
        make_node(node_id=node_id, level=level)


@pytest.mark.parametrize("node_id", ["", "test:node:1", "toc:day:2026-02-30"])
def test_node_id_must_parse(node_id: str) -> None:
    """A node id that does not parse is refused with InvalidId."""
    with pytest.raises(InvalidId):
        make_node(node_id=node_id, level=TocLevel.DAY)


def test_level_accepts_names_and_refuses_unknown_ones() -> None:
    """A level given by its value is converted; an unknown level is refused by name."""
    assert make_node(level="segment").level is TocLevel.SEGMENT
    with pytest.raises(InvalidArgument, match="'decade'"):
        make_node(level="decade")


def test_event_id_must_carry_timestamp() -> None:
    """An event whose id names another millisecond than its timestamp is refused."""
    other = ids.event_id(T0 + timedelta(milliseconds=1), "e1")
    with pytest.raises(InvalidId, match="does not carry the event's timestamp"):
        make_event(event_id=other)


def test_event_id_matches_to_the_millisecond() -> None:
    """Microseconds below the id's millisecond are allowed: ids carry milliseconds only."""
    precise = T0 + timedelta(microseconds=123_456)
    event = make_event(event_id=ids.event_id(precise, "e1"), timestamp=precise)
    assert event.event_id == "evt:1769763600123:e1"
    assert event.timestamp == precise


@given(
    when=st.datetimes(
        min_value=datetime(1970, 1, 1),
        max_value=datetime(2286, 11, 20),
        timezones=st.just(timezone.utc),
    ),
    shift=st.integers(-2_000, 2_000),
)
@example(when=datetime(1970, 1, 1, tzinfo=timezone.utc), shift=-1)
@example(when=datetime(2026, 1, 30, 9, 0, 0, 999_999, tzinfo=timezone.utc), shift=0)
def test_event_id_is_accepted_exactly_when_it_carries_the_timestamp_millisecond(
    when: datetime, shift: int
) -> None:
    """The check of an event's id against its time (whole milliseconds) accepts exactly the
    ids whose time, made a datetime, is the timestamp cut to its millisecond."""
    ms = ids.to_epoch_ms(when) + shift
    if not 0 <= ms < 10**13:
        return
    event_id = f"evt:{ms:013d}:e1"
    carried = ids.parse_event_id(event_id)[0]
    expected = carried == when.replace(microsecond=when.microsecond // 1000 * 1000)
    if expected:
        assert make_event(event_id=event_id, timestamp=when).event_id == event_id
    else:
        with pytest.raises(InvalidId, match="does not carry the event's timestamp"):
            make_event(event_id=event_id, timestamp=when)


def test_event_id_of_local_timestamp() -> None:
    """A local-time timestamp is matched against the id as the same UTC instant."""
    local = datetime(2026, 1, 30, 11, 0, tzinfo=PLUS_TWO)
    assert make_event(timestamp=local).event_id == ids.event_id(T0, "e1")


@pytest.mark.parametrize("event_id", ["", "e1", "evt:1:e1", "grip:1769763600000:e1"])
def test_event_id_must_parse(event_id: str) -> None:
    """A malformed event id is refused with InvalidId."""
    with pytest.raises(InvalidId):
        make_event(event_id=event_id)


def test_event_session_must_not_be_empty() -> None:
    """An event without a session id is refused."""
    with pytest.raises(InvalidArgument, match="session_id must not be empty"):
        make_event(session_id="")


def test_event_role_and_type_convert_from_values() -> None:
    """Role and type given as strings become enum members; unknown ones are refused by name."""
    event = make_event(role="assistant", event_type="assistant_message")
    assert event.role is EventRole.ASSISTANT
    assert event.event_type is EventType.ASSISTANT_MESSAGE
    with pytest.raises(InvalidArgument, match="'robot'"):
        make_event(role="robot")
    with pytest.raises(InvalidArgument, match="'chat'"):
        make_event(event_type="chat")


def test_grip_end_before_start_rejected() -> None:
    """A grip whose last event id sorts before its first is refused, naming both ids."""
    with pytest.raises(InvalidArgument, match=r"event_id_end .* sorts before event_id_start"):
        make_grip(event_id_end=ids.event_id(T0 - timedelta(seconds=1), "e0"))


def test_grip_may_span_one_event() -> None:
    """A grip's start and end may be the same event."""
    grip = make_grip(event_id_end=ids.event_id(T0, "e1"))
    assert grip.event_id_start == grip.event_id_end


@pytest.mark.parametrize(
    "changes",
    [
        {"grip_id": "grip:abc"},
        {"grip_id": "evt:1769763600000:g1"},
        {"event_id_start": "e1"},
        {"event_id_end": "evt:1:e2"},
    ],
)
def test_grip_ids_must_parse(changes: dict[str, str]) -> None:
    """A grip with a malformed grip id or event id is refused with InvalidId."""
    with pytest.raises(InvalidId):
        make_grip(**changes)


# -- collections -----------------------------------------------------------------------------


@pytest.mark.parametrize("metadata", [{"tool": 1}, {1: "tool"}, {"tool": None}, {"tool": ["a"]}])
def test_metadata_maps_str_to_str(metadata: dict[Any, Any]) -> None:
    """Event metadata with a non-string key or value is refused, naming the pair."""
    with pytest.raises(InvalidArgument, match="maps strings to strings"):
        make_event(metadata=metadata)


def test_metadata_is_copied() -> None:
    """The event keeps its own copy of the metadata; changing the caller's dict changes nothing."""
    given_metadata = {"tool": "bash"}
    event = make_event(metadata=given_metadata)
    given_metadata["tool"] = "edit"
    assert event.metadata == {"tool": "bash"}


@pytest.mark.parametrize("field", ["keywords", "child_node_ids", "event_ids", "overlap_event_ids"])
def test_string_for_sequence_rejected_on_nodes(field: str) -> None:
    """A single string where a sequence of strings belongs is refused, not split into letters."""
    with pytest.raises(InvalidArgument, match="got the string 'jwt'"):
        make_node(**{field: "jwt"})


def test_string_for_grip_ids_rejected() -> None:
    """A bullet's grip ids given as one string are refused."""
    with pytest.raises(InvalidArgument, match="got the string 'grip:1:a'"):
        TocBullet("JWT refresh", "grip:1:a")


def test_sequences_become_tuples() -> None:
    """Lists passed for sequence fields are stored as tuples, so records stay hashable."""
    node = make_node(
        keywords=["jwt"],
        bullets=[TocBullet("JWT", ["grip:1:a"])],
        child_node_ids=[],
        event_ids=[ids.event_id(T0, "e1")],
    )
    assert node.keywords == ("jwt",)
    assert node.bullets[0].grip_ids == ("grip:1:a",)
    assert isinstance(node.event_ids, tuple)
    assert hash(node) == hash(
        make_node(
            keywords=("jwt",),
            bullets=(TocBullet("JWT", ("grip:1:a",)),),
            event_ids=(ids.event_id(T0, "e1"),),
        )
    )


def test_bullets_must_be_bullets() -> None:
    """Plain strings or dicts in bullets are refused, naming the offending value."""
    with pytest.raises(InvalidArgument, match="got 'JWT refresh'"):
        make_node(bullets=["JWT refresh"])
    with pytest.raises(InvalidArgument, match="TocBullet"):
        make_node(bullets=[{"text": "JWT", "grip_ids": []}])


# -- summary_text ----------------------------------------------------------------------------


def test_summary_text_prefers_summary() -> None:
    """summary_text is the summary when there is one, else the bullets joined by spaces."""
    bullets = [TocBullet("Fixed JWT race"), TocBullet("Added tests")]
    assert make_node(bullets=bullets, summary="Auth work").summary_text == "Auth work"
    assert make_node(bullets=bullets).summary_text == "Fixed JWT race Added tests"
    assert make_node(bullets=bullets, summary="").summary_text == "Fixed JWT race Added tests"
    assert make_node().summary_text == ""


# -- immutability and evolve -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "field", "value"),
    [("node", "title", "x"), ("event", "text", "x"), ("grip", "excerpt", "x")],
)
def test_records_are_immutable(record: str, field: str, value: str) -> None:
    """Assigning to a record's field raises FrozenInstanceError."""
    made = MAKERS[record]()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(made, field, value)


def test_bullets_are_immutable() -> None:
    """A bullet is frozen too."""
    bullet = TocBullet("JWT")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        bullet.text = "other"  # type: ignore[misc]


def test_evolve_changes_one_field() -> None:
    """evolve() returns a changed copy and leaves the original as it was."""
    node = make_node()
    changed = attrs.evolve(node, title="Postgres migration", version=2)
    assert (changed.title, changed.version) == ("Postgres migration", 2)
    assert (node.title, node.version) == ("JWT refresh", 1)
    assert attrs.evolve(changed, title=node.title, version=1) == node


def test_evolve_validates() -> None:
    """evolve() runs the validators and converters again."""
    node = make_node()
    with pytest.raises(InvalidArgument, match="before start_time"):
        attrs.evolve(node, end_time=T0 - timedelta(days=1))
    with pytest.raises(InvalidId):
        attrs.evolve(node, level=TocLevel.DAY)
    local = attrs.evolve(node, start_time=datetime(2026, 1, 30, 11, 0, tzinfo=PLUS_TWO))
    assert local.start_time.tzinfo is timezone.utc


@given(node=toc_nodes())
def test_generated_nodes_evolve_to_equal_copies(node: TocNode) -> None:
    """Evolving a node with its own values gives an equal node with the same hash."""
    copy = attrs.evolve(node, **attrs.asdict(node, recurse=False))
    assert copy == node
    assert hash(copy) == hash(node)


@given(event=events())
def test_generated_events_are_hashable(event: Event) -> None:
    """Events hash by value, ignoring their metadata dict."""
    assert hash(event) == hash(attrs.evolve(event, metadata={}))


@given(grip=grips())
def test_generated_grips_are_ordered(grip: Grip) -> None:
    """A grip's range never runs backwards and its times are UTC."""
    assert grip.event_id_start <= grip.event_id_end
    assert grip.timestamp.tzinfo is timezone.utc


@pytest.mark.parametrize(
    ("metadata", "shown"),
    [
        ({"cwd": "/home/dev/shop", "project": "-home-dev-shop"}, "/home/dev/shop"),
        ({"project": "Deploying the staging cluster"}, "Deploying the staging cluster"),
        ({"cwd": "", "project": "-home-dev-blog"}, "-home-dev-blog"),
        ({}, ""),
    ],
)
def test_event_project_prefers_the_working_directory(metadata: dict[str, str], shown: str) -> None:
    """An event's project is its working directory, else its project name, else empty."""
    event = make_event(metadata=metadata)
    assert event_project(event) == shown
