"""The evidence a walk offers, best first: the ranked events of the grep, then statements from
the segments' summaries that cite events not yet offered. How many of them are returned is
decided by the token budget (:mod:`tocsearch.navigate._fit`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from tocsearch._conversation import opening_event
from tocsearch.models import TocNode, event_project
from tocsearch.navigate._book import EvidenceBook
from tocsearch.navigate._events import EventHit
from tocsearch.navigate.result import Evidence, EvidenceKind
from tocsearch.storage.protocol import Storage

__all__ = ["candidates"]


# Decimals of a score as returned: ranks are decided before, and every digit costs tokens.
_SCORE_DIGITS = 2


def _shown(score: float) -> float:
    return round(score, _SCORE_DIGITS)


class _Grips:
    """The grip ranges of segments and the events they cite, read once per navigation, the
    grips not yet known read together (:meth:`~tocsearch.storage.Storage.find_grips`).
    ``any_events`` says whether the store holds any event: when it holds none, no grip's
    range holds one, so :meth:`events_of` reads no grip (a tree loaded without its events
    would otherwise open a leaf of grips for every statement offered)."""

    def __init__(self, storage: Storage, *, any_events: bool = True) -> None:
        self.storage = storage
        self.any_events = any_events
        self.ranges: dict[str, tuple[str, str] | None] = {}

    def learn(self, grip_ids: Iterable[str]) -> None:
        """Read the ranges of those of ``grip_ids`` not read yet, in one batch."""
        wanted = [grip_id for grip_id in dict.fromkeys(grip_ids) if grip_id not in self.ranges]
        if not wanted:
            return
        found = self.storage.find_grips(wanted)
        for grip_id in wanted:
            grip = found.get(grip_id)
            self.ranges[grip_id] = (
                None if grip is None else (grip.event_id_start, grip.event_id_end)
            )

    def range_of(self, grip_id: str) -> tuple[str, str] | None:
        if grip_id not in self.ranges:
            self.learn((grip_id,))
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
        if not self.any_events:
            return ()
        found: set[str] = set()
        self.learn(grip_ids)
        for grip_id in grip_ids:
            span = self.range_of(grip_id)
            if span is not None:
                found.update(
                    event.event_id for event in self.storage.get_event_range(span[0], span[1])
                )
        return tuple(sorted(found))


class _Conversations:
    """The conversation (project and session) of each segment, read once per navigation;
    ``segments`` are those the walk read already (they are not read again)."""

    def __init__(self, storage: Storage, segments: Mapping[str, TocNode]) -> None:
        self.storage = storage
        self.segments = segments
        self.known: dict[str, tuple[str, str]] = {}

    def of(self, segment_id: str) -> tuple[str, str]:
        if segment_id not in self.known:
            first = opening_event(self.storage, segment_id, segment=self.segments.get(segment_id))
            self.known[segment_id] = (
                ("", "") if first is None else (event_project(first), first.session_id)
            )
        return self.known[segment_id]


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
        score=_shown(min(1.0, hit.score)),
        matched_terms=hit.matched,
        start_time=event.timestamp,
        end_time=event.timestamp,
        project=event_project(event),
        session_id=event.session_id,
    )


def candidates(
    storage: Storage,
    book: EvidenceBook,
    hits: Sequence[EventHit],
    limit: int,
    *,
    any_events: bool = True,
) -> list[Evidence]:
    """At most ``limit`` evidence items, best first: the ranked events, then the statements
    whose events are not among them. ``any_events`` False says the store holds no event
    (the statements then cite none, and no grip is read to find that out)."""
    grips = _Grips(storage, any_events=any_events)
    conversations = _Conversations(storage, book.segments)
    items: list[Evidence] = []
    cited: set[str] = set()
    shown: list[EventHit] = []
    for hit in hits:
        if len(shown) >= limit:
            break
        if hit.event.event_id not in cited:
            cited.add(hit.event.event_id)
            shown.append(hit)
    # The grips of every segment shown, in one read rather than one per grip.
    grips.learn(
        grip_id
        for segment in {hit.segment.node_id: hit.segment for hit in shown}.values()
        for bullet in segment.bullets
        for grip_id in bullet.grip_ids
    )
    items.extend(_event_evidence(hit, grips) for hit in shown)
    for statement in book.ranking():
        if len(items) >= limit:
            break
        events = grips.events_of(statement.grip_ids)
        if events and cited.issuperset(events):
            continue
        cited.update(events)
        project, session_id = conversations.of(statement.segment_id)
        items.append(
            attrs.evolve(
                statement,
                event_ids=events,
                score=_shown(statement.score),
                project=project,
                session_id=session_id,
            )
        )
    return items
