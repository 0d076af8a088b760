"""Hybrid search: FTS5 BM25 and vector KNN over a store's index, fused by Reciprocal Rank
Fusion, with the index-free navigator as the fallback.

Each ranked list is over-fetched to ``2 x limit`` ids so the fusion has candidates to merge.
Event lists are mapped to the segments that own the events, so every hit is a segment with the
events that matched in it, best first.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import attrs

from tocsearch._checks import in_utc, whole_number
from tocsearch._fusion import reciprocal_rank_fusion
from tocsearch.converter import to_dict
from tocsearch.errors import InvalidArgument, StorageError
from tocsearch.models import Grip, TocNode
from tocsearch.navigate import Navigator
from tocsearch.storage.protocol import Storage
from tocsearch.text import encodable

if TYPE_CHECKING:
    from tocsearch.index._sidecar import SearchIndex

__all__ = [
    "EmbedderFailed",
    "Ranking",
    "SearchHit",
    "SearchMode",
    "SearchOutcome",
    "navigator_hits",
    "rank_segments",
    "run_search",
]

_OVERFETCH = 2


class SearchMode(str, enum.Enum):
    """Which rankings a search fuses."""

    HYBRID = "hybrid"
    """Full-text (events and segments) and vectors (events)."""
    FTS = "fts"
    """Full-text only: BM25 over event texts and over segment titles, summaries and bullets."""
    VEC = "vec"
    """Vectors only: cosine nearest events."""
    TOC = "toc"
    """No index: the navigator's walk over the table of contents."""

    @classmethod
    def parse(cls, value: SearchMode | str) -> SearchMode:
        """The mode named by ``value``.

        Raises:
            InvalidArgument: no such mode.
        """
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(mode.value for mode in cls)
            raise InvalidArgument(f"mode must be one of {names}, got {value!r}") from None


@attrs.frozen
class SearchHit:
    """One segment that answers a query.

    ``event_ids`` are the segment's events that matched, best first (empty when only the
    segment's summary matched); ``grip_ids`` the grips of its bullets that hold them (all its
    grips when no event matched); ``text`` the matched events' texts, one per line, or the
    segment's title and summary. ``score`` is the fused score, 0-1.
    """

    segment_id: str
    event_ids: tuple[str, ...]
    grip_ids: tuple[str, ...]
    start_time: datetime
    end_time: datetime
    title: str
    text: str
    score: float


