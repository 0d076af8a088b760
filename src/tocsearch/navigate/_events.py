"""The leaf of the walk: the raw events of chosen segments, ranked against the query.

Summaries keep a few bullets per segment, so most of what was said lives only in the events.
After the walk has picked its segments, their events are read and ranked like lines found by
grep, with three signals:

- **the event itself**: each term it holds weighs by how rare the term is among the events
  compared (:class:`~tocsearch.navigate._weights.TermWeights`), and repeats of a term count
  with diminishing returns, relative to the event's length (the saturation of BM25);
- **its neighbours**: a turn next to a strong match is often the other half of an exchange
  (the question before an answer, the answer after a question);
- **its segment**: as a prior, half how well the segment's own summary matches, half the
  weighted share of the terms its events hold between them (a session in which every word
  of the question was said is likelier the one asked about, though no one turn says them
  all).

A query term that names a speaker (an event's ``speaker`` metadata, as importers of
conversations between people record it) says who spoke, not what was said: it is held by the
events that person said, not by every turn that addresses them by name. The turns around the
best hits are moved up behind them, as grep's context lines, and so is the reply to a hit further
down that asks a question; when the question names a speaker, only that speaker's turns.

Everything is computed on the fly from the events at hand: no index.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

import attrs

from tocsearch.models import Event, TocNode
from tocsearch.navigate._folded import searchable_text
from tocsearch.navigate._weights import TermMatcher, TermWeights
from tocsearch.storage.protocol import Storage

__all__ = [
    "SPEAKER_KEY",
    "EventHit",
    "PooledEvent",
    "rank_events",
    "segment_events",
    "segment_priors",
    "speaker_terms",
]

# BM25's term-frequency saturation and length normalisation.
_K1 = 1.2
_B = 0.75
# How much a neighbour's match and the segment's relevance add to an event's own match.
_NEIGHBOUR = 0.35
_PRIOR = 0.25
# How much of a segment's relevance comes from the terms its events hold together, the rest
# from its summary's.
_HELD = 0.5
# How far back a match still lends an event context, and how fast that fades per turn.
_LOOK_BACK = 6
# The best hits whose following turns are moved up behind them, and how many turns follow.
_REPLIED_HITS = 2
_REPLIES = 3
# When the question names a speaker: the best hits whose nearby turns by that speaker are
# moved up behind them, and how many turns before and after each are looked at.
_SPOKEN_HITS = 3
_SPOKEN_BEFORE = 2
_SPOKEN_AFTER = 3
_FADE = 0.85
# The best hits among which one that asks a question is followed by its reply.
_ASKING_HITS = 10
# The event metadata key naming who said an event (set by importers of conversations between
# people, such as LoCoMo's).
SPEAKER_KEY = "speaker"


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


def segment_priors(
    segments: Sequence[TocNode], matcher: TermMatcher, terms: Sequence[str]
) -> dict[str, float]:
    """Each segment's weighted share of the terms in its title, summary, bullets and keywords,
    with terms weighed among these segments."""
    present = {
        segment.node_id: matcher.present_folded(searchable_text(segment)) for segment in segments
    }
    return _weighted_shares(present, terms)


def _weighted_shares(held: Mapping[str, Collection[str]], terms: Sequence[str]) -> dict[str, float]:
    """Each key's weighted share of ``terms`` among those it holds, with terms weighed among
    the keys (a term every one holds counts little)."""
    weights = TermWeights(terms, held.values())
    return {key: weights.share(found) for key, found in held.items()}


def _segment_shares(
    pool: Sequence[PooledEvent], counts: Sequence[Mapping[str, int]], terms: Sequence[str]
) -> dict[str, float]:
    """Each pooled segment's weighted share of the terms its events hold between them (terms
    weighed among these segments): a conversation in which every word of the question was
    said is more likely the one asked about, even when no single turn holds them all."""
    held: dict[str, set[str]] = {}
    for item, found in zip(pool, counts, strict=True):
        held.setdefault(item.segment.node_id, set()).update(found)
    return _weighted_shares(held, terms)


def _context(runs: Sequence[tuple[str, str]], own: Sequence[float], index: int) -> float:
    """The strongest match near an event in the same session: the turn just after it, or one of
    the turns before it, fading with distance (an answer may come a few turns after the
    question that names the topic). ``runs`` holds each pooled event's session and segment."""
    run = runs[index]
    after = index + 1
    best = own[after] * _FADE if after < len(runs) and runs[after] == run else 0.0
    for distance in range(1, _LOOK_BACK + 1):
        before = index - distance
        if before < 0 or runs[before] != run:
            break
        best = max(best, own[before] * _FADE ** (distance - 1))
    return best


def speaker_terms(events: Iterable[Event], matcher: TermMatcher) -> dict[str, frozenset[str]]:
    """For each speaker of one of ``events``, the terms that name them; empty when no term
    names a speaker."""
    held = {
        speaker: matcher.present(speaker)
        for speaker in {event.metadata.get(SPEAKER_KEY, "") for event in events}
        if speaker
    }
    return held if any(held.values()) else {}


