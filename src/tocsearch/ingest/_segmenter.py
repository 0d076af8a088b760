"""Cutting the global event stream into segments.

Events are taken in event-id order, which is time order across every session, and each
conversation (its project, session and subagent: :func:`tocsearch.models.conversation_key`) is
cut on its own: a segment never holds two sessions or two projects, however their events
interleave in time. Within a conversation a new segment starts

* after a silence longer than ``segment_gap``,
* before the event that would take the segment past ``max_segment_tokens``, and
* at midnight UTC, so that every segment lies inside one day.

Every break resets the state, so the segments of a day depend on that day's events only: a
late event re-segments its own day and nothing else. The tail of the conversation's previous
segment (the events within ``overlap_window`` of its last event, at most ``overlap_max_tokens``)
is carried as overlap context; across midnight that tail comes from the previous day's last
segment, when that segment is of the same conversation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import date

import attrs

from tocsearch.ids import segment_id
from tocsearch.ingest._config import BuildConfig
from tocsearch.models import Event, conversation_key, is_tool_result
from tocsearch.text import TokenEstimator

__all__ = [
    "SegmentPlan",
    "counted_text",
    "event_tokens",
    "last_segment",
    "overlap_tail",
    "plan_segments",
    "plan_with_tail",
    "segment_node_id",
    "split_events",
]


@attrs.frozen
class SegmentPlan:
    """One segment to build: its id, the events it owns and the overlap it carries."""

    node_id: str
    day: date
    events: tuple[Event, ...]
    overlap_event_ids: tuple[str, ...] = ()

    @property
    def event_ids(self) -> tuple[str, ...]:
        """The owned event ids, in order."""
        return tuple(event.event_id for event in self.events)


def counted_text(event: Event, config: BuildConfig) -> str:
    """The text of an event as segmentation counts it: tool results are cut."""
    if is_tool_result(event) and len(event.text) > config.tool_result_cut:
        return event.text[: config.tool_result_cut]
    return event.text


def event_tokens(event: Event, config: BuildConfig, estimator: TokenEstimator) -> int:
    """The token cost of one event under ``config``."""
    return estimator(counted_text(event, config))


def segment_node_id(first: Event) -> str:
    """The id of the segment whose first owned event is ``first``:
    ``toc:segment:<day>:<HHMMSS>-<10 hex digits of the event id's BLAKE2b hash>``.

    Segment ids are a function of that one event, so the same events give the same ids
    whatever order they arrived in.
    """
    when = first.timestamp
    digest = hashlib.blake2b(first.event_id.encode("utf-8"), digest_size=5).hexdigest()
    return segment_id(when.date(), f"{when:%H%M%S}-{digest}")


def split_events(
    events: Sequence[Event], config: BuildConfig, estimator: TokenEstimator
) -> list[list[Event]]:
    """The events (in id order) cut into segments, each of one conversation, by gap, token limit
    and midnight UTC; the segments come in the order of their first events.

    Runtime complexity: O(n) estimator calls, plus O(s log s) to order the s segments.
    """
    return [segment for segment, _ in _cut(events, config, estimator)]


def _cut(
    events: Sequence[Event], config: BuildConfig, estimator: TokenEstimator
) -> list[tuple[list[Event], list[int]]]:
    """:func:`split_events`, each segment with its events' token costs (which its overlap
    tail counts again)."""
    # One open segment per conversation: interleaved sessions are cut independently.
    open_segments: dict[tuple[str, str, str], tuple[list[Event], list[int], int]] = {}
    segments: list[tuple[list[Event], list[int]]] = []
    gap = config.segment_gap
    limit = config.max_segment_tokens
    for event in events:
        cost = event_tokens(event, config, estimator)
        key = conversation_key(event)
        current = open_segments.get(key)
        if current is not None:
            segment, costs, tokens = current
            previous = segment[-1]
            if (
                event.timestamp - previous.timestamp > gap
                or tokens + cost > limit
                or event.timestamp.date() != previous.timestamp.date()
            ):
                current = None
        if current is None:
            segment, costs, tokens = [], [], 0
            segments.append((segment, costs))
        segment.append(event)
        costs.append(cost)
        open_segments[key] = (segment, costs, tokens + cost)
    # Segments were opened in the order of their first events, which is id order.
    return segments


def last_segment(segments: Sequence[Sequence[Event]]) -> Sequence[Event]:
    """Of segments cut from one run of events, the one that holds the run's last event."""
    return max(segments, key=lambda segment: segment[-1].event_id)


def overlap_tail(
    segment: Sequence[Event], config: BuildConfig, estimator: TokenEstimator
) -> tuple[str, ...]:
    """The ids of the segment's last events that fit the overlap window and token budget,
    in order. The newest event comes first in the budget: an event that does not fit ends
    the tail."""
    return _tail(segment, [event_tokens(event, config, estimator) for event in segment], config)


def _tail(segment: Sequence[Event], costs: Sequence[int], config: BuildConfig) -> tuple[str, ...]:
    """:func:`overlap_tail` of a segment whose events cost ``costs`` tokens."""
    if not segment:
        return ()
    newest = segment[-1].timestamp
    since = newest - config.overlap_window
    kept: list[str] = []
    tokens = 0
    for event, cost in zip(reversed(segment), reversed(costs), strict=True):
        if event.timestamp < since:
            break
        tokens += cost
        if tokens > config.overlap_max_tokens:
            break
        kept.append(event.event_id)
    kept.reverse()
    return tuple(kept)


def plan_segments(
    events: Sequence[Event],
    config: BuildConfig,
    estimator: TokenEstimator,
    previous_tail: tuple[str, ...] = (),
    previous_key: tuple[str, str, str] | None = None,
) -> list[SegmentPlan]:
    """The segments of a run of events in id order (usually one day's), with overlap.

    Args:
        previous_tail: the overlap carried into these events, i.e. the tail of the segment just
            before them (see :func:`overlap_tail`).
        previous_key: the conversation of that segment; its tail goes to the first segment of
            the same conversation only.
    """
    return plan_with_tail(events, config, estimator, previous_tail, previous_key)[0]


def plan_with_tail(
    events: Sequence[Event],
    config: BuildConfig,
    estimator: TokenEstimator,
    previous_tail: tuple[str, ...] = (),
    previous_key: tuple[str, str, str] | None = None,
) -> tuple[list[SegmentPlan], tuple[str, ...], tuple[str, str, str] | None]:
    """:func:`plan_segments`, with the overlap the next run carries in from these events:
    the :func:`overlap_tail` of their :func:`last_segment` and its conversation (``()`` and
    None for no events), from the token costs counted here instead of counted again."""
    plans: list[SegmentPlan] = []
    tails: dict[tuple[str, str, str], tuple[str, ...]] = {}
    if previous_key is not None and previous_tail:
        tails[previous_key] = previous_tail
    last_tail: tuple[str, ...] = ()
    last_key: tuple[str, str, str] | None = None
    last_id = events[-1].event_id if events else None
    for owned, costs in _cut(events, config, estimator):
        first = owned[0]
        key = conversation_key(first)
        plans.append(
            SegmentPlan(
                segment_node_id(first), first.timestamp.date(), tuple(owned), tails.get(key, ())
            )
        )
        tails[key] = _tail(owned, costs, config)
        if owned[-1].event_id == last_id:
            # Events come in id order: the segment that holds the last one is the last
            # segment, as last_segment picks it.
            last_tail, last_key = tails[key], key
    return plans, last_tail, last_key
