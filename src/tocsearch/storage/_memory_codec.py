"""Compact forms of records for :class:`~tocsearch.storage.InMemoryStorage`.

A record held as Python objects costs an object per field: a grip with its two event ids, its
excerpt and its timestamp is about 400 bytes; an event with its metadata dict about 400 bytes
beside its text; a segment of five bullets about 2,000. Packed with :mod:`marshal` (C code,
UTF-8 text, small ints in a few bytes, times as the ten bytes of their pickle) a record is one
``bytes`` object: an event its text plus a few dozen bytes, a segment about 650. The record's
id is left out: it is the key the record is stored under. Grips are stored as their fields in
a :class:`~tocsearch.storage._leaf_map.LeafMap`, which compresses them with their neighbours.

Unpacking rebuilds the record without running its converters and validators: every packed
value came out of a record that passed them, and packing keeps values exactly (times to the
microsecond, text with its unpaired surrogates). A record with a field that :mod:`marshal`
cannot hold exactly (a ``str`` or ``int`` subclass) is not packed: ``pack_*`` returns the record
itself and ``unpack_*`` hands it back as it was.

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
>>> grip_from_fields(grip.grip_id, grip_fields(grip)) == grip
True
"""

from __future__ import annotations

import base64
import marshal
from binascii import b2a_base64
from collections.abc import Callable
from datetime import datetime, timezone, tzinfo
from itertools import chain
from typing import Any, cast

import attrs

from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, Grip, TocBullet, TocNode

__all__ = [
    "PackedEvent",
    "grip_fields",
    "grip_from_fields",
    "node_fields",
    "node_from_fields",
    "pack_event",
    "pack_node",
    "unpack_event",
    "unpack_node",
]

PackedEvent = bytes | Event
"""An event as InMemoryStorage keeps it: packed bytes, or the event itself when it cannot be."""


_ROLES = tuple(EventRole)
_ROLE_CODES = {role: code for code, role in enumerate(_ROLES)}
_TYPES = tuple(EventType)
_TYPE_CODES = {kind: code for code, kind in enumerate(_TYPES)}
_LEVELS = tuple(TocLevel)
_LEVEL_CODES = {level: code for code, level in enumerate(_LEVELS)}
_UTC = timezone.utc

# Records are rebuilt field by field: object.__setattr__ writes a slot of a frozen attrs class
# without its converters and validators, which the packed values already passed.
_new = object.__new__
_set = object.__setattr__


def _state(moment: datetime) -> bytes:
    """A UTC time as the ten bytes its pickle holds (year to microsecond, and fold): exact,
    and ``datetime(state, timezone.utc)`` reads it back in one call, five times faster than
    adding microseconds to the epoch (nodes are read thousands at a time)."""
    # The base class's own __reduce__ (a datetime subclass may define another), which returns
    # ``(datetime, (state, tzinfo))``; the stubs type it as any reduce value.
    return cast(bytes, datetime.__reduce__(moment)[1][0])


# The constructor pickle itself calls for a datetime: ``datetime(state, tzinfo)``, which the type
# stubs do not declare.
_from_state: Callable[[bytes, tzinfo], datetime] = datetime  # type: ignore[assignment]


def _packed(values: tuple[Any, ...]) -> bytes | None:
    try:
        return marshal.dumps(values)
    except ValueError:  # a str or int subclass, which marshal refuses
        return None


def grip_fields(grip: Grip) -> tuple[Any, ...]:
    """The grip's fields but its id, as plain values: what a :class:`LeafMap` stores."""
    return (
        grip.excerpt,
        grip.event_id_start,
        grip.event_id_end,
        _state(grip.timestamp),
        grip.source,
        grip.toc_node_id,
    )


