"""MemoryService: the SearchNode / SearchChildren / browse / ExpandGrip / navigate API as
plain records.

The request records (:mod:`tocsearch.requests`, re-exported here) and the response records mirror
the service messages of the original design, so an RPC layer can map them one to one.
Differences: requests check their own limits and budgets instead of silently defaulting them,
and ``token_budget`` is honoured — the response's estimated size never exceeds it.
"""

from __future__ import annotations

import base64
import binascii
import inspect
import json
import logging
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import attrs

from tocsearch._checks import in_utc
from tocsearch._conversation import opening_event
from tocsearch._json_text import read_json
from tocsearch._neighbours import conversation_events, conversation_neighbours
from tocsearch._scope import Scope
from tocsearch.budget import fit_to_budget
from tocsearch.errors import InvalidArgument
from tocsearch.index import IndexingStorage, IndexSeeder, SearchIndex, SearchOutcome
from tocsearch.index._search import run_search
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode, event_project
from tocsearch.navigate import NavigationResult, Navigator
from tocsearch.navigate.timehints import TimeRange
from tocsearch.privacy import (
    ForgetReport,
    ForgetRequest,
    RedactReport,
    RedactRequest,
    forget_events,
    redact_events,
)
from tocsearch.requests import (
    BrowseTocRequest,
    ExpandEventRequest,
    ExpandGripRequest,
    ExpandRequest,
    MemorySearchRequest,
    NavigateRequest,
    SearchChildrenRequest,
    SearchNodeRequest,
)
from tocsearch.search import (
    SearchChildrenResult,
    SearchMatch,
    SearchNodeResult,
    rank_nodes,
    search_node,
)
from tocsearch.storage.protocol import Storage
from tocsearch.text import TokenEstimator, estimate_tokens

__all__ = [
    "BrowseTocRequest",
    "BrowseTocResponse",
    "ExpandEventRequest",
    "ExpandEventResponse",
    "ExpandGripRequest",
    "ExpandGripResponse",
    "ExpandRequest",
    "ForgetReport",
    "ForgetRequest",
    "MemoryService",
    "NavigateRequest",
    "RedactReport",
    "RedactRequest",
    "SearchChildrenRequest",
    "SearchChildrenResponse",
    "SearchNodeRequest",
    "SearchNodeResponse",
]

logger = logging.getLogger("tocsearch")


@attrs.frozen
class SearchNodeResponse:
    """The matches in one node, best first; ``has_more`` when the limit or budget cut some."""

    matched: bool
    matches: tuple[SearchMatch, ...]
    node_id: str
    level: TocLevel
    has_more: bool = False


@attrs.frozen
class SearchChildrenResponse:
    """Matching nodes by relevance; ``has_more`` when the limit or budget cut some."""

    results: tuple[SearchNodeResult, ...]
    has_more: bool


@attrs.frozen
class BrowseTocResponse:
    """A page of children; pass ``continuation_token`` back for the next page."""

    parent_id: str
    children: tuple[TocNode, ...]
    continuation_token: str | None
    has_more: bool


@attrs.frozen
class ExpandGripResponse:
    """A grip with the events before it, its own events, and the events after, in order."""

    grip: Grip
    events_before: tuple[Event, ...]
    excerpt_events: tuple[Event, ...]
    events_after: tuple[Event, ...]


@attrs.frozen
class ExpandEventResponse:
    """An event with the events before and after it, in order."""

    event: Event
    events_before: tuple[Event, ...]
    events_after: tuple[Event, ...]


