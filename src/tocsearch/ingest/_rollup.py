"""Nodes from summaries: segment leaves, and day/week/month/year parents rolled up from their
children.

A parent's span is the activity span of its children (the earliest child start to the latest
child end), its ``child_node_ids`` are sorted by start time (ties by id), and its summary is
made from the children's summaries only, so a parent is a function of its children.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from tocsearch.errors import InvalidArgument
from tocsearch.ingest._segmenter import SegmentPlan
from tocsearch.levels import TocLevel
from tocsearch.models import TocBullet, TocNode
from tocsearch.summarize._summarizer import Summarizer, Summary, SummaryBullet
from tocsearch.text import clip

__all__ = [
    "ParentJob",
    "child_summary",
    "parent_node",
    "same_content",
    "segment_node",
    "with_version",
]

_SUMMARY_CHARS = 600


def child_summary(node: TocNode) -> Summary:
    """A stored node as the input of ``Summarizer.summarize_children``."""
    return Summary(
        title=node.title,
        bullets=tuple(
            SummaryBullet(bullet.text, grip_ids=bullet.grip_ids) for bullet in node.bullets
        ),
        keywords=node.keywords,
        text=node.summary or "",
    )


def _summary_text(summary: Summary) -> str:
    text = summary.text or " ".join(bullet.text for bullet in summary.bullets) or summary.title
    return clip(text, _SUMMARY_CHARS)


def segment_node(plan: SegmentPlan, summary: Summary, bullets: Sequence[TocBullet]) -> TocNode:
    """The leaf node of a planned segment, at version 1. A conversation that has a title of
    its own (a ChatGPT chat's, Claude Code's summary of a session: ``metadata["title"]``)
    names the segment, before what the summary says of this part of it."""
    title = summary.title
    named = plan.events[0].metadata.get("title", "").strip()
    if named and named.casefold() != title.casefold():
        title = f"{named}: {title}"
    return TocNode(
        node_id=plan.node_id,
        level=TocLevel.SEGMENT,
        title=clip(title, 200),
        start_time=plan.events[0].timestamp,
        end_time=plan.events[-1].timestamp,
        bullets=tuple(bullets),
        keywords=summary.keywords,
        summary=_summary_text(summary),
        event_ids=plan.event_ids,
        overlap_event_ids=plan.overlap_event_ids,
    )


def parent_node(
    node_id: str,
    level: TocLevel,
    children: Sequence[TocNode],
    summary: Summary,
    *,
    digest: str = "",
) -> TocNode:
    """A parent node over ``children`` (sorted by start time), with the term ``digest``
    text, at version 1.

    Raises:
        InvalidArgument: a bullet of ``summary`` names a grip that no child bullet holds, or
            names none at all.
    """
    known = {grip for child in children for bullet in child.bullets for grip in bullet.grip_ids}
    for bullet in summary.bullets:
        if not bullet.grip_ids:
            raise InvalidArgument(
                f"summary bullet {bullet.text!r} of {node_id} names no grip of a child bullet"
            )
        for grip in bullet.grip_ids:
            if grip not in known:
                raise InvalidArgument(
                    f"summary bullet {bullet.text!r} of {node_id} names grip {grip!r}, which no "
                    "child bullet holds"
                )
    return TocNode(
        node_id=node_id,
        level=level,
        title=clip(summary.title, 200),
        start_time=min(child.start_time for child in children),
        end_time=max(child.end_time for child in children),
        bullets=tuple(TocBullet(bullet.text, bullet.grip_ids) for bullet in summary.bullets),
        keywords=summary.keywords,
        child_node_ids=tuple(child.node_id for child in children),
        summary=_summary_text(summary),
        digest=digest,
    )


@attrs.frozen
class ParentJob:
    """A parent to roll up: its id and level, its children (by start time) and its digest."""

    node_id: str
    level: TocLevel
    children: tuple[TocNode, ...]
    digest: str

    def make(self, summarizer: Summarizer) -> TocNode:
        """The parent node (at version 1), summarised from its children's summaries."""
        summary = summarizer.summarize_children([child_summary(n) for n in self.children])
        return parent_node(self.node_id, self.level, self.children, summary, digest=self.digest)


def same_content(left: TocNode, right: TocNode) -> bool:
    """Whether two nodes are equal in everything but ``version``."""
    return attrs.evolve(left, version=right.version) == right


def with_version(new: TocNode, old: TocNode | None) -> TocNode:
    """``new`` versioned against the stored ``old``: the old node itself when nothing changed,
    otherwise one version past it (version 1 for a node not stored before)."""
    if old is None:
        return new if new.version == 1 else attrs.evolve(new, version=1)
    if same_content(new, old):
        return old
    return attrs.evolve(new, version=old.version + 1)
