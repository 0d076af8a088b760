"""The teleport: the segments a :class:`~tocsearch.navigate.seeder.SegmentSeeder` names,
verified against the query as the walk's first step.

Seeded ids that are not stored segments, or lie outside the hinted period, are dropped. The
rest are scored like any segment; those whose summaries match are collected as evidence, and
all of them are grepped first (:mod:`tocsearch.navigate._grep`), so an index that found a
term in an event leads the grep straight to it. A seeder that fails is reported in the path
and the walk goes on without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tocsearch.errors import NotFound
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._walk import Walk, events_of, inside, search
from tocsearch.navigate.result import StepPhase
from tocsearch.navigate.seeder import SegmentSeeder
from tocsearch.navigate.timehints import TimeRange

__all__ = ["answers_alone", "seed_spans", "seeded_segment", "teleport"]

_LABELS_SHOWN = 3


def seed_spans(ranges: Sequence[TimeRange]) -> list[tuple[datetime | None, datetime | None]]:
    """The ``(start, end)`` a seeder is asked for, one per range; one unbounded span without
    ranges."""
    return [(span.start, span.end) for span in ranges] or [(None, None)]


def seeded_segment(walk: Walk, segment_id: str, ranges: Sequence[TimeRange]) -> TocNode | None:
    """The stored segment a seeder named, or None when ``segment_id`` names no stored segment
    or it lies outside ``ranges``."""
    try:
        node = walk.storage.get_node(segment_id)
    except (NotFound, ValueError):
        return None
    if node.level is not TocLevel.SEGMENT or not inside(node, ranges):
        return None
    return node


def _seeded_ids(
    seeder: SegmentSeeder, query: str, ranges: Sequence[TimeRange], limit: int
) -> list[str]:
    """The seeded segment ids, best first, each once, across the ranges."""
    scored: dict[str, float] = {}
    for start, end in seed_spans(ranges):
        entries: Sequence[object] = seeder.seed(query, limit=limit, start=start, end=end)
        for entry in entries:
            # An index is another library's code: what it returns is checked, not trusted.
            if not isinstance(entry, tuple) or len(entry) != 2:
                continue
            segment_id, score = entry
            if not isinstance(segment_id, str) or not isinstance(score, (int, float)):
                continue
            scored[segment_id] = max(float(score), scored.get(segment_id, float("-inf")))
    ranked = sorted(scored.items(), key=lambda entry: -entry[1])
    return [segment_id for segment_id, _ in ranked[:limit]]


def teleport(
    walk: Walk,
    seeder: SegmentSeeder,
    query: str,
    ranges: Sequence[TimeRange],
    *,
    limit: int,
) -> list[TocNode]:
    """Verify the segments ``seeder`` names for ``query`` within ``ranges`` as one step;
    returns them (the stored segments inside the ranges), best first."""
    trail = walk.trail
    name = str(seeder.name)
    try:
        ids = _seeded_ids(seeder, query, ranges, limit)
    except Exception as error:  # an index failing must not take the navigation down
        trail.note(
            phase=StepPhase.TELEPORT,
            level=TocLevel.SEGMENT,
            scope=f"Seeder {name}",
            reason=f"The seeder failed ({type(error).__name__}: {error}); walking without it",
        )
        return []
    nodes = [node for node in (seeded_segment(walk, i, ranges) for i in ids) if node is not None]
    if not nodes:
        trail.note(
            phase=StepPhase.TELEPORT,
            level=TocLevel.SEGMENT,
            scope=f"Seeder {name}",
            reason=f"{name} named no stored segment in the period; walking without it",
        )
        return []
    labels = ", ".join(node.node_id for node in nodes[:_LABELS_SHOWN])
    more = f" and {len(nodes) - _LABELS_SHOWN} more" if len(nodes) > _LABELS_SHOWN else ""
    reported = search(
        walk,
        nodes,
        phase=StepPhase.TELEPORT,
        level=TocLevel.SEGMENT,
        scope=f"Teleported via {name} to {labels}{more}",
    )
    if reported is None:
        return nodes
    for item in reported:
        walk.book.collect(item.node, item.coverage)
    verified = len(reported)
    trail.annotate(
        f"Teleported via {name} to {nodes[0].node_id}; {verified} of {len(nodes)} seeded "
        "segments match in their summaries, and all are grepped first"
    )
    return nodes


def answers_alone(walk: Walk, seeded: Sequence[TocNode]) -> bool:
    """Whether an event of the ``seeded`` segments holds every term of the query: then those
    segments answer it, and a walk of the tree could only add weaker matches."""
    terms = frozenset(walk.lens.terms)
    if not terms:
        return False
    matcher = walk.lens.matcher
    return any(
        matcher.present(event.text) >= terms
        for segment in seeded
        for event in events_of(walk, segment)
    )
