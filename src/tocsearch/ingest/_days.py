"""A day's part of a build: planned from the store, then made without it.

The builder plans a day (:class:`DayPlan`: its events, the segments stored for it and the
segments its events fall into) by reading the store, and then makes it
(:meth:`DayMaker.make`): summaries, grips, segment nodes and digests, the day's digest and the
day's node. Making reads nothing from the store and writes nothing to it, so it is a pure
function of the plan (the caches it reads only remember earlier results), which is what lets
helper processes make days while the builder stores those made before them
(:mod:`tocsearch.ingest._helpers`).
"""

from __future__ import annotations

import os
from collections.abc import Collection
from datetime import date

import attrs

from tocsearch.digest import TermDigest
from tocsearch.ids import day_id
from tocsearch.ingest._config import BuildConfig
from tocsearch.ingest._digests import DayDigests, SegmentPositions, segment_positions
from tocsearch.ingest._grips import segment_bullets
from tocsearch.ingest._noise import for_summary
from tocsearch.ingest._rollup import ParentJob, segment_node, with_version
from tocsearch.ingest._segmenter import SegmentPlan
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode, time_order
from tocsearch.summarize._summarizer import Summarizer

__all__ = ["DayMaker", "DayPlan", "MadeDay"]


@attrs.frozen
class DayPlan:
    """One day to build, as read from the store.

    Attributes:
        day: the UTC date.
        events: the day's stored events, in id order (none: the day lost its events).
        stored: the day's stored segment nodes, by id.
        segments: the segments the events fall into.
        force: summarise every segment again, even one whose events did not change.
        newest: the newest day of the build, whose segments' digest positions are kept.
    """

    day: date
    events: tuple[Event, ...]
    stored: dict[str, TocNode]
    segments: tuple[SegmentPlan, ...]
    force: bool
    newest: bool

    def summaries(self) -> int:
        """How many segments need a new summary."""
        count = 0
        for plan in self.segments:
            old = self.stored.get(plan.node_id)
            if old is None or not _keeps_summary(old, plan, force=self.force):
                count += 1
        return count


def _keeps_summary(old: TocNode, plan: SegmentPlan, *, force: bool) -> bool:
    """Whether ``old``, the stored node of a planned segment, keeps its summary: the same
    events give the same summary, unless a rebuild is asked for."""
    return not force and old.event_ids == plan.event_ids


@attrs.define
class MadeDay:
    """What making a day gives the builder to store.

    Attributes:
        nodes: the day's segment nodes, versioned against the stored ones, in plan order.
        writes: those of ``nodes`` that are new or changed.
        created: how many of ``writes`` were not stored before.
        grips: the grips of the segments summarised again.
        dropped_nodes: stored segments the day no longer has.
        dropped_grips: grips of replaced and dropped segments (still referenced ones stay).
        digest_text: the day's digest text ("" for a day without events).
        digest: the day's full-size digest when it was worked out now, else None.
        positions: for the newest day, the digest positions of the segments made now.
        node: the day's node (unversioned), or None for a day without segments.
        process: the id of the process that made the day (a helper's or the builder's).
    """

    nodes: list[TocNode] = attrs.field(factory=list)
    writes: list[TocNode] = attrs.field(factory=list)
    created: int = 0
    grips: list[Grip] = attrs.field(factory=list)
    dropped_nodes: list[str] = attrs.field(factory=list)
    dropped_grips: dict[str, None] = attrs.field(factory=dict)
    digest_text: str = ""
    digest: TermDigest | None = None
    positions: dict[str, Collection[int]] = attrs.field(factory=dict)
    node: TocNode | None = None
    process: int = attrs.field(factory=os.getpid)


