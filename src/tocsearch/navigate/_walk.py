"""What the parts of one navigation share, and the one search step they all take.

A :class:`Walk` bundles the store, the :class:`~tocsearch.navigate._lens.Lens` (how nodes
match), the :class:`~tocsearch.navigate._trail.Trail` (steps, iterations, reads, halting) and
the :class:`~tocsearch.navigate._book.EvidenceBook` (what was found). The descent
(:mod:`~tocsearch.navigate._descent`), the scan (:mod:`~tocsearch.navigate._scan`), the
teleport (:mod:`~tocsearch.navigate._teleport`) and the grep (:mod:`~tocsearch.navigate._grep`)
each take a walk and change it only through the trail's and the book's methods.

Termination does not depend on the tree being well formed: a node is scored at most once,
children must be deeper than their parent, and every loop is bounded by the trail's limits.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from tocsearch.levels import TocLevel
from tocsearch.models import Event, TocNode
from tocsearch.navigate._book import EvidenceBook
from tocsearch.navigate._events import segment_events
from tocsearch.navigate._lens import Lens, Scored
from tocsearch.navigate._skeleton import SkeletonView
from tocsearch.navigate._trail import Trail
from tocsearch.navigate.result import StepMatch, StepPhase
from tocsearch.navigate.timehints import TimeRange
from tocsearch.storage.protocol import Storage

__all__ = [
    "Walk",
    "events_of",
    "holds_events",
    "inside",
    "level_of",
    "search",
    "wholly_inside",
]


@attrs.define
class Walk:
    """The shared parts of one navigation."""

    storage: Storage
    lens: Lens
    trail: Trail
    book: EvidenceBook
    # The stored children of the nodes a digest route opened, by parent id: the scan, the
    # grep and the check of a period read the same branches.
    children: dict[str, list[TocNode]] = attrs.field(factory=dict)
    # The events of the segments read, by segment id: the teleport's check and the grep read
    # the same segments.
    events: dict[str, list[Event]] = attrs.field(factory=dict)
    # Whether the store holds any event (None: not asked yet); see holds_events().
    any_events: bool | None = None
    # The upper tree as kept between questions while the store is unchanged (None: read it).
    skeleton: SkeletonView | None = None


def holds_events(walk: Walk) -> bool:
    """Whether the store holds any event, asked of it once per navigation."""
    if walk.any_events is None:
        walk.any_events = walk.storage.count_events() > 0
    return walk.any_events


def events_of(walk: Walk, segment: TocNode) -> list[Event]:
    """The events of ``segment`` (:func:`~tocsearch.navigate._events.segment_events`), read
    once per navigation."""
    known = walk.events.get(segment.node_id)
    if known is None:
        known = walk.events[segment.node_id] = segment_events(walk.storage, segment)
    return known


def search(
    walk: Walk,
    nodes: Sequence[TocNode],
    *,
    phase: StepPhase,
    level: TocLevel,
    scope: str,
    parent_ids: tuple[str, ...] = (),
    floor: float = 0.0,
) -> list[Scored] | None:
    """Score ``nodes`` as one step and report the best ``width`` with a coverage of at least
    ``floor``. Returns the reported nodes best first, or None when a limit stopped the walk
    before the search."""
    trail = walk.trail
    if not trail.begin():
        return None
    room = trail.room()
    if len(nodes) > room:
        nodes = nodes[:room]
    trail.charge(nodes=(node.node_id for node in nodes))
    ranked, weights = walk.lens.rank(nodes)
    reported: list[Scored] = []
    for candidate in ranked:
        if len(reported) >= trail.limits.width or candidate.coverage < floor:
            break
        reported.append(walk.lens.scored(candidate, weights))
    trail.record_step(
        phase=phase,
        level=level,
        scope=scope,
        parent_ids=parent_ids,
        searched=len(nodes),
        matched=len(ranked),
        matches=tuple(
            StepMatch(item.node.node_id, item.node.title, item.coverage, item.field, item.text)
            for item in reported
        ),
    )
    return reported


def inside(node: TocNode, ranges: Sequence[TimeRange]) -> bool:
    """Whether ``node`` overlaps any of ``ranges`` (always, when there are none)."""
    return not ranges or any(span.overlaps(node.start_time, node.end_time) for span in ranges)


def wholly_inside(node: TocNode, ranges: Sequence[TimeRange]) -> bool:
    """Whether ``node`` lies inside one of ``ranges`` (always, when there are none), and so
    every node below it does."""
    return not ranges or any(
        span.start <= node.start_time and node.end_time < span.end for span in ranges
    )


def level_of(nodes: Sequence[TocNode], default: TocLevel | None = None) -> TocLevel:
    """The shallowest level among ``nodes`` (they share one in a well-formed tree)."""
    if nodes:
        first = nodes[0].level
        if all(node.level is first for node in nodes):
            return first
        return min((node.level for node in nodes), key=lambda level: level.depth)
    return default if default is not None else TocLevel.SEGMENT
