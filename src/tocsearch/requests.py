"""The requests of the query API, one record per operation, each checking itself.

A request holds its defaults and limits and refuses bad values when it is made (raising
:class:`~tocsearch.errors.InvalidArgument` with the field's name), so the
:class:`~tocsearch.service.MemoryService`, the agent tools, the MCP server and the command line
share one definition of every argument. :func:`request_schema` turns a request class into the
JSON schema a model sees; :func:`parse_request` builds one from a model's decoded arguments.

Time windows (``since``/``until``) are half-open, ``[since, until)``, and kept in UTC.

>>> SearchChildrenRequest("jwt refresh").limit
10
>>> SearchChildrenRequest("jwt refresh", limit=0)
Traceback (most recent call last):
...
tocsearch.errors.InvalidArgument: limit must be a whole number of at least 1, got 0
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import attrs

from tocsearch._arguments import (
    choice_field,
    choices_field,
    count_field,
    flag_field,
    moment_field,
    optional_count_field,
    optional_text_field,
    parse_request,
    request_schema,
    text_field,
    texts_field,
)
from tocsearch._limits import CONTEXT_EVENTS_LIMIT
from tocsearch.errors import InvalidArgument
from tocsearch.ids import EVENT_PREFIX
from tocsearch.levels import TocLevel
from tocsearch.navigate._event_refs import resolve_ref
from tocsearch.search import DEFAULT_LIMIT, SearchField
from tocsearch.text import query_terms

__all__ = [
    "BrowseTocRequest",
    "ExpandEventRequest",
    "ExpandGripRequest",
    "ExpandRequest",
    "MemorySearchRequest",
    "NavigateRequest",
    "SearchChildrenRequest",
    "SearchNodeRequest",
    "SyncRequest",
    "parse_request",
    "request_schema",
]

_NAVIGATION_BUDGET = 2000
"""The navigator's token budget when a request names none."""
_CONTEXT = 3
"""Events of context shown on either side of an expanded grip or event."""


def _context_field(description: str) -> Any:
    """Events of context on one side: 3 by default, at most
    :data:`~tocsearch._limits.CONTEXT_EVENTS_LIMIT` (100), so one request cannot ask for a
    whole history."""
    return count_field(description, default=_CONTEXT, minimum=0, maximum=CONTEXT_EVENTS_LIMIT)


_FIELDS = "Fields to search; empty or absent means all fields."
_BUDGET = (
    "Largest response size in estimated tokens; the lowest-ranked items are dropped first and "
    "has_more says so."
)
_LIMIT = "At most this many results."
_SINCE = "Only what happened at or after this ISO 8601 moment, e.g. 2026-03-01T00:00:00Z."
_UNTIL = "Only what happened before this ISO 8601 moment."
_IDS = (
    "The ids pattern of the segment a short reference was cited under in a navigate answer, "
    "such as evt:16835*000:conv-26:D1:*; absent for a full id."
)
_PROJECT = "Only conversations of this project: a part of its name or working directory, any case."
_SESSION = "Only this session: its id, or the start of it."


