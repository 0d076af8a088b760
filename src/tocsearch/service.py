"""MemoryService: the SearchNode / SearchChildren / browse / ExpandGrip API as plain records.

The request and response records mirror the service messages of the original design, so an RPC
layer can map them one to one. Differences: limits and budgets are validated instead of silently
defaulted, and ``token_budget`` is honoured — the response's estimated size never exceeds it.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import time
from collections.abc import Sequence

import attrs

from tocsearch._checks import whole_number
from tocsearch._neighbours import conversation_events, conversation_neighbours
from tocsearch.budget import fit_to_budget
from tocsearch.errors import InvalidArgument
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.search import (
    DEFAULT_LIMIT,
    SearchChildrenResult,
    SearchField,
    SearchMatch,
    SearchNodeResult,
    rank_nodes,
    search_node,
)
from tocsearch.storage.protocol import Storage
from tocsearch.text import TokenEstimator, estimate_tokens, query_terms

__all__ = [
    "BrowseTocRequest",
    "BrowseTocResponse",
    "ExpandEventRequest",
    "ExpandEventResponse",
    "ExpandGripRequest",
    "ExpandGripResponse",
    "MemoryService",
    "SearchChildrenRequest",
    "SearchChildrenResponse",
    "SearchNodeRequest",
    "SearchNodeResponse",
]

logger = logging.getLogger("tocsearch")


def _fields(values: Sequence[SearchField | str]) -> tuple[SearchField, ...]:
    return tuple(
        value if isinstance(value, SearchField) else SearchField.parse(value) for value in values
    )


def _level(value: TocLevel | str) -> TocLevel:
    return TocLevel.parse(value)


@attrs.frozen
class SearchNodeRequest:
    """Search within one node. Empty ``fields`` means all fields."""

    node_id: str
    query: str
    fields: tuple[SearchField, ...] = attrs.field(default=(), converter=_fields)
    limit: int = DEFAULT_LIMIT
    token_budget: int | None = None


@attrs.frozen
class SearchNodeResponse:
    """The matches in one node, best first; ``has_more`` when the limit or budget cut some."""

    matched: bool
    matches: tuple[SearchMatch, ...]
    node_id: str
    level: TocLevel
    has_more: bool = False


@attrs.frozen
class SearchChildrenRequest:
    """Search the children of ``parent_id``; an empty parent searches all nodes of
    ``child_level``."""

    query: str
    parent_id: str = ""
    child_level: TocLevel = attrs.field(default=TocLevel.YEAR, converter=_level)
    fields: tuple[SearchField, ...] = attrs.field(default=(), converter=_fields)
    limit: int = DEFAULT_LIMIT
    token_budget: int | None = None


@attrs.frozen
class SearchChildrenResponse:
    """Matching nodes by relevance; ``has_more`` when the limit or budget cut some."""

    results: tuple[SearchNodeResult, ...]
    has_more: bool


@attrs.frozen
class BrowseTocRequest:
    """One page of a node's children (or of the years, for an empty ``parent_id``)."""

    parent_id: str = ""
    limit: int = 20
    continuation_token: str | None = None


@attrs.frozen
class BrowseTocResponse:
    """A page of children; pass ``continuation_token`` back for the next page."""

    parent_id: str
    children: tuple[TocNode, ...]
    continuation_token: str | None
    has_more: bool


@attrs.frozen
class ExpandGripRequest:
    """The events behind a grip, with some context on either side."""

    grip_id: str
    events_before: int = 3
    events_after: int = 3


@attrs.frozen
class ExpandGripResponse:
    """A grip with the events before it, its own events, and the events after, in order."""

    grip: Grip
    events_before: tuple[Event, ...]
    excerpt_events: tuple[Event, ...]
    events_after: tuple[Event, ...]


@attrs.frozen
class ExpandEventRequest:
    """One raw event (as cited by navigator evidence), with some context on either side."""

    event_id: str
    events_before: int = 3
    events_after: int = 3


@attrs.frozen
class ExpandEventResponse:
    """An event with the events before and after it, in order."""

    event: Event
    events_before: tuple[Event, ...]
    events_after: tuple[Event, ...]


def _check_context(before: int, after: int) -> None:
    whole_number("events_before", before, 0)
    whole_number("events_after", after, 0)


def _check_query(query: str) -> None:
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument("query must not be empty")
    if not query_terms(query):
        raise InvalidArgument(
            f"query {query!r} has no term of three or more characters to search for"
        )


def _check_limit(limit: int) -> None:
    whole_number("limit", limit)


