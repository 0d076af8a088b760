"""Blending an index's ranking of events into the navigator's own.

The grep ranks events by the query's words (:mod:`tocsearch.navigate._events`). An
:class:`~tocsearch.navigate.seeder.EventSeeder` ranks them by what words miss: a vector index
finds "we always look forward to our family camping trip" for "what does she do with her
family?". The two rankings are fused by weighted Reciprocal Rank Fusion
(:func:`tocsearch._fusion.reciprocal_rank_fusion`): an event both rank well comes first, an
event only the words find keeps most of its place, and an event only the index finds enters
behind the events the words confirm rather than being dropped.

The navigator's own ranking weighs twice the index's, and the rank constant is small (20, not
the 60 of the index's hybrid search) so the head of each list counts: on the LoCoMo dev
questions, blended with all-MiniLM-L6-v2 vectors, this ordering of the events kept more gold
turns at every size of answer than the words alone or an even fusion (see
``benchmarks/RESULTS.md``). A full-text ranking is not blended: it ranks by the same words as
the grep and only repeats it.

The seeder is asked the question without the words that name a speaker of the events grepped
(:func:`seeder_query`): who said an event is settled by the speaker-first order of the blend,
while a name inside the question's vector draws it toward the turns that address that person
("Wow, Melanie!"), most of them said by someone else. On the LoCoMo dev questions the vectors
alone kept 0.611 of the gold turns within 1,000 tokens with the name and 0.692 without it.
"""

from __future__ import annotations

from collections.abc import Sequence

from tocsearch._fusion import reciprocal_rank_fusion
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._events import SPEAKER_KEY, EventHit, PooledEvent, speaker_terms
from tocsearch.navigate._teleport import seed_spans, seeded_segment
from tocsearch.navigate._walk import Walk, events_of
from tocsearch.navigate._weights import TermMatcher, TermWeights
from tocsearch.navigate.result import StepPhase
from tocsearch.navigate.seeder import EventSeeder
from tocsearch.navigate.timehints import TimeRange

__all__ = ["BLEND_K", "OWN_WEIGHT", "blend", "nearest_events", "seeder_query"]

BLEND_K = 20
"""The rank constant of the blend: smaller than the index's, so the head of each list counts."""
OWN_WEIGHT = 2.0
"""How much the navigator's ranking weighs against the seeder's (which weighs 1)."""


def _triples(entries: Sequence[object]) -> list[tuple[str, str, float]]:
    """The well-formed ``(event_id, segment_id, score)`` entries: an index is another
    library's code, so what it returns is checked, not trusted."""
    found: list[tuple[str, str, float]] = []
    for entry in entries:
        if not isinstance(entry, tuple) or len(entry) != 3:
            continue
        event_id, segment_id, score = entry
        if (
            isinstance(event_id, str)
            and isinstance(segment_id, str)
            and isinstance(score, (int, float))
            and not isinstance(score, bool)
        ):
            found.append((event_id, segment_id, float(score)))
    return found


def seeder_query(topic: str, hits: Sequence[EventHit], matcher: TermMatcher) -> str:
    """``topic`` without its words that name a speaker of ``hits`` (an event's ``speaker``
    metadata), possessives included; ``topic`` itself when no word names one or nothing
    else would be left.

    Runtime complexity: O(h + w) for h hits and w words of ``topic``.
    """
    named = frozenset().union(*speaker_terms((hit.event for hit in hits), matcher).values())
    if not named:
        return topic
    kept = [word for word in topic.split() if not matcher.present(word) & named]
    return " ".join(kept) if kept else topic


def nearest_events(
    walk: Walk,
    seeder: EventSeeder,
    query: str,
    ranges: Sequence[TimeRange],
    *,
    limit: int,
) -> list[PooledEvent]:
    """The stored events ``seeder`` ranks best for ``query`` within ``ranges``, best first,
    each with its segment; at most ``limit``. An entry naming no stored event of a stored
    segment in the period is dropped; a seeder that fails is noted in the path and gives
    nothing."""
    scored: dict[tuple[str, str], float] = {}
    try:
        for start, end in seed_spans(ranges):
            entries: Sequence[object] = seeder.seed_events(query, limit=limit, start=start, end=end)
            for event_id, segment_id, score in _triples(entries):
                key = (event_id, segment_id)
                scored[key] = max(score, scored.get(key, float("-inf")))
    except Exception as error:  # an index failing must not take the navigation down
        walk.trail.note(
            phase=StepPhase.TELEPORT,
            level=TocLevel.SEGMENT,
            scope=f"Seeder {seeder.name}",
            reason=f"Ranking events failed ({type(error).__name__}: {error}); "
            "the words alone rank them",
        )
        return []
    ranked = sorted(scored, key=lambda key: -scored[key])[:limit]
    segments: dict[str, TocNode | None] = {}
    found: list[PooledEvent] = []
    for event_id, segment_id in ranked:
        if segment_id not in segments:
            segments[segment_id] = seeded_segment(walk, segment_id, ranges)
        segment = segments[segment_id]
        if segment is None:
            continue
        event = next((e for e in events_of(walk, segment) if e.event_id == event_id), None)
        if event is not None:
            found.append(PooledEvent(event, segment))
    return found


def blend(hits: Sequence[EventHit], nearest: Sequence[PooledEvent], walk: Walk) -> list[EventHit]:
    """``hits`` (the grep's ranking) and ``nearest`` (the seeder's) fused into one ranking,
    best first; each event once. When a query term names a speaker (an event's ``speaker``
    metadata), the seeder's events said by a speaker it names go before the others, in the
    seeder's order. An event only the seeder found keeps the terms its text holds, and scores
    the weighted share of them."""
    if not nearest:
        return list(hits)
    lens = walk.lens
    named = speaker_terms((item.event for item in nearest), lens.matcher)
    if named:
        # A question that names a speaker asks what they said, as the grep weighs it: the
        # seeder's events said by someone else follow those said by a speaker it names.
        nearest = sorted(
            nearest, key=lambda item: not named.get(item.event.metadata.get(SPEAKER_KEY, ""))
        )
    by_id: dict[str, EventHit] = {hit.event.event_id: hit for hit in hits}
    added = 0
    for item in nearest:
        if item.event.event_id not in by_id:
            held = lens.matcher.present(item.event.text)
            share = TermWeights(lens.terms, [held]).share(held)
            by_id[item.event.event_id] = EventHit(
                item.event, item.segment, lens.ordered(held), share, share
            )
            added += 1
    fused = reciprocal_rank_fusion(
        [hit.event.event_id for hit in hits],
        [item.event.event_id for item in nearest],
        k=BLEND_K,
        weights=(OWN_WEIGHT, 1.0),
    )
    steps = walk.trail.steps
    if steps and steps[-1].phase is StepPhase.GREP:
        walk.trail.annotate(
            f"{steps[-1].reason}; blended with the {len(nearest)} events the seeder ranks "
            f"nearest ({added} not among the grep's)",
            steps[-1].chosen,
        )
    return [by_id[event_id] for event_id, _ in fused]