def _search_query(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{attribute.name} must not be empty")
    if not query_terms(value):
        raise InvalidArgument(
            f"{attribute.name} {value!r} has no term of three or more characters to search for"
        )


def _window_is_ordered(since: datetime | None, until: datetime | None) -> None:
    if since is not None and until is not None and until <= since:
        raise InvalidArgument(
            f"until ({until.isoformat()}) must be after since ({since.isoformat()})"
        )


@attrs.frozen
class SearchNodeRequest:
    """Search within one node. Empty ``fields`` means all fields."""

    node_id: str = text_field("A node id such as toc:day:2026-01-30 or toc:week:2026-W05.")
    query: str = text_field(
        "Space-separated terms; terms under 3 characters are ignored.", blank=True
    )
    fields: tuple[SearchField, ...] = choices_field(SearchField, _FIELDS)
    limit: int = count_field(_LIMIT, default=DEFAULT_LIMIT, minimum=1)
    token_budget: int | None = optional_count_field(_BUDGET)

    @query.validator
    def _check_query(self, attribute: attrs.Attribute[Any], value: Any) -> None:
        _search_query(self, attribute, value)


@attrs.frozen
class SearchChildrenRequest:
    """Search the children of ``parent_id``; an empty parent searches all nodes of
    ``child_level``. ``since``/``until`` keep the nodes that overlap the window."""

    query: str = text_field("Space-separated terms; terms under 3 characters are ignored.")
    parent_id: str = text_field(
        "The node whose children to search; empty for a whole level.", default="", blank=True
    )
    child_level: TocLevel = choice_field(
        TocLevel, "The level to search when parent_id is empty.", default=TocLevel.YEAR
    )
    fields: tuple[SearchField, ...] = choices_field(SearchField, _FIELDS)
    limit: int = count_field(_LIMIT, default=DEFAULT_LIMIT, minimum=1)
    token_budget: int | None = optional_count_field(_BUDGET)
    since: datetime | None = moment_field(_SINCE)
    until: datetime | None = moment_field(_UNTIL)
    project: str | None = optional_text_field(_PROJECT)
    session: str | None = optional_text_field(_SESSION)

    @query.validator
    def _check_query(self, attribute: attrs.Attribute[Any], value: Any) -> None:
        _search_query(self, attribute, value)

    def __attrs_post_init__(self) -> None:
        _window_is_ordered(self.since, self.until)


@attrs.frozen
class NavigateRequest:
    """A question for the navigator, answered within ``token_budget`` with at most ``limit``
    evidence items, from what happened in ``[since, until)`` when either is given."""

    query: str = text_field(
        "The question, in plain words; time hints such as 'last week' narrow the search."
    )
    token_budget: int = count_field(
        "Largest response size in estimated tokens, path included; the best evidence that "
        "fits is returned.",
        default=_NAVIGATION_BUDGET,
        minimum=1,
    )
    limit: int | None = optional_count_field("At most this many evidence items.")
    since: datetime | None = moment_field(_SINCE)
    until: datetime | None = moment_field(_UNTIL)
    project: str | None = optional_text_field(_PROJECT)
    session: str | None = optional_text_field(_SESSION)
    full_path: bool = flag_field(
        "Show every step of the path instead of one per phase (counted in the budget)."
    )

    def __attrs_post_init__(self) -> None:
        _window_is_ordered(self.since, self.until)


@attrs.frozen
class MemorySearchRequest:
    """A search of the whole history through the search index (full-text and vectors fused),
    keeping at most ``limit`` segments, from ``[since, until)`` when either is given."""

    query: str = text_field("What to search for: keywords or a question in plain words.")
    limit: int = count_field("At most this many segments.", default=5, minimum=1)
    since: datetime | None = moment_field(_SINCE)
    until: datetime | None = moment_field(_UNTIL)

    def __attrs_post_init__(self) -> None:
        _window_is_ordered(self.since, self.until)


@attrs.frozen
class BrowseTocRequest:
    """One page of a node's children (or of the years, for an empty ``parent_id``)."""

    parent_id: str = text_field(
        "The node whose children to list; empty for the years.", default="", blank=True
    )
    limit: int = count_field("At most this many children per page.", default=20, minimum=1)
    continuation_token: str | None = optional_text_field(
        "The continuation_token of the previous page, for the next one."
    )


@attrs.frozen
class ExpandGripRequest:
    """The events behind a grip, with some context on either side."""

    grip_id: str = text_field("A grip id such as grip:1769781900000:a1 (from a bullet).")
    events_before: int = _context_field("Events of context before the grip.")
    events_after: int = _context_field("Events of context after the grip.")


@attrs.frozen
class ExpandEventRequest:
    """One raw event (as cited by navigator evidence), with some context on either side."""

    event_id: str = text_field(
        "An event id such as evt:1769781900000:a1, or with ids a short reference such as "
        "54220:3 (as navigate answers cite a segment's events)."
    )
    events_before: int = _context_field("Events of context before the event.")
    events_after: int = _context_field("Events of context after the event.")
    ids: str | None = optional_text_field(_IDS)

    def full_event_id(self) -> str:
        """The event id asked for: ``event_id`` itself, or the reference ``event_id`` filled
        into the pattern ``ids`` (the brackets an answer writes around it may stay).

        >>> ExpandEventRequest("[54220:3]", ids="evt:16835*000:conv-26:D1:*").full_event_id()
        'evt:1683554220000:conv-26:D1:3'

        Raises:
            InvalidArgument: ``ids`` is not a pattern or ``event_id`` does not fill it.
        """
        if self.ids is None:
            return self.event_id
        return resolve_ref(
            self.ids.strip(), self.event_id.strip().removeprefix("[").removesuffix("]")
        )


@attrs.frozen
class ExpandRequest:
    """The raw events behind a grip id or around an event id, with context on either side."""

    target: str = text_field(
        "A grip id (grip:..., from a bullet) or an event id (evt:..., from evidence); with "
        "ids, a short reference such as 54220:3."
    )
    events_before: int = _context_field("Events of context before.")
    events_after: int = _context_field("Events of context after.")
    ids: str | None = optional_text_field(_IDS)

    def is_event(self) -> bool:
        """Whether ``target`` names an event: an event id, or a reference with ``ids``."""
        return self.ids is not None or self.target.strip().startswith(EVENT_PREFIX)

    def as_grip(self) -> ExpandGripRequest:
        """The same request for a grip."""
        return ExpandGripRequest(self.target, self.events_before, self.events_after)

    def as_event(self) -> ExpandEventRequest:
        """The same request for an event."""
        return ExpandEventRequest(self.target, self.events_before, self.events_after, self.ids)


@attrs.frozen
class SyncRequest:
    """Read what is new in conversation files and folders into the store."""

    paths: tuple[str, ...] = texts_field(
        "Files or folders to read (Claude Code transcripts, ChatGPT exports); empty means "
        "~/.claude/projects."
    )
    full_rescan: bool = flag_field(
        "Read every file again from its start instead of only what is new."
    )