class DayMaker:
    """Makes planned days with a summarizer and config, reading (and filling) the digest
    caches of the builder it serves."""

    def __init__(
        self,
        summarizer: Summarizer,
        config: BuildConfig,
        segment_positions: SegmentPositions,
        day_digests: DayDigests,
    ) -> None:
        self.summarizer = summarizer
        self.config = config
        self.segment_positions = segment_positions
        self.day_digests = day_digests

    def make(self, plan: DayPlan) -> MadeDay:
        """The nodes, grips and digests of a planned day; reads and writes no store."""
        made = MadeDay()
        stored = dict(plan.stored)
        # Digest bit positions of the segments made now, by node id.
        built: dict[str, Collection[int]] = {}
        alone: TermDigest | None = None
        if plan.events:
            for segment in plan.segments:
                node, full = self._segment(
                    segment,
                    stored.pop(segment.node_id, None),
                    plan.force,
                    made,
                    built,
                    alone=len(plan.segments) == 1,
                )
                made.nodes.append(node)
                if full is not None:
                    alone = full
            remembered = self.segment_positions.of

            def positions() -> list[Collection[int]]:
                # The plans own the day's events between them: their union is the day's.
                return [
                    built.get(node.node_id) or remembered(segment.events, node)
                    for segment, node in zip(plan.segments, made.nodes, strict=True)
                ]

            made.digest_text, made.digest = self.day_digests.of(
                plan.events, made.nodes, positions, alone
            )
            if plan.newest:
                made.positions = built
        for dropped in stored.values():
            made.dropped_nodes.append(dropped.node_id)
            _drop_grips(dropped, made)
        if made.nodes:
            children = tuple(sorted(made.nodes, key=time_order))
            day = ParentJob(day_id(plan.day), TocLevel.DAY, children, made.digest_text)
            made.node = day.make(self.summarizer)
        return made

    def _segment(
        self,
        plan: SegmentPlan,
        old: TocNode | None,
        force: bool,
        made: MadeDay,
        built: dict[str, Collection[int]],
        *,
        alone: bool,
    ) -> tuple[TocNode, TermDigest | None]:
        """The node of a planned segment, and its full-size digest when it is ``alone`` on
        its day and its digest was worked out now."""
        full: TermDigest | None = None
        if old is not None and _keeps_summary(old, plan, force=force):
            # The same events give the same summary: only the overlap can differ.
            node = attrs.evolve(old, overlap_event_ids=plan.overlap_event_ids)
            if not node.digest:
                # Built before segments had digests: the events give it.
                node, full = self._with_digest(node, plan, built, alone=alone)
            node = with_version(node, old)
        else:
            summary = self.summarizer.summarize_events(for_summary(plan.events, self.config))
            bullets, grips = segment_bullets(plan, summary, self.config.grip_excerpt_chars)
            made.grips.extend(grips)
            node, full = self._with_digest(
                segment_node(plan, summary, bullets), plan, built, alone=alone
            )
            node = with_version(node, old)
            if old is not None:
                _drop_grips(old, made)
        if node is not old:
            made.writes.append(node)
            if old is None:
                made.created += 1
        return node, full

    @staticmethod
    def _with_digest(
        node: TocNode, plan: SegmentPlan, built: dict[str, Collection[int]], *, alone: bool
    ) -> tuple[TocNode, TermDigest | None]:
        """``node`` with the digest of its events and texts; the bit positions are kept for
        the day's digest. A segment ``alone`` on its day has the day's positions: their
        full-size digest is returned as the day's, and folded for the segment's."""
        positions = built[node.node_id] = segment_positions(plan.events, node)
        if alone:
            full = TermDigest.from_positions(positions)
            return attrs.evolve(node, digest=full.sized(positions=len(positions)).to_text()), full
        digest = TermDigest.from_positions(positions, sized=True)
        return attrs.evolve(node, digest=digest.to_text()), None


def _drop_grips(node: TocNode, made: MadeDay) -> None:
    for bullet in node.bullets:
        made.dropped_grips.update(dict.fromkeys(bullet.grip_ids))
