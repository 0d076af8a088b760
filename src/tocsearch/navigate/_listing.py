"""The answer to a question that names a period and no topic: what happened then, as the
segments of the period, the best summarised first, each with its first bullets."""

from __future__ import annotations

from collections.abc import Sequence

from tocsearch.levels import TocLevel
from tocsearch.models import TocNode
from tocsearch.navigate._walk import Walk
from tocsearch.navigate.result import StepMatch, StepPhase
from tocsearch.search import SearchField

__all__ = ["listing"]


def listing(walk: Walk, segments: Sequence[TocNode], *, phase: StepPhase, scope: str) -> None:
    """Report ``segments`` as one step and keep the best summarised (most bullets, then a
    summary, then the newest) as evidence, up to the evidence limit."""
    trail, book = walk.trail, walk.book
    ordered = sorted(
        segments,
        key=lambda node: (
            -len(node.bullets),
            node.summary is None,
            -node.start_time.timestamp(),
            node.node_id,
        ),
    )
    if not trail.begin():
        return
    trail.charge(nodes=(node.node_id for node in segments))
    shown = ordered[: trail.limits.width]
    trail.record_step(
        phase=phase,
        level=TocLevel.SEGMENT,
        scope=scope,
        searched=len(segments),
        matched=len(segments),
        matches=tuple(
            StepMatch(node.node_id, node.title, 1.0, SearchField.TITLE, node.title)
            for node in shown
        ),
    )
    listed = 0
    for node in ordered:
        if book.enough():
            break
        book.list_segment(node)
        listed += 1
    trail.annotate(f"Listing {listed} of {len(segments)} segments, best summarised first")
