"""The best-first descent: drill into the best-matching child, collect matched segments, and
backtrack to the next best when a branch gives out.

Branches wait on a frontier ordered by coverage, then depth, then recency. Branches that tie
on coverage are ordered by how many query terms their digest may hold, and all are explored
before the descent gives up: it stops early only when enough segments hold every term and no
waiting branch could hold more, or when a limit of the trail is reached.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence

import attrs

from tocsearch._segment_map import positions
from tocsearch.errors import NotFound
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode, time_order
from tocsearch.navigate._book import FULL
from tocsearch.navigate._lens import Scored
from tocsearch.navigate._walk import Walk, inside, level_of, search, wholly_inside
from tocsearch.navigate.result import StepPhase, node_label
from tocsearch.navigate.timehints import TimeRange

__all__ = ["ENOUGH_FULL_SEGMENTS", "descend"]

ENOUGH_FULL_SEGMENTS = 3
"""Once this many segments contain every term, weaker branches are not worth reading."""


@attrs.frozen
class _Waiting:
    """A node on the frontier, and the step that found it."""

    scored: Scored
    step: int


_Entry = tuple[float, int, int, float, int, _Waiting]


class _Descent:
    """The frontier and the opened nodes of one descent."""

    def __init__(self, walk: Walk, ranges: Sequence[TimeRange]) -> None:
        self.walk = walk
        self.ranges = ranges
        self.frontier: list[_Entry] = []
        self.opened: set[str] = set()
        self.order = itertools.count()
        self.pruned = (0, 0)

    def children(self, parents: Sequence[TocNode]) -> list[TocNode]:
        """The unseen children of ``parents`` that lie deeper than their parent and inside
        the ranges (when any), in time order, without those whose digest holds no term.
        Dangling ids and vanished parents give nothing."""
        walk = self.walk
        seen = walk.trail.seen
        found: set[str] = set()
        kept: dict[str, TocNode] = {}
        for parent in parents:
            self.opened.add(parent.node_id)
            seen.add(parent.node_id)
            if self._mapped_children(parent, found, kept):
                continue
            try:
                children = walk.storage.get_child_nodes(parent.node_id)
            except NotFound:
                continue
            fresh: dict[str, TocNode] = {}
            for child in children:
                if (
                    child.level.depth > parent.level.depth
                    and child.node_id not in seen
                    and child.node_id not in found
                    and inside(child, self.ranges)
                ):
                    fresh.setdefault(child.node_id, child)
            found.update(fresh)
            for child in walk.lens.prune_children(parent, list(fresh.values())):
                kept[child.node_id] = child
        self.pruned = (len(found) - len(kept), len(found))
        return sorted(kept.values(), key=time_order)

    def _mapped_children(self, parent: TocNode, found: set[str], kept: dict[str, TocNode]) -> bool:
        """:meth:`children` of a day whose segment map covers its children and which lies
        inside the ranges: only the segments the map keeps are read (a day holds a hundred
        or more, and rebuilding a stored segment costs microseconds), the others are counted
        from the day's ids. Adds to ``found`` and ``kept``; False (nothing added) when the
        day has no such map.

        The map keeps every segment :meth:`~tocsearch.navigate._lens.Lens.prune_children`
        keeps, so this keeps the same children; the count of those it did not read assumes
        each is stored, a segment and inside the day, as the map was made from them."""
        if parent.level is not TocLevel.DAY or not wholly_inside(parent, self.ranges):
            return False
        walk = self.walk
        mapped = walk.lens.map_kept(parent, 1)
        if mapped is None:
            return False
        ids = parent.child_node_ids
        chosen = {ids[index] for index in positions(mapped)}
        seen = walk.trail.seen
        find = walk.storage.find_node
        depth = parent.level.depth
        for node_id in dict.fromkeys(ids):
            if node_id in seen or node_id in found:
                continue
            if node_id not in chosen:
                found.add(node_id)
                continue
            child = find(node_id)
            if child is not None and child.level.depth > depth and inside(child, self.ranges):
                found.add(node_id)
                kept[node_id] = child
        return True

    def pruned_note(self, level: TocLevel) -> str:
        """ "; skipped 11 of 12 month nodes: no term in their digest" after the last pruning,
        or "" when nothing was skipped."""
        skipped, total = self.pruned
        if not skipped:
            return ""
        return f"; skipped {skipped} of {total} {level.value} nodes: no term in their digest"

    def absorb(self, reported: list[Scored]) -> None:
        walk = self.walk
        step = len(walk.trail.steps)
        for item in reported:
            node = item.node
            if node.level is TocLevel.SEGMENT:
                walk.book.collect(node, item.coverage)
            elif item.coverage >= walk.trail.limits.threshold and node.node_id not in self.opened:
                # Best coverage first; among equals the node whose digest may hold more of
                # the terms (what its summary left out may still be below it), then the
                # deeper node (closer to evidence), then the most recent.
                held = walk.lens.may_hold(node)
                entry = (
                    -item.coverage,
                    -(len(held) if held is not None else 0),
                    -node.level.depth,
                    -node.start_time.timestamp(),
                    next(self.order),
                    _Waiting(item, step),
                )
                heapq.heappush(self.frontier, entry)

    def pop(self) -> _Waiting | None:
        while self.frontier:
            waiting = heapq.heappop(self.frontier)[5]
            if waiting.scored.node.node_id not in self.opened:
                return waiting
        return None

    def settled(self) -> bool:
        """Whether enough segments hold every term and no waiting branch may add one."""
        book = self.walk.book
        if book.full_segments() < ENOUGH_FULL_SEGMENTS:
            return False
        return not self.frontier or -self.frontier[0][0] < FULL

    def dead_end(self) -> str:
        trail = self.walk.trail
        last = trail.steps[-1] if trail.steps else None
        threshold = trail.limits.threshold
        if last is not None and last.level is TocLevel.SEGMENT and last.matches:
            count = len(last.matches)
            return f"Collected evidence from {count} matching segment{'s' if count != 1 else ''}"
        if last is not None and not last.matches:
            return f"No node matched; no branch is left with a score of at least {threshold:.2f}"
        return f"No branch is left with a score of at least {threshold:.2f}"


def descend(
    walk: Walk,
    roots: Sequence[TocNode],
    ranges: Sequence[TimeRange],
    *,
    phase: StepPhase,
    scope: str,
    open_roots: bool,
) -> None:
    """Best-first descent from ``roots``.

    With ``open_roots`` the roots are opened without being scored (they cover the period the
    query asked about); otherwise the roots themselves are scored first.
    """
    trail = walk.trail
    state = _Descent(walk, ranges)
    if open_roots:
        nodes = state.children(roots)
        parent_ids = tuple(root.node_id for root in roots)
    else:
        unseen = [node for node in roots if node.node_id not in trail.seen]
        nodes = walk.lens.prune(unseen)
        state.pruned = (len(unseen) - len(nodes), len(unseen))
        parent_ids = ()
    scope += state.pruned_note(level_of(nodes or roots))
    if not nodes:
        return
    reported = search(
        walk, nodes, phase=phase, level=level_of(nodes), scope=scope, parent_ids=parent_ids
    )
    if reported is None:
        return
    state.absorb(reported)
    while True:
        if trail.halted is not None:
            trail.annotate(trail.stop_note())
            return
        if walk.book.enough():
            trail.annotate(f"Stopping: {len(walk.book.evidence)} evidence items collected")
            return
        if state.settled():
            trail.annotate(
                f"Stopping: {walk.book.full_segments()} segments contain every term and no "
                "waiting branch matches better"
            )
            return
        waiting = state.pop()
        if waiting is None:
            trail.annotate(state.dead_end())
            return
        node = waiting.scored.node
        drill = waiting.step == len(trail.steps)
        label = node_label(node.node_id)
        score = waiting.scored.coverage
        if drill:
            reason = f"Drilling into {label} (best match, score {score:.2f})"
        else:
            reason = (
                f"Backtracking to {label} (next best, score {score:.2f}, from step {waiting.step})"
            )
        trail.annotate(reason, chosen=node.node_id)
        children = state.children([node])
        level = level_of(children, node.level.child())
        reported = search(
            walk,
            children,
            phase=StepPhase.DRILL if drill else StepPhase.BACKTRACK,
            level=level,
            scope=label + state.pruned_note(level),
            parent_ids=(node.node_id,),
        )
        if reported is None:
            trail.annotate(trail.stop_note())
            return
        state.absorb(reported)