def _check_id(name: str, value: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{name} must not be empty")


class MemoryService:
    """The query API over a :class:`~tocsearch.storage.protocol.Storage`.

    Args:
        storage: where the tree, grips and events live.
        estimator: counts tokens for ``token_budget``; the default needs no tokenizer and
            over-estimates, so budgets are never overrun.
    """

    def __init__(self, storage: Storage, *, estimator: TokenEstimator = estimate_tokens) -> None:
        self.storage = storage
        self.estimator = estimator

    def search_node(self, request: SearchNodeRequest) -> SearchNodeResponse:
        """Search one node's fields.

        Raises:
            InvalidArgument: empty node id, empty query or one with no usable term, bad limit
                or budget.
            NodeNotFound: no such node.
        """
        started = time.perf_counter()
        _check_id("node_id", request.node_id)
        _check_query(request.query)
        _check_limit(request.limit)
        node = self.storage.get_node(request.node_id)
        matches = search_node(node, request.query, fields=request.fields)

        def build(kept: Sequence[SearchMatch], has_more: bool) -> SearchNodeResponse:
            return SearchNodeResponse(bool(kept), tuple(kept), node.node_id, node.level, has_more)

        response = fit_to_budget(
            matches[: request.limit],
            build,
            request.token_budget,
            self.estimator,
            has_more=len(matches) > request.limit,
        )
        self._log("search_node", request.query, len(response.matches), started)
        return response

    def search_children(self, request: SearchChildrenRequest) -> SearchChildrenResponse:
        """Search and rank the children of a node, or every node of a level.

        Raises:
            InvalidArgument: empty query or one with no usable term, bad limit or budget.
            NodeNotFound: ``parent_id`` is not empty and names no node.
        """
        started = time.perf_counter()
        _check_query(request.query)
        _check_limit(request.limit)
        if request.parent_id.strip():
            children = self.storage.get_child_nodes(request.parent_id)
        else:
            children = self.storage.get_nodes_by_level(request.child_level)
        ranked: SearchChildrenResult = rank_nodes(
            children, request.query, fields=request.fields, limit=request.limit
        )

        def build(kept: Sequence[SearchNodeResult], has_more: bool) -> SearchChildrenResponse:
            return SearchChildrenResponse(tuple(kept), has_more)

        response = fit_to_budget(
            ranked.results, build, request.token_budget, self.estimator, has_more=ranked.has_more
        )
        self._log("search_children", request.query, len(response.results), started)
        return response

    def get_toc_root(self) -> list[TocNode]:
        """The year nodes, oldest first."""
        return self.storage.get_toc_root()

    def get_node(self, node_id: str) -> TocNode:
        """One node by id.

        Raises:
            InvalidArgument: empty node id.
            NodeNotFound: no such node.
        """
        _check_id("node_id", node_id)
        return self.storage.get_node(node_id)

    def browse_toc(self, request: BrowseTocRequest) -> BrowseTocResponse:
        """A page of a node's children in time order, or of the years for an empty parent.

        Raises:
            InvalidArgument: bad limit, or a continuation token that is malformed or was issued
                for another parent.
            NodeNotFound: ``parent_id`` names no node.
        """
        _check_limit(request.limit)
        parent_id = request.parent_id.strip()
        offset = _read_token(request.continuation_token, parent_id)
        if parent_id:
            children = self.storage.get_child_nodes(parent_id)
        else:
            children = self.storage.get_toc_root()
        page = tuple(children[offset : offset + request.limit])
        following = offset + len(page)
        has_more = following < len(children)
        token = _make_token(parent_id, following) if has_more else None
        return BrowseTocResponse(parent_id, page, token, has_more)

    def expand_grip(self, request: ExpandGripRequest) -> ExpandGripResponse:
        """The events behind a grip, with up to ``events_before`` and ``events_after`` events of
        context in event (time) order, all of the grip's own conversation (project, session and
        subagent): another session's turns never pad the context.

        Raises:
            InvalidArgument: empty grip id or a negative context size.
            GripNotFound: no such grip.
        """
        _check_id("grip_id", request.grip_id)
        _check_context(request.events_before, request.events_after)
        grip = self.storage.get_grip(request.grip_id)
        own = conversation_events(self.storage, grip.event_id_start, grip.event_id_end)
        if not own:  # the grip's events are gone: there is nothing to take context around
            return ExpandGripResponse(
                grip=grip, events_before=(), excerpt_events=(), events_after=()
            )
        return ExpandGripResponse(
            grip=grip,
            events_before=tuple(
                conversation_neighbours(self.storage, own[0], request.events_before, before=True)
            ),
            excerpt_events=tuple(own),
            events_after=tuple(
                conversation_neighbours(self.storage, own[-1], request.events_after, before=False)
            ),
        )

    def expand_event(self, request: ExpandEventRequest) -> ExpandEventResponse:
        """One event with up to ``events_before`` and ``events_after`` events of context in
        event (time) order, all of the event's own conversation.

        Raises:
            InvalidArgument: empty event id or a negative context size.
            EventNotFound: no such event.
        """
        _check_id("event_id", request.event_id)
        _check_context(request.events_before, request.events_after)
        event = self.storage.get_event(request.event_id)
        return ExpandEventResponse(
            event=event,
            events_before=tuple(
                conversation_neighbours(self.storage, event, request.events_before, before=True)
            ),
            events_after=tuple(
                conversation_neighbours(self.storage, event, request.events_after, before=False)
            ),
        )

    @staticmethod
    def _log(operation: str, query: str, count: int, started: float) -> None:
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "%s query=%r results=%d in %.3f ms",
                operation,
                query,
                count,
                (time.perf_counter() - started) * 1000,
            )


def _make_token(parent_id: str, offset: int) -> str:
    raw = json.dumps({"parent": parent_id, "offset": offset}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _read_token(token: str | None, parent_id: str) -> int:
    if token is None or token == "":
        return 0
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = data["offset"]
        issued_for = data["parent"]
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise InvalidArgument(f"malformed continuation token: {token!r}") from None
    if not isinstance(offset, int) or offset < 0 or not isinstance(issued_for, str):
        raise InvalidArgument(f"malformed continuation token: {token!r}")
    if issued_for != parent_id:
        raise InvalidArgument(
            f"continuation token was issued for parent {issued_for!r}, not {parent_id!r}"
        )
    return offset
