"""The evidence a walk collects from segments' summaries before the grep of their events.

An :class:`EvidenceBook` keeps each matched segment with its best coverage and its best
statements (bullets, else its summary, title or keywords). Nothing here is charged to any
budget: what is returned is chosen at the end (:mod:`tocsearch.navigate._fit`).
"""

from __future__ import annotations

from collections.abc import Iterable

from tocsearch.models import TocNode
from tocsearch.navigate._lens import Lens
from tocsearch.navigate._weights import TermWeights
from tocsearch.navigate.result import Evidence, EvidenceKind
from tocsearch.search import SearchField

__all__ = ["FULL", "EvidenceBook"]

FULL = 1.0 - 1e-9
"""A coverage at least this high holds every term."""
_BULLETS_PER_SEGMENT = 3
_LISTED_BULLETS_PER_SEGMENT = 2
_MAX_GRIPS_FOR_SUMMARY = 5


class EvidenceBook:
    """Matched segments, their coverage, and candidate statements, for one query."""

    def __init__(self, lens: Lens, max_evidence: int) -> None:
        self.lens = lens
        self.max_evidence = max_evidence
        self.evidence: dict[tuple[str, str], Evidence] = {}
        self.coverage: dict[str, float] = {}
        self.segments: dict[str, TocNode] = {}

    def ranking(self) -> list[Evidence]:
        """The statements collected, best first (score, then the segment's coverage, then
        the newest)."""
        return sorted(
            self.evidence.values(),
            key=lambda item: (
                -item.score,
                -self.coverage.get(item.segment_id, 0.0),
                -item.start_time.timestamp(),
                item.segment_id,
            ),
        )

    def segments_best_first(self) -> list[TocNode]:
        """The collected segments by coverage, then newest first."""
        return sorted(
            self.segments.values(),
            key=lambda node: (
                -self.coverage.get(node.node_id, 0.0),
                -node.start_time.timestamp(),
                node.node_id,
            ),
        )

    def full_segments(self) -> int:
        """How many segments hold every term."""
        return sum(1 for value in self.coverage.values() if value >= FULL)

    def best_score(self) -> float:
        """The best share of the terms a collected segment holds, 0.0 before any."""
        return max(self.coverage.values(), default=0.0)

    def enough(self) -> bool:
        """Whether the evidence is complete: the item limit is reached."""
        return len(self.evidence) >= self.max_evidence

    def collect(self, segment: TocNode, coverage: float) -> None:
        """Keep a matched segment and its best bullets (or its summary) as candidates."""
        items = self._items(segment)
        if not items:
            return
        self.segments.setdefault(segment.node_id, segment)
        self.coverage[segment.node_id] = max(coverage, self.coverage.get(segment.node_id, 0.0))
        self._add(items)

    def list_segment(self, segment: TocNode) -> None:
        """Keep a segment's first bullets as evidence of what happened."""
        bullets = segment.bullets[:_LISTED_BULLETS_PER_SEGMENT]
        items = [
            statement(segment, bullet.text, SearchField.BULLETS, bullet.grip_ids, 1.0, ())
            for bullet in bullets
        ]
        if not items:
            text = segment.summary_text or segment.title
            items = [statement(segment, text, SearchField.SUMMARY, (), 1.0, ())]
        self.segments.setdefault(segment.node_id, segment)
        self.coverage[segment.node_id] = 1.0
        self._add(items)

    def _add(self, items: Iterable[Evidence]) -> None:
        for item in items:
            self.evidence.setdefault((item.segment_id, item.text), item)

    def _items(self, segment: TocNode) -> list[Evidence]:
        """The segment's bullets that hold a term, best first by the weighted share of the
        terms (weighed among the segment's bullets); else its summary, title or keywords."""
        lens = self.lens
        present = [lens.matcher.present(bullet.text) for bullet in segment.bullets]
        weights = TermWeights(lens.terms, present)
        scored: list[tuple[float, int, Evidence]] = []
        for position, (bullet, held) in enumerate(zip(segment.bullets, present, strict=True)):
            if held:
                score = weights.share(held)
                item = statement(
                    segment,
                    bullet.text,
                    SearchField.BULLETS,
                    bullet.grip_ids,
                    score,
                    lens.ordered(held),
                )
                scored.append((-score, position, item))
        if scored:
            scored.sort(key=lambda entry: (entry[0], entry[1]))
            return [entry[2] for entry in scored[:_BULLETS_PER_SEGMENT]]
        # No single bullet matched: the summary or title did, and it rests on all the bullets.
        for field, text in (
            (SearchField.SUMMARY, segment.summary_text),
            (SearchField.TITLE, segment.title),
            (SearchField.KEYWORDS, f"{segment.title} (keywords: {', '.join(segment.keywords)})"),
        ):
            held = lens.matcher.present(text) if text else frozenset()
            if held:
                grips = tuple(
                    dict.fromkeys(grip for bullet in segment.bullets for grip in bullet.grip_ids)
                )[:_MAX_GRIPS_FOR_SUMMARY]
                share = TermWeights(lens.terms, [held]).share(held)
                return [statement(segment, text, field, grips, share, lens.ordered(held))]
        return []


def statement(
    segment: TocNode,
    text: str,
    field: SearchField,
    grip_ids: tuple[str, ...],
    score: float,
    matched: tuple[str, ...],
) -> Evidence:
    """A statement of a segment's summary as evidence; its events are resolved on return."""
    return Evidence(
        segment_id=segment.node_id,
        segment_title=segment.title,
        kind=EvidenceKind.BULLET,
        text=text,
        field=field,
        grip_ids=grip_ids,
        event_ids=(),
        score=score,
        matched_terms=matched,
        start_time=segment.start_time,
        end_time=segment.end_time,
    )