@attrs.frozen
class SearchOutcome:
    """The hits of a search and how they were found.

    ``mode_used`` is the mode that ran: the requested one, or what it fell back to (``fts``
    when there is no embedder, ``toc`` when there is no usable index); ``note`` says why it
    fell back (empty when it did not).
    """

    query: str
    mode: SearchMode
    mode_used: SearchMode
    hits: tuple[SearchHit, ...]
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready data."""
        data: dict[str, Any] = to_dict(self)
        return data


class EmbedderFailed(Exception):
    """The embedder raised while embedding a query."""


def _check(limit: int, min_score: float) -> None:
    whole_number("limit", limit)
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)):
        raise InvalidArgument(f"min_score must be a number from 0 to 1, got {min_score!r}")
    if not 0.0 <= min_score <= 1.0:
        raise InvalidArgument(f"min_score must be a number from 0 to 1, got {min_score!r}")


def _segments_of(ranked_events: Sequence[str], owners: dict[str, tuple[str, ...]]) -> list[str]:
    """The segments of ranked events, each once, in the order of the first event it owns."""
    return list(dict.fromkeys(segment for e in ranked_events for segment in owners.get(e, ())))


def _grips(storage: Storage, node: TocNode) -> list[Grip]:
    ids = dict.fromkeys(grip_id for bullet in node.bullets for grip_id in bullet.grip_ids)
    return list(storage.find_grips(ids).values())


def _hydrate(
    storage: Storage, segment_id: str, event_ids: Sequence[str], score: float
) -> SearchHit | None:
    node = storage.find_node(segment_id)
    if node is None:
        return None
    grips = _grips(storage, node)
    if event_ids:
        grip_ids = tuple(
            grip.grip_id
            for grip in grips
            if any(grip.event_id_start <= e <= grip.event_id_end for e in event_ids)
        )
        texts = [event.text for event in map(storage.find_event, event_ids) if event is not None]
        text = "\n".join(texts)
    else:
        grip_ids = tuple(grip.grip_id for grip in grips)
        text = f"{node.title}: {node.summary_text}" if node.summary_text else node.title
    return SearchHit(
        segment_id=node.node_id,
        event_ids=tuple(event_ids),
        grip_ids=grip_ids,
        start_time=node.start_time,
        end_time=node.end_time,
        title=node.title,
        text=text,
        score=score,
    )


@attrs.frozen
class Ranking:
    """Segments fused from the index's rankings, best first, with the events that matched in
    each (best first)."""

    segments: tuple[tuple[str, float], ...]
    matched: dict[str, tuple[str, ...]]


def rank_segments(
    index: SearchIndex,
    query: str,
    mode: SearchMode,
    limit: int,
    start: datetime | None = None,
    end: datetime | None = None,
) -> Ranking:
    """Fuse the rankings of ``mode`` (each over-fetched to ``2 x limit``) into segments.

    Full-text ranks events and segments; vectors rank events. Event rankings become segment
    rankings through the segments that own each event (every one that lists it: an event two
    segments list counts for, and is matched in, both); event scores are fused on their own to
    order the matched events within a segment.
    """
    fetch = _OVERFETCH * limit
    event_lists: list[list[str]] = []
    segment_lists: list[list[str]] = []
    # The segments that own each ranked event: full text reads them with its events.
    owners: dict[str, tuple[str, ...]] = {}
    if mode in (SearchMode.HYBRID, SearchMode.FTS):
        owned = index.fts_event_owners(query, limit=fetch, start=start, end=end)
        event_lists.append([event_id for event_id, _ in owned])
        owners.update((event_id, node_ids) for event_id, node_ids in owned if node_ids)
        segment_lists.append(index.fts_segments(query, limit=fetch, start=start, end=end))
    if mode in (SearchMode.HYBRID, SearchMode.VEC):
        try:
            nearest = index.nearest_events(query, limit=fetch, start=start, end=end)
        except Exception as error:  # a model server down or a model that fails: degrade
            raise EmbedderFailed(f"embedder failed: {type(error).__name__}: {error}") from error
        event_lists.append(nearest)
        owners.update(index.owners([e for e in nearest if e not in owners]))
    event_scores = dict(reciprocal_rank_fusion(*event_lists))
    fused = reciprocal_rank_fusion(
        *(_segments_of(ranked, owners) for ranked in event_lists), *segment_lists
    )
    matched: dict[str, list[str]] = {}
    for event_id in sorted(event_scores, key=lambda e: -event_scores[e]):
        for segment in owners.get(event_id, ()):
            matched.setdefault(segment, []).append(event_id)
    return Ranking(tuple(fused), {segment: tuple(events) for segment, events in matched.items()})


def _indexed(
    index: SearchIndex,
    query: str,
    mode: SearchMode,
    limit: int,
    min_score: float,
    start: datetime | None,
    end: datetime | None,
) -> list[SearchHit]:
    ranking = rank_segments(index, query, mode, limit, start, end)
    hits: list[SearchHit] = []
    for segment_id, score in ranking.segments:
        if score < min_score or len(hits) >= limit:
            break
        hit = _hydrate(index.storage, segment_id, ranking.matched.get(segment_id, ()), score)
        if hit is not None:
            hits.append(hit)
    return hits


def navigator_hits(
    storage: Storage,
    query: str,
    *,
    limit: int,
    min_score: float,
    start: datetime | None,
    end: datetime | None,
) -> list[SearchHit]:
    """The index-free search: the navigator's evidence grouped by segment, best first."""
    result = Navigator(storage).navigate(query)
    scores: dict[str, float] = {}
    events: dict[str, list[str]] = {}
    for item in result.evidence:
        if (start is not None and item.end_time < start) or (
            end is not None and item.start_time >= end
        ):
            continue
        scores[item.segment_id] = max(scores.get(item.segment_id, 0.0), item.score)
        bucket = events.setdefault(item.segment_id, [])
        bucket.extend(e for e in item.event_ids if e not in bucket)
    hits: list[SearchHit] = []
    for segment_id in sorted(scores, key=lambda s: -scores[s]):
        score = min(1.0, max(0.0, scores[segment_id]))
        if score < min_score or len(hits) >= limit:
            break
        hit = _hydrate(storage, segment_id, events[segment_id], score)
        if hit is not None:
            hits.append(hit)
    return hits


def run_search(
    storage: Storage,
    index: SearchIndex | None,
    query: str,
    *,
    mode: SearchMode | str = SearchMode.HYBRID,
    limit: int = 10,
    min_score: float = 0.0,
    start: datetime | None = None,
    end: datetime | None = None,
    unavailable: str = "",
) -> SearchOutcome:
    """Search ``storage`` through ``index`` in ``mode``, falling back rather than failing:
    a hybrid search without an embedder runs full-text only, and a search with no usable index
    (None, unreadable, or ``unavailable`` says why) walks the table of contents. Never raises
    for a missing or broken index; raises only for bad arguments.

    Raises:
        InvalidArgument: an unknown mode, a limit under 1 or a min_score outside 0-1.
    """
    requested = SearchMode.parse(mode)
    _check(limit, min_score)
    if not isinstance(query, str):
        raise InvalidArgument(f"query must be a string, got {query!r}")
    query = encodable(query)  # echoed in the outcome: as UTF-8 can write it
    start = None if start is None else in_utc(start, "start")
    end = None if end is None else in_utc(end, "end")
    used = requested
    note = ""
    if requested is not SearchMode.TOC:
        if index is None:
            used, note = SearchMode.TOC, unavailable or "no search index"
        elif index.embedder is None and requested is SearchMode.VEC:
            used, note = SearchMode.TOC, "no embedder for vector search"
        elif index.embedder is None and requested is SearchMode.HYBRID:
            used, note = SearchMode.FTS, "no embedder: full-text only"
    if used is not SearchMode.TOC and index is not None:
        try:
            try:
                hits = _indexed(index, query, used, limit, float(min_score), start, end)
            except EmbedderFailed as failure:
                if used is not SearchMode.HYBRID:
                    raise
                used, note = SearchMode.FTS, f"{failure}; full-text only"
                hits = _indexed(index, query, used, limit, float(min_score), start, end)
        except (StorageError, EmbedderFailed) as error:
            used, note = SearchMode.TOC, f"search index unusable: {error}"
        else:
            return SearchOutcome(query, requested, used, tuple(hits), note)
    hits = navigator_hits(
        storage, query, limit=limit, min_score=float(min_score), start=start, end=end
    )
    return SearchOutcome(query, requested, used, tuple(hits), note)
