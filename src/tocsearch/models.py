"""The records of tocsearch: raw events, TOC nodes with their bullets, and grips.

All records are frozen attrs classes; change one with :func:`attrs.evolve`. Times are
timezone-aware and normalised to UTC on construction; a naive datetime is refused, because a
conversation history mixes machines and a guessed zone silently misfiles a whole day.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, TypeVar

import attrs

from tocsearch._checks import in_utc, records_of
from tocsearch.errors import InvalidArgument, InvalidId
from tocsearch.ids import check_event_id, check_grip_id, event_id_ms, parse_node_id, to_epoch_ms
from tocsearch.levels import TocLevel
from tocsearch.text import encodable

__all__ = [
    "Event",
    "EventRole",
    "EventType",
    "Grip",
    "TocBullet",
    "TocLevel",
    "TocNode",
    "conversation_key",
    "event_project",
    "is_tool_result",
    "time_order",
]


_E = TypeVar("_E", bound=enum.Enum)


class EventRole(str, enum.Enum):
    """Who produced an event."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class EventType(str, enum.Enum):
    """What kind of moment in a session an event records."""

    SESSION_START = "session_start"
    USER_MESSAGE = "user_message"
    ASSISTANT_MESSAGE = "assistant_message"
    TOOL_RESULT = "tool_result"
    ASSISTANT_STOP = "assistant_stop"
    SUBAGENT_START = "subagent_start"
    SUBAGENT_STOP = "subagent_stop"
    SESSION_END = "session_end"


def _member(cls: type[_E], value: object) -> _E:
    if isinstance(value, cls):  # a member already (a record being read): cls(value) is value
        return value
    try:
        return cls(value)
    except ValueError:
        names = ", ".join(str(member.value) for member in cls)
        raise InvalidArgument(f"{cls.__name__} must be one of {names}, got {value!r}") from None


def _level(value: TocLevel | str) -> TocLevel:
    return _member(TocLevel, value)


def _role(value: EventRole | str) -> EventRole:
    return _member(EventRole, value)


def _event_type(value: EventType | str) -> EventType:
    return _member(EventType, value)


def _str_tuple(values: Iterable[str]) -> tuple[str, ...]:
    if isinstance(values, str):
        raise InvalidArgument(f"expected a sequence of strings, got the string {values!r}")
    return tuple(values)


def _bullet_tuple(values: Iterable[TocBullet]) -> tuple[TocBullet, ...]:
    return records_of(TocBullet, values, "bullets")


def _metadata(values: Mapping[str, str]) -> dict[str, str]:
    copied: dict[str, str] = {}
    for key, value in dict(values).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise InvalidArgument(f"event metadata maps strings to strings, got {key!r}: {value!r}")
        copied[encodable(key)] = encodable(value)
    return copied


def _event_text(value: str) -> str:
    if not isinstance(value, str):
        raise InvalidArgument(f"Event text must be a string, got {type(value).__name__}: {value!r}")
    return encodable(value)


def _optional_text(value: str | None) -> str | None:
    if value is None:
        return None
    return _event_text(value)


def _nonempty(instance: Any, attribute: attrs.Attribute[str], value: str) -> None:
    if not value:
        raise InvalidArgument(f"{type(instance).__name__}.{attribute.name} must not be empty")


def _text(instance: Any, attribute: attrs.Attribute[str], value: str) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(
            f"{type(instance).__name__}.{attribute.name} must be a string, got {value!r}"
        )


def _node_id_matches_level(node: TocNode, _: attrs.Attribute[str], value: str) -> None:
    key = parse_node_id(value)
    if key.level is not node.level:
        raise InvalidId(
            f"node id {value!r} is a {key.level.value} id, but level is {node.level.value}"
        )


def _event_id_format(_: Any, __: attrs.Attribute[str], value: str) -> None:
    check_event_id(value)


def _event_id_matches_time(event: Event, _: attrs.Attribute[str], value: str) -> None:
    # The id's milliseconds against the time's, as whole numbers: every stored event read
    # back is checked, and making a datetime of the id took half of building an event.
    if event_id_ms(value) != to_epoch_ms(event.timestamp):
        raise InvalidId(
            f"event id {value!r} does not carry the event's timestamp "
            f"{event.timestamp.isoformat()} in epoch milliseconds"
        )


def _grip_id_format(_: Any, __: attrs.Attribute[str], value: str) -> None:
    check_grip_id(value)


def _ordered_times(instance: Any, _: attrs.Attribute[datetime], value: datetime) -> None:
    if value < instance.start_time:
        raise InvalidArgument(
            f"{type(instance).__name__} end_time {value.isoformat()} is before start_time "
            f"{instance.start_time.isoformat()}"
        )


