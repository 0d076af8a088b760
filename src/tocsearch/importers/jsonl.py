"""The generic JSONL event format: one JSON object per line, one event per object.

Schema (see docs/importers.md)::

    {"timestamp": "2026-01-30T14:05:00Z", "session_id": "s1", "role": "user",
     "text": "why does the refresh fail?", "event_type": "user_message",
     "event_id": "evt:1769781900000:q1", "metadata": {"cwd": "/srv/auth"}, "agent": "claude"}

``timestamp``, ``session_id``, ``role`` and ``text`` are required; the rest is optional. Keys
not in the schema are ignored, so files written by newer versions still load.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tocsearch.errors import InvalidId
from tocsearch.ids import parse_event_id
from tocsearch.importers._collect import BadRecord, Collector, make_event
from tocsearch.importers._fields import (
    epoch_seconds,
    hashed_suffix,
    optional_str,
    parse_iso_timestamp,
    require_mapping,
    require_str,
    short,
    stamped_id,
)
from tocsearch.importers._json import parse_record
from tocsearch.importers._records import ImportResult
from tocsearch.importers._source import iter_lines
from tocsearch.models import Event, EventRole, EventType

__all__ = ["DEFAULT_EVENT_TYPES", "event_to_json_line", "load_jsonl", "parse_event_record"]

DEFAULT_EVENT_TYPES: Mapping[EventRole, EventType] = {
    EventRole.USER: EventType.USER_MESSAGE,
    EventRole.ASSISTANT: EventType.ASSISTANT_MESSAGE,
    EventRole.TOOL: EventType.TOOL_RESULT,
    EventRole.SYSTEM: EventType.SESSION_START,
}
"""The event type a record gets when it names only its role."""

_ROLES = ", ".join(role.value for role in EventRole)
_TYPES = ", ".join(kind.value for kind in EventType)


def _timestamp(record: Mapping[str, Any]) -> Any:
    if "timestamp" not in record or record["timestamp"] is None:
        raise BadRecord("'timestamp' is missing")
    value = record["timestamp"]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return epoch_seconds(value, "timestamp")
    return parse_iso_timestamp(value, "timestamp")


def _role(record: Mapping[str, Any]) -> EventRole:
    value = require_str(record, "role")
    try:
        return EventRole(value)
    except ValueError:
        raise BadRecord(f"'role' must be one of {_ROLES}, got {short(value)}") from None


def _event_type(record: Mapping[str, Any], role: EventRole) -> EventType:
    value = optional_str(record, "event_type")
    if value is None:
        return DEFAULT_EVENT_TYPES[role]
    try:
        return EventType(value)
    except ValueError:
        raise BadRecord(f"'event_type' must be one of {_TYPES}, got {short(value)}") from None


def _metadata(record: Mapping[str, Any]) -> dict[str, str]:
    value = record.get("metadata")
    if value is None:
        return {}
    mapping = require_mapping(value, "'metadata'")
    for key, item in mapping.items():
        if not isinstance(item, str):
            raise BadRecord(f"'metadata' values must be strings, got {key!r}: {short(item)}")
    return dict(mapping)


def parse_event_record(record: Any) -> Event:
    """The event one parsed JSONL object describes.

    Without an ``event_id`` the id is derived from a hash of the event's content, so the same
    line always gets the same id and an edit elsewhere in the file changes no other id.

    Raises:
        BadRecord: the object breaks the schema; the reason names the field and the value.
    """
    mapping = require_mapping(record, "a line")
    timestamp = _timestamp(mapping)
    session_id = require_str(mapping, "session_id")
    role = _role(mapping)
    event_type = _event_type(mapping, role)
    text = require_str(mapping, "text", allow_empty=True)
    metadata = _metadata(mapping)
    agent = optional_str(mapping, "agent")
    given_id = optional_str(mapping, "event_id")
    if given_id is None:
        suffix = hashed_suffix(
            session_id,
            timestamp.isoformat(),
            role.value,
            event_type.value,
            text,
            json.dumps(metadata, sort_keys=True),
            agent or "",
            prefix="j",
        )
        identifier = stamped_id(timestamp, suffix)
    else:
        try:
            parse_event_id(given_id)
        except InvalidId as error:
            raise BadRecord(f"'event_id' {error}") from None
        identifier = given_id
    return make_event(
        event_id=identifier,
        session_id=session_id,
        timestamp=timestamp,
        role=role,
        event_type=event_type,
        text=text,
        metadata=metadata,
        agent=agent,
    )


def event_to_json_line(event: Event) -> str:
    """One line of the generic JSONL format (without the newline) that loads back as ``event``."""
    record: dict[str, Any] = {
        "event_id": event.event_id,
        "timestamp": event.timestamp.isoformat().replace("+00:00", "Z"),
        "session_id": event.session_id,
        "role": event.role.value,
        "event_type": event.event_type.value,
        "text": event.text,
    }
    if event.metadata:
        record["metadata"] = event.metadata
    if event.agent is not None:
        record["agent"] = event.agent
    return json.dumps(record, ensure_ascii=False)


def load_jsonl(path: str | os.PathLike[str], *, strict: bool = True) -> ImportResult:
    """Events from a generic JSONL file; blank lines are skipped.

    Raises:
        ImportFailed: the file is missing, binary, or (in strict mode) a line is bad.
    """
    source = Path(path)
    collector = Collector(os.fspath(path), strict=strict)
    for line in iter_lines(source):
        where = f"line {line.number}"
        if line.text is None:
            collector.records_read += 1
            collector.problem(where, line.decode_error or "not UTF-8 text")
            continue
        if not line.text.strip():
            continue
        collector.records_read += 1
        try:
            event = parse_event_record(parse_record(line.text))
        except BadRecord as bad:
            collector.problem(where, bad.reason)
            continue
        collector.add([event], where)
    return collector.result()