class MemoryService:
    """The query API over a :class:`~tocsearch.storage.protocol.Storage`.

    Args:
        storage: where the tree, grips and events live.
        estimator: counts tokens for ``token_budget``; the default needs no tokenizer and
            over-estimates, so budgets are never overrun.
        now: the moment :meth:`navigate` reads time hints against, timezone-aware; None means
            the current time at each call.
        index: the store's search index: :meth:`memory_search` ranks through it and
            :meth:`navigate` teleports to the segments it names; None leaves both index-free.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        estimator: TokenEstimator = estimate_tokens,
        now: datetime | None = None,
        index: SearchIndex | None = None,
    ) -> None:
        self.storage = storage
        self.estimator = estimator
        self.index = index
        if now is not None:
            in_utc(now, "now")  # refuses a naive time; the zone itself says whose days to read
        self.now = now

    def search_node(self, request: SearchNodeRequest) -> SearchNodeResponse:
        """Search one node's fields.

        Raises:
            InvalidArgument: empty node id, empty query or one with no usable term, bad limit
                or budget.
            NodeNotFound: no such node.
        """
        started = time.perf_counter()
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
        if request.parent_id.strip():
            children = self.storage.get_child_nodes(request.parent_id)
            window = _window(request.since, request.until)
            if window is not None:
                children = [
                    node for node in children if window.overlaps(node.start_time, node.end_time)
                ]
        else:
            children = self.storage.get_nodes_by_level(
                request.child_level, request.since, request.until
            )
        scope = Scope(request.project, request.session)
        if scope:
            children = [node for node in children if _in_scope(node, scope, self.storage)]
        ranked: SearchChildrenResult = rank_nodes(
            children, request.query, fields=request.fields, limit=request.limit
        )
        ranked = attrs.evolve(ranked, results=_said_in(ranked.results, self.storage))

        def build(kept: Sequence[SearchNodeResult], has_more: bool) -> SearchChildrenResponse:
            return SearchChildrenResponse(tuple(kept), has_more)

        response = fit_to_budget(
            ranked.results, build, request.token_budget, self.estimator, has_more=ranked.has_more
        )
        self._log("search_children", request.query, len(response.results), started)
        return response

    def navigate(self, request: NavigateRequest) -> NavigationResult:
        """Answer a question with cited evidence, by the :class:`~tocsearch.navigate.Navigator`.

        With ``since``/``until`` only evidence from that window is returned, and with
        ``project``/``session`` only evidence said in those conversations: the walk is asked
        for more evidence than ``limit`` so that a filter does not starve the answer, then the
        items outside are dropped and the first ``limit`` kept.

        Raises:
            InvalidArgument: a time hint or window the navigator cannot read.
        """
        started = time.perf_counter()
        window = _window(request.since, request.until)
        scope = Scope(request.project, request.session)
        if window is not None or scope:
            offered = max(request.limit or 0, _WINDOW_EVIDENCE)
        else:
            offered = request.limit if request.limit is not None else _DEFAULT_EVIDENCE
        navigator = Navigator(
            self.storage,
            now=self.now,
            token_budget=request.token_budget,
            estimator=self.estimator,
            max_evidence=offered,
            seeder=None if self.index is None else IndexSeeder(self.index),
        )
        result = navigator.navigate(request.query, full_path=request.full_path)
        evidence = result.evidence
        if window is not None:
            evidence = tuple(
                item for item in evidence if window.overlaps(item.start_time, item.end_time)
            )
        if scope:
            said_in_scope = scope.first_event_test(self.storage)
            evidence = tuple(item for item in evidence if said_in_scope(item.event_ids))
        if request.limit is not None:
            evidence = evidence[: request.limit]
        if evidence != result.evidence:
            result = attrs.evolve(result, evidence=evidence)
        self._log("navigate", request.query, len(result.evidence), started)
        return result

    def memory_search(self, request: MemorySearchRequest) -> SearchOutcome:
        """The segments that best match ``request.query``, through the search index when there
        is one (synced first), else the navigator; ``mode_used`` and ``note`` say which."""
        started = time.perf_counter()
        options: dict[str, Any] = {
            "limit": request.limit,
            "start": request.since,
            "end": request.until,
        }
        if self.index is not None:
            outcome = self.index.search(request.query, **options)
        else:
            outcome = run_search(self.storage, None, request.query, **options)
        self._log("memory_search", request.query, len(outcome.hits), started)
        return outcome

    def get_toc_root(self) -> list[TocNode]:
        """The year nodes, oldest first."""
        return self.storage.get_toc_root()

    def get_node(self, node_id: str) -> TocNode:
        """One node by id.

        Raises:
            InvalidArgument: empty node id.
            NodeNotFound: no such node.
        """
        if not isinstance(node_id, str) or not node_id.strip():
            raise InvalidArgument("node_id must not be empty")
        return self.storage.get_node(node_id)

    def browse_toc(self, request: BrowseTocRequest) -> BrowseTocResponse:
        """A page of a node's children in time order, or of the years for an empty parent.

        Raises:
            InvalidArgument: bad limit, or a continuation token that is malformed or was issued
                for another parent.
            NodeNotFound: ``parent_id`` names no node.
        """
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
        event = self.storage.get_event(request.full_event_id())
        return ExpandEventResponse(
            event=event,
            events_before=tuple(
                conversation_neighbours(self.storage, event, request.events_before, before=True)
            ),
            events_after=tuple(
                conversation_neighbours(self.storage, event, request.events_after, before=False)
            ),
        )

    def expand(self, request: ExpandRequest) -> ExpandGripResponse | ExpandEventResponse:
        """:meth:`expand_event` for an event id (``evt:...``) or a reference with its ``ids``
        pattern, else :meth:`expand_grip`.

        Raises:
            GripNotFound, EventNotFound: no such grip or event.
        """
        if request.is_event():
            return self.expand_event(request.as_event())
        return self.expand_grip(request.as_grip())

    def forget(self, request: ForgetRequest) -> ForgetReport:
        """Remove the events ``request`` selects and rebuild what derived from them, in the
        store and its index (see :func:`tocsearch.privacy.forget_events`)."""
        return forget_events(self._writer(), request)

    def redact(self, request: RedactRequest) -> RedactReport:
        """Replace the matches of ``request.pattern`` in the stored events and rebuild what
        derived from them, in the store and its index (see
        :func:`tocsearch.privacy.redact_events`)."""
        return redact_events(self._writer(), request)

    def _writer(self) -> Storage:
        """The store, writing through to the index when the service has one."""
        return self.storage if self.index is None else IndexingStorage(self.index)

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


# Evidence asked of the walk when a time window will filter it, so the window keeps enough.
_WINDOW_EVIDENCE = 100
# What the navigator offers when the request sets no limit: its own default.
_DEFAULT_EVIDENCE: int = inspect.signature(Navigator).parameters["max_evidence"].default


def _in_scope(node: TocNode, scope: Scope, storage: Storage) -> bool:
    """Whether a searched node belongs to the scope: a segment by its conversation; a day or a
    longer period when one of its segments does."""
    if node.level is TocLevel.SEGMENT:
        return scope.keeps_segment(storage)(node)
    return any(_in_scope(child, scope, storage) for child in storage.get_child_nodes(node.node_id))


def _said_in(results: Sequence[SearchNodeResult], storage: Storage) -> tuple[SearchNodeResult, ...]:
    """``results`` with each segment's conversation (project and session) named."""
    named: list[SearchNodeResult] = []
    for result in results:
        event = opening_event(storage, result.node_id) if result.level is TocLevel.SEGMENT else None
        if event is not None:
            result = attrs.evolve(result, project=event_project(event), session_id=event.session_id)
        named.append(result)
    return tuple(named)


def _window(since: datetime | None, until: datetime | None) -> TimeRange | None:
    """The half-open window ``[since, until)``; an open side reaches the ends of time."""
    if since is None and until is None:
        return None
    return TimeRange(
        since if since is not None else datetime.min.replace(tzinfo=timezone.utc),
        until if until is not None else datetime.max.replace(tzinfo=timezone.utc),
    )


def _make_token(parent_id: str, offset: int) -> str:
    raw = json.dumps({"parent": parent_id, "offset": offset}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _read_token(token: str | None, parent_id: str) -> int:
    if token is None or token == "":
        return 0
    try:
        padded = token + "=" * (-len(token) % 4)
        data = read_json(base64.urlsafe_b64decode(padded.encode()))
        offset = data["offset"]
        issued_for = data["parent"]
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise InvalidArgument(f"malformed continuation token: {token!r}") from None
    # A bool is an int to isinstance: "offset": true would page from 1.
    if type(offset) is not int or offset < 0 or not isinstance(issued_for, str):
        raise InvalidArgument(f"malformed continuation token: {token!r}")
    if issued_for != parent_id:
        raise InvalidArgument(
            f"continuation token was issued for parent {issued_for!r}, not {parent_id!r}"
        )
    return offset
