"""The leaf of the walk: the raw events of chosen segments, ranked against the query.

Summaries keep a few bullets per segment, so most of what was said lives only in the events.
After the walk has picked its segments, their events are read and ranked like lines found by
grep, with three signals:

- **the event itself**: each term it holds weighs by how rare the term is among the events
  compared (:class:`~tocsearch.navigate._weights.TermWeights`), and repeats of a term count
  with diminishing returns, relative to the event's length (the saturation of BM25);
- **its neighbours**: a turn next to a strong match is often the other half of an exchange
  (the question before an answer, the answer after a question);
- **its segment**: how well the segment's own summary matches, as a prior.

Everything is computed on the fly from the events at hand: no index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from tocsearch.models import Event, TocNode
from tocsearch.navigate._weights import TermMatcher, TermWeights
from tocsearch.storage.protocol import Storage

__all__ = ["EventHit", "PooledEvent", "rank_events", "segment_events", "segment_priors"]

# BM25's term-frequency saturation and length normalisation.
_K1 = 1.2
_B = 0.75
# How much a neighbour's match and the segment's relevance add to an event's own match.
_NEIGHBOUR = 0.35
_PRIOR = 0.25
# How far back a match still lends an event context, and how fast that fades per turn.
_LOOK_BACK = 6
# The best hits whose following turns are moved up behind them, and how many turns follow.
_REPLIED_HITS = 2
_REPLIES = 3
_FADE = 0.85


@attrs.frozen
class PooledEvent:
    """An event to rank and the segment it was read from."""

    event: Event
    segment: TocNode


@attrs.frozen
class EventHit:
    """A ranked event: the terms it holds, its own weighted match and its final score.

    ``share`` is the weighted share of the query terms in the event's text, in [0, 1];
    ``score`` adds the context (neighbours, segment) and is what events are ranked by.
    """

    event: Event
    segment: TocNode
    matched: tuple[str, ...]
    share: float
    score: float


def segment_events(storage: Storage, segment: TocNode) -> list[Event]:
    """The stored events a segment owns, in id (time) order; none when it names no event.

    Runtime complexity: one range read over the segment's span.
    """
    wanted = set(segment.event_ids)
    if not wanted:
        return []
    events = storage.get_event_range(min(wanted), max(wanted))
    return [event for event in events if event.event_id in wanted]


def _segment_text(segment: TocNode) -> str:
    bullets = " ".join(bullet.text for bullet in segment.bullets)
    return " ".join((segment.title, segment.summary or "", bullets, " ".join(segment.keywords)))


def segment_priors(
    segments: Sequence[TocNode], matcher: TermMatcher, terms: Sequence[str]
) -> dict[str, float]:
    """Each segment's weighted share of the terms in its title, summary, bullets and keywords,
    with terms weighed among these segments."""
    present = {segment.node_id: matcher.present(_segment_text(segment)) for segment in segments}
    weights = TermWeights(terms, present.values())
    return {node_id: weights.share(held) for node_id, held in present.items()}


def _context(pool: Sequence[PooledEvent], own: Sequence[float], index: int) -> float:
    """The strongest match near an event in the same session: the turn just after it, or one of
    the turns before it, fading with distance (an answer may come a few turns after the
    question that names the topic)."""
    session = pool[index].event.session_id
    segment = pool[index].segment.node_id

    def same(other: int) -> bool:
        return (
            0 <= other < len(pool)
            and pool[other].event.session_id == session
            and pool[other].segment.node_id == segment
        )

    best = own[index + 1] * _FADE if same(index + 1) else 0.0
    for distance in range(1, _LOOK_BACK + 1):
        if not same(index - distance):
            break
        best = max(best, own[index - distance] * _FADE ** (distance - 1))
    return best


def rank_events(
    pool: Sequence[PooledEvent],
    matcher: TermMatcher,
    terms: Sequence[str],
    priors: Mapping[str, float],
) -> list[EventHit]:
    """The events of ``pool`` that hold a term or sit next to one that does, best first.

    ``pool`` must list each segment's events together and in time order, so neighbours are
    adjacent. Ties go to the newest event.

    Runtime complexity: O(c) for c characters of event text, plus a sort of the hits.
    """
    if not pool or not terms:
        return []
    counts = [matcher.counts(item.event.text) for item in pool]
    lengths = [max(1, len(item.event.text.split())) for item in pool]
    average = sum(lengths) / len(lengths)
    weights = TermWeights(terms, (found.keys() for found in counts))
    own: list[float] = []
    for found, length in zip(counts, lengths, strict=True):
        norm = _K1 * (1.0 - _B + _B * length / average)
        total = sum(
            weights.weight[term] * count * (_K1 + 1.0) / (count + norm)
            for term, count in found.items()
        )
        own.append(total / weights.total if weights.total > 0.0 else 0.0)
    hits: list[EventHit] = []
    for index, item in enumerate(pool):
        neighbour = _context(pool, own, index)
        if own[index] <= 0.0 and neighbour <= 0.0:
            continue
        score = own[index] + _NEIGHBOUR * neighbour + _PRIOR * priors.get(item.segment.node_id, 0.0)
        matched = tuple(term for term in terms if term in counts[index])
        hits.append(EventHit(item.event, item.segment, matched, weights.share(matched), score))
    hits.sort(key=lambda hit: (-hit.score, -hit.event.timestamp.timestamp(), hit.event.event_id))
    return _with_replies(hits, pool)


def _with_replies(hits: list[EventHit], pool: Sequence[PooledEvent]) -> list[EventHit]:
    """The ranking with the turns that follow each of the best few hits (in the same session
    and segment) moved up right behind it: what comes after the line that names the topic is
    where its answer usually is, as grep's "after context" shows."""
    position = {item.event.event_id: index for index, item in enumerate(pool)}
    by_id = {hit.event.event_id: hit for hit in hits}
    ordered: dict[str, EventHit] = {}
    for rank, hit in enumerate(hits):
        ordered.setdefault(hit.event.event_id, hit)
        if rank >= _REPLIED_HITS:
            continue
        start = position[hit.event.event_id]
        for offset in range(1, _REPLIES + 1):
            after = start + offset
            if after >= len(pool):
                break
            follower = pool[after]
            if (
                follower.event.session_id != hit.event.session_id
                or follower.segment.node_id != hit.segment.node_id
            ):
                break
            found = by_id.get(follower.event.event_id)
            if found is not None:
                ordered.setdefault(found.event.event_id, found)
    return list(ordered.values())
