"""The last two moves of a topical walk: grep the events of the chosen segments, then return
the evidence within the budget.

The walk picks segments from summaries; the answer itself is in their events. :func:`grep`
reads the events of the best segments (and, when the walk's segments are too few, of the
other segments of the period, newest first, up to ``max_events``) and ranks them
(:func:`~tocsearch.navigate._events.rank_events`). It is one step of the path, and it is
charged like every search: a header and the matches it shows.

:func:`finish` then returns the best events first, followed by statements from the segments'
summaries that cite events not yet returned, each charged at its full text until the budget
or ``max_evidence`` runs out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import attrs

from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._events import (
    EventHit,
    PooledEvent,
    rank_events,
    segment_events,
    segment_priors,
)
from tocsearch.navigate._pages import newest_first
from tocsearch.navigate._walk import Walk
from tocsearch.navigate._weights import clip
from tocsearch.navigate.result import Evidence, EvidenceKind, NavigationStep, StepMatch, StepPhase
from tocsearch.navigate.timehints import TimeRange

__all__ = ["finish", "grep"]


def _candidates(walk: Walk, ranges: Sequence[TimeRange]) -> tuple[list[TocNode], Iterator[TocNode]]:
    """The walk's segments best first, then the period's other segments newest first (read
    from the store only as far as they are pulled)."""
    chosen = sorted(
        walk.segments.values(),
        key=lambda node: (
            -walk.segment_coverage.get(node.node_id, 0.0),
            -node.start_time.timestamp(),
            node.node_id,
        ),
    )
    picked = {node.node_id for node in chosen}
    rest = (node for node in newest_first(walk.storage, ranges) if node.node_id not in picked)
    return chosen, rest


def grep(walk: Walk, ranges: Sequence[TimeRange], *, max_events: int, where: str) -> None:
    """Rank the events of the walk's segments (then of the period's others, newest first)
    against the query, as one step; the ranked hits are kept on the walk."""
    # A walk stopped by the reading budget still greps: the reserve is kept for this step.
    if not walk.terms:
        return
    if walk.iterations >= walk.limits.max_iterations:
        walk.halt(f"stopped after max_iterations={walk.limits.max_iterations} searches")
        return
    # Without events there is nothing to grep (and no reason to page through the segments).
    if walk.storage.count_events() == 0:
        return
    chosen, rest = _candidates(walk, ranges)
    pool: list[PooledEvent] = []
    pooled: list[TocNode] = []
    taken: set[str] = set()
    from_walk = 0
    for segment in itertools.chain(chosen, rest):
        if len(pool) >= max_events:
            break
        events = [
            event for event in segment_events(walk.storage, segment) if event.event_id not in taken
        ]
        if not events:
            continue
        events = events[: max_events - len(pool)]
        pool.extend(PooledEvent(event, segment) for event in events)
        taken.update(event.event_id for event in events)
        pooled.append(segment)
        from_walk += segment.node_id in walk.segments
    if not pool:
        return
    scope = f"Events of {from_walk} matched segment{'s' if from_walk != 1 else ''}"
    if len(pooled) > from_walk:
        scope += f" and {len(pooled) - from_walk} more {where}, newest first"
    header = walk.meter.cost(f"{scope}: searched {len(pool)} events")
    # The leaf step and the evidence it finds draw on the reserve the walk left for them.
    if not walk.meter.can_return(header):
        walk.halt(f"token budget of {walk.meter.budget} exhausted")
        return
    walk.iterations += 1
    priors = segment_priors(pooled, walk.matcher, walk.terms)
    hits = rank_events(pool, walk.matcher, walk.terms, priors)
    shown: list[EventHit] = []
    cost = header
    for hit in hits[: walk.limits.width]:
        line = walk.meter.cost(f"{hit.event.event_id} {clip(hit.event.text)} 0.00")
        if not walk.meter.can_return(cost + line):
            break
        cost += line
        shown.append(hit)
    walk.meter.spend(cost)
    walk.hits = hits
    walk.steps.append(
        NavigationStep(
            number=len(walk.steps) + 1,
            phase=StepPhase.GREP,
            level=TocLevel.SEGMENT,
            scope=scope,
            parent_ids=tuple(segment.node_id for segment in pooled[:from_walk]),
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
            chosen=None,
            reason=(
                f"Returning the best of {len(hits)} matching events"
                if hits
                else "No event holds a term; returning the segments' statements"
            ),
        )
    )


class _Grips:
    """The grip ranges of segments and the events they cite, read once per navigation."""

    def __init__(self, walk: Walk) -> None:
        self.walk = walk
        self.ranges: dict[str, tuple[str, str] | None] = {}

    def range_of(self, grip_id: str) -> tuple[str, str] | None:
        if grip_id not in self.ranges:
            grip = self.walk.storage.find_grip(grip_id)
            self.ranges[grip_id] = (
                None if grip is None else (grip.event_id_start, grip.event_id_end)
            )
        return self.ranges[grip_id]

    def holding(self, segment: TocNode, event_id: str) -> tuple[str, ...]:
        """The grips of the segment's bullets whose range holds ``event_id``."""
        found: dict[str, None] = {}
        for bullet in segment.bullets:
            for grip_id in bullet.grip_ids:
                span = self.range_of(grip_id)
                if span is not None and span[0] <= event_id <= span[1]:
                    found.setdefault(grip_id, None)
        return tuple(found)

    def events_of(self, grip_ids: Sequence[str]) -> tuple[str, ...]:
        """The ids of the stored events in the grips' ranges, in id order."""
        found: set[str] = set()
        for grip_id in grip_ids:
            span = self.range_of(grip_id)
            if span is not None:
                found.update(
                    event.event_id for event in self.walk.storage.get_event_range(span[0], span[1])
                )
        return tuple(sorted(found))


def _event_evidence(hit: EventHit, grips: _Grips) -> Evidence:
    event = hit.event
    return Evidence(
        segment_id=hit.segment.node_id,
        segment_title=hit.segment.title,
        kind=EvidenceKind.EVENT,
        text=event.text,
        field=None,
        grip_ids=grips.holding(hit.segment, event.event_id),
        event_ids=(event.event_id,),
        score=round(min(1.0, hit.score), 6),
        matched_terms=hit.matched,
        start_time=event.timestamp,
        end_time=event.timestamp,
    )


def _cost_text(item: Evidence) -> str:
    """What returning an item shows: its segment, full text, grips and events."""
    refs = " ".join((*item.grip_ids, *item.event_ids))
    return f'{item.segment_id} "{item.text}" [{refs}] 0.00'


def finish(walk: Walk) -> tuple[Evidence, ...]:
    """The evidence to return, best first, charged to the budget: the ranked events, then the
    statements whose events are not among them, at most ``max_evidence`` items."""
    limit = walk.limits.max_evidence
    grips = _Grips(walk)
    items: list[Evidence] = []
    cited: set[str] = set()
    for hit in walk.hits:
        if len(items) >= limit:
            break
        if hit.event.event_id not in cited:
            cited.add(hit.event.event_id)
            items.append(_event_evidence(hit, grips))
    for statement in walk.bullet_ranking():
        if len(items) >= limit:
            break
        events = grips.events_of(statement.grip_ids)
        if events and cited.issuperset(events):
            continue
        cited.update(events)
        items.append(attrs.evolve(statement, event_ids=events))
    returned: list[Evidence] = []
    for item in items:
        cost = walk.meter.cost(_cost_text(item))
        if not walk.meter.can_return(cost):
            walk.halt(f"token budget of {walk.meter.budget} exhausted")
            break
        walk.meter.spend(cost)
        returned.append(item)
    return tuple(returned)