def grip_from_fields(grip_id: str, fields: tuple[Any, ...]) -> Grip:
    """The grip whose :func:`grip_fields` these are, under its id."""
    excerpt, start, end, stamp, source, node_id = fields
    grip = _new(Grip)
    _set(grip, "grip_id", grip_id)
    _set(grip, "excerpt", excerpt)
    _set(grip, "event_id_start", start)
    _set(grip, "event_id_end", end)
    _set(grip, "timestamp", _from_state(stamp, _UTC))
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
            _state(event.timestamp),
            _ROLE_CODES[event.role],
            _TYPE_CODES[event.event_type],
            event.text,
            tuple(chain.from_iterable(metadata.items())) if metadata else (),
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
    _set(event, "timestamp", _from_state(stamp, _UTC))
    _set(event, "role", _ROLES[role])
    _set(event, "event_type", _TYPES[kind])
    _set(event, "text", text)
    _set(event, "metadata", dict(zip(flat[::2], flat[1::2], strict=True)) if flat else {})
    _set(event, "agent", agent)
    return event


def _digest_form(text: str) -> str | bytes:
    """A digest's text as the bytes it is the base64 of (what TermDigest writes), a quarter
    smaller and left so by compression, which cannot shrink base64 back to its bytes; the
    text itself when it is anything else, as a hand-edited store may hold."""
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:  # binascii.Error is one; so is text beyond ASCII
        return text
    return raw if base64.b64encode(raw).decode("ascii") == text else text


def node_fields(node: TocNode) -> tuple[Any, ...] | None:
    """The node's fields but its id as plain values (bullets as a flat tuple of texts and
    grip-id tuples, times as pickle states, the digest as bytes), what a :class:`LeafMap`
    stores; None when marshal cannot hold a field exactly."""
    fields = (
        _LEVEL_CODES[node.level],
        node.title,
        _state(node.start_time),
        _state(node.end_time),
        tuple(item for bullet in node.bullets for item in (bullet.text, bullet.grip_ids)),
        node.keywords,
        node.child_node_ids,
        node.summary,
        node.version,
        node.event_ids,
        node.overlap_event_ids,
        _digest_form(node.digest),
    )
    return None if _packed(fields) is None else fields


def pack_node(node: TocNode) -> bytes | TocNode:
    """The node's :func:`node_fields` as one marshalled ``bytes`` (how segments were kept
    before they were stored as fields); the node itself when a field cannot be packed."""
    fields = node_fields(node)
    return node if fields is None else marshal.dumps(fields)


def unpack_node(node_id: str, packed: bytes) -> TocNode:
    """The node that :func:`pack_node` packed, under its id."""
    return node_from_fields(node_id, marshal.loads(packed))


# The slots of a node and a bullet, written through their descriptors: a third faster than
# object.__setattr__ by name, and a search rebuilds a few hundred segments a question.
_NODE_SLOTS = {name: getattr(TocNode, name).__set__ for name in attrs.fields_dict(TocNode)}
_set_text = TocBullet.text.__set__  # type: ignore[attr-defined]
_set_grip_ids = TocBullet.grip_ids.__set__  # type: ignore[attr-defined]


def node_from_fields(node_id: str, fields: tuple[Any, ...]) -> TocNode:
    """The node whose :func:`node_fields` these are, under its id.

    Runtime: some microseconds for a segment of five bullets (the node, its bullets, two
    datetimes and its digest's base64 text).
    """
    level, title, start, end, flat, keywords, children, summary, version, owned, overlap, digest = (
        fields
    )
    bullets = []
    texts = iter(flat)
    for text in texts:
        bullet = _new(TocBullet)
        _set_text(bullet, text)
        _set_grip_ids(bullet, next(texts))
        bullets.append(bullet)
    slots = _NODE_SLOTS
    node = _new(TocNode)
    slots["node_id"](node, node_id)
    slots["level"](node, _LEVELS[level])
    slots["title"](node, title)
    slots["start_time"](node, _from_state(start, _UTC))
    slots["end_time"](node, _from_state(end, _UTC))
    slots["bullets"](node, tuple(bullets))
    slots["keywords"](node, keywords)
    slots["child_node_ids"](node, children)
    slots["summary"](node, summary)
    slots["version"](node, version)
    slots["event_ids"](node, owned)
    slots["overlap_event_ids"](node, overlap)
    slots["digest"](
        node,
        b2a_base64(digest, newline=False).decode("ascii") if type(digest) is bytes else digest,
    )
    return node