@attrs.frozen
class Event:
    """One immutable conversation event: a message, a tool result, a session boundary.

    ``event_id`` has the form ``evt:<13-digit epoch ms>:<suffix>`` (see :mod:`tocsearch.ids`) and
    must carry the event's own timestamp, so that ids sort in time order. Make one with
    ``tocsearch.ids.event_id(timestamp, suffix)``.

    Text fields (``session_id``, ``text``, ``metadata``, ``agent``) hold only what UTF-8 can
    store: an unpaired surrogate becomes U+FFFD on construction (:func:`tocsearch.text.encodable`),
    so every store can write every event and every answer can be printed.
    """

    event_id: str = attrs.field(validator=_event_id_matches_time)
    session_id: str = attrs.field(converter=_event_text, validator=_nonempty)
    timestamp: datetime = attrs.field(converter=in_utc)
    role: EventRole = attrs.field(converter=_role)
    event_type: EventType = attrs.field(converter=_event_type)
    text: str = attrs.field(converter=_event_text)
    metadata: dict[str, str] = attrs.field(factory=dict, converter=_metadata, hash=False)
    agent: str | None = attrs.field(default=None, converter=_optional_text)


@attrs.frozen
class TocBullet:
    """One statement of a node, with the grips that hold its evidence."""

    text: str
    grip_ids: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)


@attrs.frozen
class TocNode:
    """A node of the time table of contents.

    Its id names its level and period (``toc:day:2026-01-30``); ``start_time``..``end_time`` is
    the span of conversation it covers. Segments own ``event_ids`` (each event belongs to exactly
    one segment) and may carry ``overlap_event_ids``: the tail of the previous segment, kept as
    context, not owned. ``digest`` is the :class:`~tocsearch.digest.TermDigest` text of every
    word said below the node (empty when unknown), which lets a search skip a branch that
    cannot hold a word.
    """

    node_id: str = attrs.field(validator=_node_id_matches_level)
    level: TocLevel = attrs.field(converter=_level)
    title: str
    start_time: datetime = attrs.field(converter=in_utc)
    end_time: datetime = attrs.field(converter=in_utc, validator=_ordered_times)
    bullets: tuple[TocBullet, ...] = attrs.field(default=(), converter=_bullet_tuple)
    keywords: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    child_node_ids: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    summary: str | None = None
    version: int = 1
    event_ids: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    overlap_event_ids: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    digest: str = attrs.field(default="", validator=_text)

    @property
    def searchable_texts(self) -> tuple[str, ...]:
        """The texts a search reads in this node: title, summary ("" when there is none), each
        bullet, each keyword.

        Term digests are built from these texts and the navigator matches terms in them, so
        a digest rules out only what the navigator could not find here.
        """
        return (self.title, self.summary or "", *(b.text for b in self.bullets), *self.keywords)

    @property
    def summary_text(self) -> str:
        """The summary, or the bullets joined by spaces when there is none."""
        if self.summary:
            return self.summary
        return " ".join(bullet.text for bullet in self.bullets)


@attrs.frozen
class Grip:
    """The evidence behind a bullet: a range of raw events with a short excerpt.

    ``event_id_start`` and ``event_id_end`` are inclusive; ``toc_node_id`` is the segment (or
    other node) that owns the bullet.
    """

    grip_id: str = attrs.field(validator=_grip_id_format)
    excerpt: str
    event_id_start: str = attrs.field(validator=_event_id_format)
    # One validator: attrs would wrap two in a combined one, a call more for each grip read.
    event_id_end: str = attrs.field()
    timestamp: datetime = attrs.field(converter=in_utc)
    source: str
    toc_node_id: str | None = None

    @event_id_end.validator
    def _end_not_before_start(self, _: attrs.Attribute[str], value: str) -> None:
        check_event_id(value)
        if value < self.event_id_start:
            raise InvalidArgument(
                f"grip {self.grip_id}: event_id_end {value!r} sorts before "
                f"event_id_start {self.event_id_start!r}"
            )


def is_tool_result(event: Event) -> bool:
    """Whether an event is a tool's output (by role or by type): text a machine wrote, often
    long, that segmentation cuts and ``expand`` clips."""
    return event.role is EventRole.TOOL or event.event_type is EventType.TOOL_RESULT


def conversation_key(event: Event) -> tuple[str, str, str]:
    """The conversation an event belongs to: its project (``metadata["project"]``, empty when
    the source has none), its session, and the subagent within it (``metadata["agent_id"]``,
    empty for the main conversation). A segment holds one conversation, and expanding an event
    or a grip shows the turns of its conversation only."""
    metadata = event.metadata
    return metadata.get("project", ""), event.session_id, metadata.get("agent_id", "")


def event_project(event: Event) -> str:
    """Where an event was said, as a person names the project: the working directory the
    source recorded (``metadata["cwd"]``), else the project's name (``metadata["project"]``),
    else empty."""
    metadata = event.metadata
    return metadata.get("cwd") or metadata.get("project", "")


time_order: Callable[[TocNode], tuple[datetime, str]] = operator.attrgetter("start_time", "node_id")
"""The order of nodes in the tree: by start time, then by id. A parent lists its children in it,
stores return children and levels in it, and scans walk it backwards (newest first).

An attrgetter, not a function: it keys sorts on hot paths, where a Python call per node shows.
"""
