"""The leaf step of a topical walk: grep the raw events of the segments that may hold the
terms, and rank them (:func:`~tocsearch.navigate._events.rank_events`).

The walk picks segments from summaries; the answer itself is in their events. The grep reads
events segment by segment, up to ``max_events``, in this order:

1. the segments a seeder teleported to (when the navigator has one), best first;
2. the segments the walk collected, best coverage first;
3. the segments of the period whose digests may hold the terms, those that may hold the most
   terms first, newest first among them (:class:`~tocsearch.navigate._route.DigestRoute`);
4. only when the period's digests are unknown (a store built before digests): the period's
   other segments, newest first.

A segment whose digest rules every term out holds no event with a term, so with digests the
grep never reads undirected: a term said once in one turn of a long history is found in the
few segments whose digests point at it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._events import (
    EventHit,
    PooledEvent,
    rank_events,
    segment_priors,
)
from tocsearch.navigate._pages import newest_first
from tocsearch.navigate._route import DigestRoute
from tocsearch.navigate._walk import Walk, events_of, holds_events
from tocsearch.navigate._weights import clip
from tocsearch.navigate.result import StepMatch, StepPhase
from tocsearch.navigate.timehints import TimeRange

__all__ = ["grep"]


def _candidates(
    walk: Walk, ranges: Sequence[TimeRange], seeded: Sequence[TocNode], *, beyond: bool
) -> tuple[list[TocNode], Iterator[TocNode], bool]:
    """The seeded and collected segments, then (``beyond``) the others in reading order, and
    whether that order is guided by digests."""
    chosen: dict[str, TocNode] = {node.node_id: node for node in seeded}
    for node in walk.book.segments_best_first():
        chosen.setdefault(node.node_id, node)
    if not beyond:
        return list(chosen.values()), iter(()), False
    route = DigestRoute(walk.storage, walk.lens, ranges, walk.children, walk.skeleton)
    years = route.years()
    rest: Iterator[TocNode]
    if years is not None:
        rest = (node for batch in route.segments(years, lambda need: True) for node in batch)
    else:
        rest = newest_first(walk.storage, ranges)
    return (
        list(chosen.values()),
        (node for node in rest if node.node_id not in chosen),
        (years is not None),
    )


def grep(
    walk: Walk,
    ranges: Sequence[TimeRange],
    *,
    where: str,
    seeded: Sequence[TocNode] = (),
    beyond: bool = True,
) -> list[EventHit]:
    """Rank the events of the candidate segments against the query, as one step; returns
    the ranked hits (none when there is nothing to grep or no search is left). Without
    ``beyond`` only the seeded and collected segments are read."""
    trail, lens = walk.trail, walk.lens
    if not lens.terms or not holds_events(walk):
        return []
    if trail.iterations >= trail.limits.max_iterations:
        trail.halt(f"stopped after max_iterations={trail.limits.max_iterations} searches")
        return []
    max_events = trail.limits.max_events
    chosen, rest, guided = _candidates(walk, ranges, seeded, beyond=beyond)
    picked = {node.node_id for node in chosen}
    pool: list[PooledEvent] = []
    pooled: list[TocNode] = []
    taken: set[str] = set()
    from_walk = 0
    for segment in itertools.chain(chosen, rest):
        if len(pool) >= max_events:
            break
        events = [event for event in events_of(walk, segment) if event.event_id not in taken]
        if not events:
            continue
        events = events[: max_events - len(pool)]
        pool.extend(PooledEvent(event, segment) for event in events)
        taken.update(event.event_id for event in events)
        pooled.append(segment)
        from_walk += segment.node_id in picked
    if not pool or not trail.begin(final=True):
        return []
    trail.charge(events=len(pool))
    if len(pool) >= max_events:
        trail.halt(f"stopped after reading max_events={max_events} events")
    how = "whose digests may hold the terms" if guided else "newest first"
    kind = "matched" if beyond else "teleported"
    scope = f"Events of {from_walk} {kind} segment{'s' if from_walk != 1 else ''}"
    if len(pooled) > from_walk:
        scope += f" and {len(pooled) - from_walk} more {where} {how}"
    priors = segment_priors(pooled, lens.matcher, lens.terms)
    hits = rank_events(pool, lens.matcher, lens.terms, priors)
    shown = hits[: trail.limits.width]
    trail.record_step(
        phase=StepPhase.GREP,
        level=TocLevel.SEGMENT,
        scope=scope,
        parent_ids=tuple(segment.node_id for segment in pooled if segment.node_id in picked),
        searched=len(pool),
        matched=len(hits),
        matches=tuple(
            StepMatch(
                hit.segment.node_id,
                hit.segment.title,
                round(hit.share, 6),
                None,
                clip(hit.event.text),
                hit.event.event_id,
            )
            for hit in shown
        ),
        reason=(
            f"Returning the best of {len(hits)} matching events"
            if hits
            else "No event holds a term; returning the segments' statements"
        ),
    )
    return hits
