"""Compact forms of records for :class:`~tocsearch.storage.InMemoryStorage`.

A record held as a Python object costs an object per field: a grip with its two event ids, its
excerpt and its timestamp is about 400 bytes; an event with its metadata dict about 400 bytes
beside its text. Packed with :mod:`marshal` (C code, UTF-8 text, small ints in a few bytes) the
same grip is about 200 bytes in one ``bytes`` object, and an event is its text plus a few dozen
bytes. The record's id is left out: it is the key the record is stored under.

Unpacking rebuilds the record without running its converters and validators: every packed
value came out of a record that passed them, and packing keeps values exactly (times as whole
microseconds since the epoch, text with its unpaired surrogates). A record with a field that
:mod:`marshal` cannot hold exactly (a ``str`` or ``int`` subclass) is not packed: ``pack_*``
returns the record itself and ``unpack_*`` hands it back as it was.

>>> from datetime import datetime, timezone
>>> grip = Grip(
...     grip_id="grip:1769767200000:g1",
...     excerpt="Rotated the Postgres credentials",
...     event_id_start="evt:1769767200000:a",
...     event_id_end="evt:1769767260000:b",
...     timestamp=datetime(2026, 1, 30, 10, tzinfo=timezone.utc),
...     source="claude_code",
...     toc_node_id="toc:segment:2026-01-30:s1",
... )
>>> packed = pack_grip(grip)
>>> type(packed).__name__, unpack_grip(grip.grip_id, packed) == grip
('bytes', True)
"""

from __future__ import annotations

import marshal
from datetime import datetime, timedelta, timezone
from typing import Any

from tocsearch.models import Event, EventRole, EventType, Grip

__all__ = ["PackedEvent", "PackedGrip", "pack_event", "pack_grip", "unpack_event", "unpack_grip"]

PackedGrip = bytes | Grip
"""A grip as InMemoryStorage keeps it: packed bytes, or the grip itself when it cannot be."""

PackedEvent = bytes | Event
"""An event as InMemoryStorage keeps it: packed bytes, or the event itself when it cannot be."""

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)
_ROLES = tuple(EventRole)
_ROLE_CODES = {role: code for code, role in enumerate(_ROLES)}
_TYPES = tuple(EventType)
_TYPE_CODES = {kind: code for code, kind in enumerate(_TYPES)}

# Records are rebuilt field by field: object.__setattr__ writes a slot of a frozen attrs class
# without its converters and validators, which the packed values already passed.
_new = object.__new__
_set = object.__setattr__


def _microseconds(moment: datetime) -> int:
    """A UTC time as whole microseconds since the epoch (exact, unlike a float)."""
    return (moment - _EPOCH) // _MICROSECOND


def _moment(microseconds: int) -> datetime:
    return _EPOCH + timedelta(microseconds=microseconds)


def _packed(values: tuple[Any, ...]) -> bytes | None:
    try:
        return marshal.dumps(values)
    except ValueError:  # a str or int subclass, which marshal refuses
        return None


def pack_grip(grip: Grip) -> PackedGrip:
    """The grip without its id, packed; the grip itself when a field cannot be packed."""
    packed = _packed(
        (
            grip.excerpt,
            grip.event_id_start,
            grip.event_id_end,
            _microseconds(grip.timestamp),
            grip.source,
            grip.toc_node_id,
        )
    )
    return grip if packed is None else packed


def unpack_grip(grip_id: str, packed: PackedGrip) -> Grip:
    """The grip that :func:`pack_grip` packed, under its id."""
    if not isinstance(packed, bytes):
        return packed
    excerpt, start, end, stamp, source, node_id = marshal.loads(packed)
    grip = _new(Grip)
    _set(grip, "grip_id", grip_id)
    _set(grip, "excerpt", excerpt)
    _set(grip, "event_id_start", start)
    _set(grip, "event_id_end", end)
    _set(grip, "timestamp", _moment(stamp))
    _set(grip, "source", source)
    _set(grip, "toc_node_id", node_id)
    return grip


def pack_event(event: Event) -> PackedEvent:
    """The event without its id, packed (its metadata as a flat tuple of keys and values, in
    order); the event itself when a field cannot be packed."""
    metadata = event.metadata
    packed = _packed(
        (
            event.session_id,
            _microseconds(event.timestamp),
            _ROLE_CODES[event.role],
            _TYPE_CODES[event.event_type],
            event.text,
            tuple(item for pair in metadata.items() for item in pair) if metadata else (),
            event.agent,
        )
    )
    return event if packed is None else packed


def unpack_event(event_id: str, packed: PackedEvent) -> Event:
    """The event that :func:`pack_event` packed, under its id."""
    if not isinstance(packed, bytes):
        return packed
    session_id, stamp, role, kind, text, flat, agent = marshal.loads(packed)
    event = _new(Event)
    _set(event, "event_id", event_id)
    _set(event, "session_id", session_id)
    _set(event, "timestamp", _moment(stamp))
    _set(event, "role", _ROLES[role])
    _set(event, "event_type", _TYPES[kind])
    _set(event, "text", text)
    _set(event, "metadata", dict(zip(flat[::2], flat[1::2], strict=True)) if flat else {})
    _set(event, "agent", agent)
    return event
