"""The converter: every record round-trips through JSON; malformed documents are refused."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import bullets, events, grips, toc_nodes
from tocsearch import ids
from tocsearch.converter import from_dict, from_json, to_dict, to_json
from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, Grip, TocBullet, TocNode

T0 = datetime(2026, 1, 30, 9, 0, 0, 123456, tzinfo=timezone.utc)
records = st.one_of(events(), toc_nodes(), bullets, grips())
JSON_TYPES = (dict, list, str, int, float, bool, type(None))


def _only_builtin_types(value: Any) -> bool:
    if type(value) not in JSON_TYPES:
        return False
    if isinstance(value, dict):
        return all(type(key) is str and _only_builtin_types(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_only_builtin_types(item) for item in value)
    return True


@given(record=records)
def test_records_round_trip_through_json(record: Event | TocNode | TocBullet | Grip) -> None:
    """from_json(to_json(record)) gives back an equal record of the same type."""
    text = to_json(record)
    back = from_json(text, type(record))
    assert back == record
    assert type(back) is type(record)
    assert from_json(text.encode("utf-8"), type(record)) == record


@given(record=records)
def test_records_round_trip_through_dicts(record: Event | TocNode | TocBullet | Grip) -> None:
    """to_dict gives builtin types only, equal to the parsed JSON, and from_dict reverses it."""
    data = to_dict(record)
    assert _only_builtin_types(data)
    assert json.loads(to_json(record)) == data
    assert from_dict(data, type(record)) == record


def test_node_document_shape() -> None:
    """A node's document names its fields plainly: enum values, ISO UTC times, lists."""
    node = TocNode(
        node_id="toc:segment:2026-01-30:abc",
        level=TocLevel.SEGMENT,
        title="JWT refresh",
        start_time=T0,
        end_time=T0 + timedelta(minutes=5),
        bullets=[TocBullet("Fixed JWT race", ["grip:1769763600123:g1"])],
        keywords=["jwt"],
    )
    data = to_dict(node)
    assert data["level"] == "segment"
    assert type(data["level"]) is str
    assert data["start_time"] == "2026-01-30T09:00:00.123456+00:00"
    assert data["bullets"] == [{"text": "Fixed JWT race", "grip_ids": ["grip:1769763600123:g1"]}]
    assert data["keywords"] == ["jwt"]
    assert data["summary"] is None


def test_event_document_shape() -> None:
    """An event's role and type travel as their values; metadata as an object."""
    event = Event(
        event_id=ids.event_id(T0, "e1"),
        session_id="s1",
        timestamp=T0,
        role=EventRole.TOOL,
        event_type=EventType.TOOL_RESULT,
        text="ok",
        metadata={"tool": "bash"},
    )
    data = to_dict(event)
    assert (data["role"], data["event_type"]) == ("tool", "tool_result")
    assert data["metadata"] == {"tool": "bash"}
    assert data["agent"] is None


def test_json_keeps_unicode_readable() -> None:
    """Non-ASCII text is written as itself, not as escapes."""
    bullet = TocBullet("Straße 日本語")
    assert "Straße 日本語" in to_json(bullet)


@pytest.mark.parametrize(
    "stamp",
    ["2026-01-30T09:00:00Z", "2026-01-30T11:00:00+02:00", "2026-01-30T09:00:00.000+00:00"],
)
def test_timestamps_with_any_offset_are_read_as_utc(stamp: str) -> None:
    """A "Z" suffix or any UTC offset is accepted and stored as the UTC instant."""
    data = to_dict(_grip())
    data["timestamp"] = stamp
    grip = from_dict(data, Grip)
    assert grip.timestamp == datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)
    assert grip.timestamp.tzinfo is timezone.utc


def _grip() -> Grip:
    return Grip(
        grip_id=ids.grip_id(T0, "g1"),
        excerpt="refresh fails",
        event_id_start=ids.event_id(T0, "e1"),
        event_id_end=ids.event_id(T0, "e2"),
        timestamp=T0,
        source="s1",
    )


