"""The generic JSONL importer: schema, ids, strict and lenient handling of bad lines."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import events

from tocsearch.errors import ImportFailed
from tocsearch.importers import event_to_json_line, load_jsonl
from tocsearch.models import Event, EventRole, EventType

FIXTURES = Path(__file__).parent / "fixtures"


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps(
    {"timestamp": "2026-01-30T14:05:00Z", "session_id": "s", "role": "user", "text": "hi"}
)


def test_fixture_loads_every_line_into_an_event_sorted_by_id() -> None:
    """Each non-blank line of the fixture becomes one event; events come sorted by id."""
    result = load_jsonl(FIXTURES / "events.jsonl")
    assert len(result.events) == 4
    assert result.records_read == 4
    assert result.problems == ()
    assert [event.event_id for event in result.events] == sorted(
        event.event_id for event in result.events
    )
    first = result.events[0]
    assert first.event_id == "evt:1769781900000:q1"
    assert first.metadata == {"cwd": "/srv/auth"}
    assert first.agent == "claude"


def test_offsets_and_epoch_seconds_are_read_as_utc() -> None:
    """A +01:00 offset is converted to UTC and a number is read as epoch seconds."""
    by_role = {event.role: event for event in load_jsonl(FIXTURES / "events.jsonl").events}
    assert by_role[EventRole.ASSISTANT].timestamp == datetime(
        2026, 1, 30, 14, 5, 30, tzinfo=timezone.utc
    )
    assert by_role[EventRole.TOOL].timestamp == datetime(
        2026, 1, 30, 14, 6, 0, 500000, tzinfo=timezone.utc
    )


def test_event_type_defaults_from_role_and_can_be_given() -> None:
    """Without event_type the role decides it; an explicit event_type wins."""
    by_role = {event.role: event for event in load_jsonl(FIXTURES / "events.jsonl").events}
    assert by_role[EventRole.ASSISTANT].event_type is EventType.ASSISTANT_MESSAGE
    assert by_role[EventRole.TOOL].event_type is EventType.TOOL_RESULT
    assert by_role[EventRole.SYSTEM].event_type is EventType.SESSION_END


def test_derived_ids_are_deterministic_and_carry_the_timestamp() -> None:
    """Importing the same file twice gives equal events, and derived ids carry their time."""
    first = load_jsonl(FIXTURES / "events.jsonl")
    second = load_jsonl(FIXTURES / "events.jsonl")
    assert first.events == second.events
    derived = [event for event in first.events if not event.event_id.endswith(":q1")]
    assert all(event.event_id.split(":")[2].startswith("j") for event in derived)


def test_derived_id_does_not_depend_on_line_position(tmp_path: Path) -> None:
    """Inserting a line above another leaves that line's derived id unchanged."""
    alone = load_jsonl(_write(tmp_path, GOOD)).events[0].event_id
    other = json.dumps(
        {"timestamp": "2026-01-29T09:00:00Z", "session_id": "s", "role": "user", "text": "x"}
    )
    shifted = {
        event.text: event.event_id for event in load_jsonl(_write(tmp_path, other, GOOD)).events
    }
    assert shifted["hi"] == alone


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "line 2: not valid JSON"),
        ("[1, 2]", "line 2: a line must be a JSON object, got a list"),
        ('{"session_id": "s", "role": "user", "text": "x"}', "line 2: 'timestamp' is missing"),
        (
            '{"timestamp": "2026-01-30T14:05:00", "session_id": "s", "role": "user", "text": "x"}',
            "line 2: 'timestamp' has no UTC offset: '2026-01-30T14:05:00'",
        ),
        (
            '{"timestamp": "yesterday", "session_id": "s", "role": "user", "text": "x"}',
            "line 2: 'timestamp' is not an ISO 8601 timestamp: 'yesterday'",
        ),
        (
            '{"timestamp": 1769781900000, "session_id": "s", "role": "user", "text": "x"}',
            "epoch milliseconds are not accepted",
        ),
        (
            '{"timestamp": "2026-02-30T14:05:00Z", "session_id": "s", "role": "user", "text": "x"}',
            "line 2: 'timestamp' is not a valid date and time",
        ),
        (
            '{"timestamp": "2026-01-30T14:05:00Z", "role": "user", "text": "x"}',
            "'session_id' is missing",
        ),
        (
            '{"timestamp": "2026-01-30T14:05:00Z", "session_id": 7, "role": "user", "text": "x"}',
            "'session_id' must be a string, got a number 7",
        ),
        (
            '{"timestamp": "2026-01-30T14:05:00Z", "session_id": "s", "role": "bot", "text": "x"}',
            "'role' must be one of user, assistant, system, tool, got 'bot'",
        ),
        (
            '{"timestamp": "2026-01-30T14:05:00Z", "session_id": "s", "role": "user"}',
            "'text' is missing",
        ),
        (
            '{"timestamp": "2026-01-30T14:05:00Z", "session_id": "s", "role": "user", "text": "x",'
            ' "event_type": "chat"}',
            "'event_type' must be one of",
        ),
        (
            '{"timestamp": "2026-01-30T14:05:00Z", "session_id": "s", "role": "user", "text": "x",'
            ' "metadata": {"n": 1}}',
            "'metadata' values must be strings, got 'n': 1",
        ),
        (
            '{"timestamp": "2026-01-30T14:05:00Z", "session_id": "s", "role": "user", "text": "x",'
            ' "event_id": "e1"}',
            "'event_id' not an event id",
        ),
        (
            '{"timestamp": "2026-01-30T14:05:00Z", "session_id": "s", "role": "user", "text": "x",'
            ' "event_id": "evt:0000000000000:a"}',
            "does not carry the event's timestamp",
        ),
    ],
)
def test_strict_mode_names_file_line_and_reason(tmp_path: Path, line: str, reason: str) -> None:
    """The first bad line raises ImportFailed naming the file, the line and what is wrong."""
    path = _write(tmp_path, GOOD, line, GOOD)
    with pytest.raises(ImportFailed) as caught:
        load_jsonl(path)
    message = str(caught.value)
    assert message.startswith(f"{path} line 2: ")
    assert reason in message