def _term_counts(
    pool: Sequence[PooledEvent], matcher: TermMatcher, speakers: Mapping[str, frozenset[str]]
) -> list[dict[str, int]]:
    """How often each term occurs in each event's text, except that a term naming a speaker is
    held (once) by the events that speaker said, not by the text of every turn that addresses
    them by name."""
    named = frozenset().union(*speakers.values())
    counts: list[dict[str, int]] = []
    for item in pool:
        found = matcher.counts(item.event.text)
        speaker = item.event.metadata.get(SPEAKER_KEY, "")
        if named and speaker:
            for term in named:
                found.pop(term, None)
            found.update(dict.fromkeys(speakers[speaker], 1))
        counts.append(found)
    return counts


def rank_events(
    pool: Sequence[PooledEvent],
    matcher: TermMatcher,
    terms: Sequence[str],
    priors: Mapping[str, float],
) -> list[EventHit]:
    """The events of ``pool`` that hold a term or sit next to one that does, best first.

    ``pool`` must list each segment's events together and in time order, so neighbours are
    adjacent. Ties go to the newest event. A term naming a speaker is held by what that speaker
    said (see the module docstring).

    Runtime complexity: O(c) for c characters of event text, plus a sort of the hits.
    """
    if not pool or not terms:
        return []
    speakers = speaker_terms((item.event for item in pool), matcher)
    counts = _term_counts(pool, matcher, speakers)
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
    held = _segment_shares(pool, counts, terms)
    runs = [(item.event.session_id, item.segment.node_id) for item in pool]
    hits: list[EventHit] = []
    for index, item in enumerate(pool):
        neighbour = _context(runs, own, index)
        if own[index] <= 0.0 and neighbour <= 0.0:
            continue
        segment = item.segment.node_id
        prior = (1.0 - _HELD) * priors.get(segment, 0.0) + _HELD * held[segment]
        score = own[index] + _NEIGHBOUR * neighbour + _PRIOR * prior
        matched = tuple(term for term in terms if term in counts[index])
        hits.append(EventHit(item.event, item.segment, matched, weights.share(matched), score))
    hits.sort(key=lambda hit: (-hit.score, -hit.event.timestamp.timestamp(), hit.event.event_id))
    said = None
    if speakers:
        said = {
            item.event.event_id
            for item in pool
            if speakers.get(item.event.metadata.get(SPEAKER_KEY, ""))
        }
    return _with_context(hits, pool, said)


def _with_context(
    hits: list[EventHit], pool: Sequence[PooledEvent], said: set[str] | None
) -> list[EventHit]:
    """The ranking with the context of each of the best few hits (in the same session and
    segment) moved up right behind it, as grep's context lines show.

    Without ``said``, the context is the turns that follow a hit: what comes after the line
    that names the topic is where its answer usually is. With ``said`` (the events of the
    speakers the question names), it is those speakers' turns shortly before and after a hit,
    the nearest first, those before it first: the question is about what they said, and one
    exchange often spreads it over several of their turns. Further down, among the best
    :data:`_ASKING_HITS`, a hit that asks a question (the question's words in someone's
    question) is followed by the turn after it, its reply (by a speaker the question names,
    with ``said``): a question that holds the words is often answered by a turn that holds
    none of them."""
    position = {item.event.event_id: index for index, item in enumerate(pool)}
    by_id = {hit.event.event_id: hit for hit in hits}
    ordered: dict[str, EventHit] = {}
    for rank, hit in enumerate(hits):
        ordered.setdefault(hit.event.event_id, hit)
        start = position[hit.event.event_id]
        if rank >= (_REPLIED_HITS if said is None else _SPOKEN_HITS):
            if rank >= _ASKING_HITS or not _asks(hit.event.text):
                continue
            # A hit further down that asks a question: its reply comes right behind it.
            around = _same_session(pool, start, range(start + 1, start + 2))
        elif said is None:
            around = _same_session(pool, start, range(start + 1, start + _REPLIES + 1))
        else:
            before = range(start - 1, start - _SPOKEN_BEFORE - 1, -1)
            after = range(start + 1, start + _SPOKEN_AFTER + 1)
            around = [*_same_session(pool, start, before), *_same_session(pool, start, after)]
        for index in around:
            event_id = pool[index].event.event_id
            found = by_id.get(event_id)
            if found is not None and (said is None or event_id in said):
                ordered.setdefault(event_id, found)
    return list(ordered.values())


def _asks(text: str) -> bool:
    """Whether ``text`` ends by asking a question."""
    return text.rstrip().endswith("?")


def _same_session(pool: Sequence[PooledEvent], start: int, indexes: range) -> list[int]:
    """The ``indexes`` of ``pool``, in order, up to the first outside the session and segment
    of the event at ``start``."""
    here = pool[start]
    found: list[int] = []
    for index in indexes:
        if not 0 <= index < len(pool):
            break
        other = pool[index]
        if (
            other.event.session_id != here.event.session_id
            or other.segment.node_id != here.segment.node_id
        ):
            break
        found.append(index)
    return found