def _node_data() -> dict[str, Any]:
    node = TocNode(
        node_id="toc:day:2026-01-30",
        level=TocLevel.DAY,
        title="Auth day",
        start_time=T0,
        end_time=T0,
        bullets=[TocBullet("JWT", ["grip:1:a"])],
    )
    data: dict[str, Any] = to_dict(node)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("title"), r"required field missing @ \$\.title"),
        (lambda d: d.pop("node_id"), r"required field missing @ \$\.node_id"),
        (lambda d: d.update(start_time="yesterday"), r"'yesterday' @ \$\.start_time"),
        (lambda d: d.update(start_time=1769763600), r"got 1769763600 @ \$\.start_time"),
        (
            lambda d: d.update(end_time="2026-01-30T09:00:00"),
            r"must carry a UTC offset, got '2026-01-30T09:00:00' @ \$\.end_time",
        ),
        (lambda d: d.update(level="decade"), r"'decade'.* @ \$\.level"),
        (lambda d: d.update(node_id="toc:day:2026-02-30"), "'toc:day:2026-02-30'"),
        (lambda d: d.update(node_id="toc:week:2026-W05"), "is a week id, but level is day"),
        (lambda d: d.update(end_time="2026-01-01T00:00:00+00:00"), "before start_time"),
        (lambda d: d.update(version="two"), r"'two'.* @ \$\.version"),
        (lambda d: d.update(keywords="jwt"), r"expected a list, got 'jwt' @ \$\.keywords"),
        (lambda d: d.update(title=None), r"expected a string, got None @ \$\.title"),
        (lambda d: d.update(summary=5), r"expected a string, got 5 @ \$\.summary"),
        (lambda d: d.update(version=2.5), r"expected an integer, got 2.5 @ \$\.version"),
        (lambda d: d.update(version=True), r"expected an integer, got True @ \$\.version"),
        (lambda d: d.update(level=3), r"expected a string, got 3 @ \$\.level"),
        (lambda d: d["bullets"][0].pop("text"), r"required field missing @ \$\.bullets\[0\]\.text"),
        (lambda d: d["bullets"][0].update(grip_ids=5), r"@ \$\.bullets\[0\]\.grip_ids"),
    ],
)
def test_malformed_node_documents_rejected(change: Any, message: str) -> None:
    """A malformed node document raises InvalidArgument naming the field and the bad value."""
    data = _node_data()
    change(data)
    with pytest.raises(InvalidArgument, match=message) as caught:
        from_dict(data, TocNode)
    assert str(caught.value).startswith("not a valid TocNode: ")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(role="robot"), r"'robot'.* @ \$\.role"),
        (lambda d: d.update(event_type="chat"), r"'chat'.* @ \$\.event_type"),
        (lambda d: d.update(event_id="evt:1:e1"), "not an event id"),
        (
            lambda d: d.update(event_id=ids.event_id(T0 + timedelta(seconds=1), "e1")),
            "does not carry",
        ),
        (lambda d: d.update(timestamp="2026-01-30"), "must carry a UTC offset"),
        (lambda d: d.update(metadata={"tool": 3}), r"expected a string, got 3 @ \$\.metadata"),
        (lambda d: d.update(metadata=["tool"]), r"@ \$\.metadata"),
        (lambda d: d.pop("session_id"), r"required field missing @ \$\.session_id"),
        (lambda d: d.update(session_id=""), "session_id must not be empty"),
    ],
)
def test_malformed_event_documents_rejected(change: Any, message: str) -> None:
    """A malformed event document raises InvalidArgument with a message naming the problem."""
    event = Event(
        event_id=ids.event_id(T0, "e1"),
        session_id="s1",
        timestamp=T0,
        role=EventRole.USER,
        event_type=EventType.USER_MESSAGE,
        text="hello",
    )
    data = to_dict(event)
    change(data)
    with pytest.raises(InvalidArgument, match=message):
        from_dict(data, Event)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(grip_id="grip:x:g1"), "not a grip id"),
        (lambda d: d.update(event_id_start="e1"), "not an event id"),
        (lambda d: d.update(event_id_end="evt:0000000000001:e0"), "sorts before event_id_start"),
        (lambda d: d.pop("excerpt"), r"required field missing @ \$\.excerpt"),
    ],
)
def test_malformed_grip_documents_rejected(change: Any, message: str) -> None:
    """A malformed grip document raises InvalidArgument with a message naming the problem."""
    data = to_dict(_grip())
    change(data)
    with pytest.raises(InvalidArgument, match=message):
        from_dict(data, Grip)


@pytest.mark.parametrize("text", ["", "{", "not json", "[1, 2"])
def test_invalid_json_rejected(text: str) -> None:
    """Text that is not JSON raises InvalidArgument naming the record type."""
    with pytest.raises(InvalidArgument, match="not valid JSON for TocNode"):
        from_json(text, TocNode)


@pytest.mark.parametrize("document", ["[]", '"toc:year:2026"', "42", "null"])
def test_non_object_documents_rejected(document: str) -> None:
    """JSON that is not an object raises InvalidArgument, not a TypeError or AttributeError."""
    with pytest.raises(InvalidArgument, match="not a valid Grip"):
        from_json(document, Grip)


def test_unknown_keys_are_ignored() -> None:
    """Extra keys, as a newer version might write, are ignored rather than refused."""
    data = to_dict(_grip())
    data["added_later"] = True
    assert from_dict(data, Grip) == _grip()


def test_every_problem_is_reported_at_once() -> None:
    """A document with several bad fields names each of them in one error."""
    data = _node_data()
    data.update(title=None, version="2", keywords="jwt")
    with pytest.raises(InvalidArgument) as caught:
        from_dict(data, TocNode)
    message = str(caught.value)
    for path in ["$.title", "$.version", "$.keywords"]:
        assert path in message


@given(st.lists(st.text(max_size=8), max_size=6), st.sampled_from([1, None, 2.5, ["x"]]))
def test_string_lists_are_read_whole_and_strictly(words: list[str], intruder: object) -> None:
    """A list of plain strings becomes the tuple of those strings; one item that is not a
    string anywhere in it is refused, as item-by-item reading would."""
    data = to_dict(
        TocNode(
            node_id="toc:year:2026",
            level=TocLevel.YEAR,
            title="t",
            start_time=datetime(2026, 1, 5, tzinfo=timezone.utc),
            end_time=datetime(2026, 1, 5, tzinfo=timezone.utc),
        )
    )
    data["keywords"] = words
    assert from_dict(data, TocNode).keywords == tuple(words)
    data["keywords"] = [*words, intruder]
    with pytest.raises(InvalidArgument):
        from_dict(data, TocNode)


@pytest.mark.parametrize("cls", [Event, TocNode, TocBullet, Grip])
@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 5_000 + "1" + "}" * 5_000])
def test_json_nested_too_deep_is_refused_as_invalid(cls: type[Any], text: str) -> None:
    """A document nested deeper than JSON can be read is an InvalidArgument that says so,
    not a RecursionError."""
    with pytest.raises(InvalidArgument, match="nested too deep"):
        from_json(text, cls)
    with pytest.raises(InvalidArgument, match="nested too deep"):
        from_json(text.encode(), cls)
