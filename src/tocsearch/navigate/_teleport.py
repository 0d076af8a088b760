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

__all__ = ["answers_alone", "teleport"]

_LABELS_SHOWN = 3


def _seeded_ids(
    seeder: SegmentSeeder, query: str, ranges: Sequence[TimeRange], limit: int
) -> list[str]:
    """The seeded segment ids, best first, each once, across the ranges."""
    spans: list[tuple[datetime | None, datetime | None]] = [
        (span.start, span.end) for span in ranges
    ] or [(None, None)]
    scored: dict[str, float] = {}
    for start, end in spans:
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
    nodes: list[TocNode] = []
    for segment_id in ids:
        try:
            node = walk.storage.get_node(segment_id)
        except (NotFound, ValueError):
            continue
        if node.level is TocLevel.SEGMENT and inside(node, ranges):
            nodes.append(node)
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