def test_lenient_mode_skips_bad_lines_and_reports_each(tmp_path: Path) -> None:
    """strict=False keeps the good lines and lists one problem per bad line, in file order."""
    path = _write(tmp_path, "{oops", GOOD, '{"role": "user"}', "", "[]")
    result = load_jsonl(path, strict=False)
    assert [event.text for event in result.events] == ["hi"]
    assert [problem.location for problem in result.problems] == ["line 1", "line 3", "line 5"]
    assert result.records_read == 4
    assert str(result.problems[1]) == f"{path} line 3: 'timestamp' is missing"


def test_conflicting_explicit_ids_are_a_problem_but_repeats_collapse(tmp_path: Path) -> None:
    """The same id for two different events is refused; an exact repeat is kept once."""
    record = {
        "event_id": "evt:1769781900000:a",
        "timestamp": "2026-01-30T14:05:00Z",
        "session_id": "s",
        "role": "user",
        "text": "one",
    }
    other = dict(record, text="two")
    path = _write(tmp_path, json.dumps(record), json.dumps(record), json.dumps(other))
    result = load_jsonl(path, strict=False)
    assert [event.text for event in result.events] == ["one"]
    assert len(result.problems) == 1
    assert "already used by a different event (line 1)" in result.problems[0].reason


def test_non_utf8_line_is_a_problem_naming_the_byte(tmp_path: Path) -> None:
    """A line that is not UTF-8 is reported with the offending byte; others still load."""
    path = tmp_path / "events.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + b'{"text": "caf\xe9"}\n')
    result = load_jsonl(path, strict=False)
    assert len(result.events) == 1
    assert "not UTF-8 text (byte 0xe9" in result.problems[0].reason


def test_binary_file_is_refused_even_in_lenient_mode(tmp_path: Path) -> None:
    """A file with NUL bytes is not read as text at all."""
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ImportFailed, match="looks like a binary file"):
        load_jsonl(path, strict=False)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    """A path that does not exist raises ImportFailed naming it."""
    with pytest.raises(ImportFailed, match="no such file"):
        load_jsonl(tmp_path / "absent.jsonl")


@given(st.lists(events(), max_size=12, unique_by=lambda event: event.event_id))
def test_written_events_load_back_equal(
    tmp_path_factory: pytest.TempPathFactory, batch: list[Event]
) -> None:
    """Events written with event_to_json_line load back as the same events, sorted by id."""
    path = tmp_path_factory.mktemp("roundtrip") / "events.jsonl"
    path.write_text("".join(event_to_json_line(event) + "\n" for event in batch), encoding="utf-8")
    result = load_jsonl(path)
    assert result.problems == ()
    assert result.events == tuple(sorted(batch, key=lambda event: event.event_id))
