"""check_tree: verify that a store holds a strict, complete, navigable TOC tree.

Property and stress tests call it after every build; it reads the whole store, so it is meant
for tests and ``tocsearch check``-style diagnostics, not for every request.
"""

from __future__ import annotations

import re

from tocsearch.errors import StoreCorrupted
from tocsearch.ids import parent_id, parse_node_id
from tocsearch.levels import TocLevel
from tocsearch.models import TocNode, conversation_key, time_order
from tocsearch.storage.protocol import Storage

__all__ = ["check_tree"]

_PLACEHOLDER = re.compile(
    r"^\s*(?:conversation segment|segment \d|untitled|placeholder|todo\b|tbd\b|n/a\s*$|"
    r"first message:|total events:|\.\.\.\s*$)",
    re.IGNORECASE,
)


def check_tree(
    storage: Storage, *, max_excerpt_chars: int = 200, allow_unreferenced_grips: bool = False
) -> None:
    """Raise :class:`StoreCorrupted` naming the first broken invariant of the tree in
    ``storage``; return quietly when all hold.

    The invariants: every node's id matches its level and it has exactly one parent (years
    none) that lists it; parents list existing children one level down, sorted by start time,
    and span exactly their children's activity; titles and summaries are real text; every grip
    id of every bullet resolves, and belongs to a segment under that node; each stored event is
    owned by exactly one segment of its own day, and segments own ascending, stored events
    with matching start and end times, all of one conversation (project and session); overlap
    events precede the segment and belong to its conversation; grip excerpts are
    at most ``max_excerpt_chars`` long and their event ranges exist. Unless
    ``allow_unreferenced_grips``, every stored grip is held by a segment bullet.

    Runtime complexity: O(nodes + grips + events).
    """
    nodes: dict[str, TocNode] = {}
    for node_id in sorted(storage.iter_node_ids()):
        node = storage.find_node(node_id)
        if node is None:
            raise StoreCorrupted(f"node {node_id!r} is listed but cannot be read")
        nodes[node_id] = node
    owner: dict[str, str] = {}
    referenced: set[str] = set()
    for node in nodes.values():
        _check_text(node)
        _check_parent(node, nodes)
        if node.level is TocLevel.SEGMENT:
            _check_segment(storage, node, owner)
        else:
            _check_children(node, nodes)
        referenced.update(_check_bullets(storage, node, max_excerpt_chars))
    for event in storage.get_events():
        if event.event_id not in owner:
            raise StoreCorrupted(f"event {event.event_id!r} belongs to no segment")
    if not allow_unreferenced_grips:
        for grip_id in sorted(storage.iter_grip_ids()):
            if grip_id not in referenced:
                raise StoreCorrupted(f"grip {grip_id!r} is held by no bullet")


def _check_text(node: TocNode) -> None:
    if not node.title.strip() or _PLACEHOLDER.match(node.title):
        raise StoreCorrupted(f"node {node.node_id!r} has a placeholder title {node.title!r}")
    if not node.summary or not node.summary.strip() or _PLACEHOLDER.match(node.summary):
        raise StoreCorrupted(f"node {node.node_id!r} has a placeholder summary {node.summary!r}")
    for bullet in node.bullets:
        if not bullet.text.strip() or _PLACEHOLDER.match(bullet.text):
            raise StoreCorrupted(f"node {node.node_id!r} has a placeholder bullet {bullet.text!r}")
    if node.version < 1:
        raise StoreCorrupted(f"node {node.node_id!r} has version {node.version} below 1")


def _check_parent(node: TocNode, nodes: dict[str, TocNode]) -> None:
    above = parent_id(node.node_id)
    if above is None:
        return
    parent = nodes.get(above)
    if parent is None:
        raise StoreCorrupted(f"node {node.node_id!r} has no parent: {above!r} is not stored")
    if node.node_id not in parent.child_node_ids:
        raise StoreCorrupted(f"node {node.node_id!r} is not listed by its parent {above!r}")


def _check_children(node: TocNode, nodes: dict[str, TocNode]) -> None:
    if node.event_ids or node.overlap_event_ids:
        raise StoreCorrupted(f"{node.level.value} node {node.node_id!r} owns events")
    if not node.child_node_ids:
        raise StoreCorrupted(f"{node.level.value} node {node.node_id!r} has no children")
    if len(set(node.child_node_ids)) != len(node.child_node_ids):
        raise StoreCorrupted(f"node {node.node_id!r} lists a child twice")
    children: list[TocNode] = []
    for child_id in node.child_node_ids:
        child = nodes.get(child_id)
        if child is None:
            raise StoreCorrupted(f"node {node.node_id!r} lists missing child {child_id!r}")
        if child.level is not node.level.child() or parent_id(child_id) != node.node_id:
            raise StoreCorrupted(
                f"node {node.node_id!r} lists {child_id!r}, which is not its child"
            )
        children.append(child)
    keys = [time_order(child) for child in children]
    if keys != sorted(keys):
        raise StoreCorrupted(f"node {node.node_id!r} lists its children out of time order")
    first = min(child.start_time for child in children)
    last = max(child.end_time for child in children)
    if node.start_time != first or node.end_time != last:
        raise StoreCorrupted(
            f"node {node.node_id!r} spans {node.start_time.isoformat()}.."
            f"{node.end_time.isoformat()} but its children span "
            f"{first.isoformat()}..{last.isoformat()}"
        )


def _check_segment(storage: Storage, node: TocNode, owner: dict[str, str]) -> None:
    if node.child_node_ids:
        raise StoreCorrupted(f"segment {node.node_id!r} lists child nodes")
    if not node.event_ids:
        raise StoreCorrupted(f"segment {node.node_id!r} owns no events")
    if list(node.event_ids) != sorted(set(node.event_ids)):
        raise StoreCorrupted(f"segment {node.node_id!r} lists its events out of order or twice")
    day = parse_node_id(node.node_id).first_day
    events = [storage.find_event(event_id) for event_id in node.event_ids]
    for event_id, event in zip(node.event_ids, events, strict=False):
        if event is None:
            raise StoreCorrupted(f"segment {node.node_id!r} owns missing event {event_id!r}")
        if event.timestamp.date() != day:
            raise StoreCorrupted(f"segment {node.node_id!r} owns {event_id!r} of another day")
        if event_id in owner:
            raise StoreCorrupted(
                f"event {event_id!r} is owned by both {owner[event_id]!r} and {node.node_id!r}"
            )
        owner[event_id] = node.node_id
    first, last = events[0], events[-1]
    assert first is not None
    assert last is not None
    if node.start_time != first.timestamp or node.end_time != last.timestamp:
        raise StoreCorrupted(f"segment {node.node_id!r} times differ from its events' times")
    conversation = conversation_key(first)
    for event in events:
        assert event is not None
        if conversation_key(event) != conversation:
            raise StoreCorrupted(
                f"segment {node.node_id!r} mixes conversations {conversation!r} and "
                f"{conversation_key(event)!r}"
            )
    for event_id in node.overlap_event_ids:
        overlap = storage.find_event(event_id)
        if overlap is None:
            raise StoreCorrupted(f"segment {node.node_id!r} overlaps missing event {event_id!r}")
        if conversation_key(overlap) != conversation:
            raise StoreCorrupted(
                f"segment {node.node_id!r} carries overlap {event_id!r} of another conversation"
            )
        if event_id >= node.event_ids[0]:
            raise StoreCorrupted(
                f"segment {node.node_id!r} carries overlap {event_id!r} that does not precede it"
            )


def _check_bullets(storage: Storage, node: TocNode, max_excerpt_chars: int) -> set[str]:
    key = parse_node_id(node.node_id)
    held: set[str] = set()
    for bullet in node.bullets:
        for grip_id in bullet.grip_ids:
            grip = storage.find_grip(grip_id)
            if grip is None:
                raise StoreCorrupted(f"node {node.node_id!r} cites missing grip {grip_id!r}")
            if node.level is TocLevel.SEGMENT:
                if grip.toc_node_id != node.node_id:
                    raise StoreCorrupted(
                        f"grip {grip_id!r} of segment {node.node_id!r} names {grip.toc_node_id!r}"
                    )
                if (
                    grip.event_id_start < node.event_ids[0]
                    or grip.event_id_end > node.event_ids[-1]
                ):
                    raise StoreCorrupted(f"grip {grip_id!r} reaches outside {node.node_id!r}")
                if len(grip.excerpt) > max_excerpt_chars:
                    raise StoreCorrupted(
                        f"grip {grip_id!r} excerpt has {len(grip.excerpt)} characters"
                    )
                if not storage.has_event(grip.event_id_start) or not storage.has_event(
                    grip.event_id_end
                ):
                    raise StoreCorrupted(f"grip {grip_id!r} names events that are not stored")
                held.add(grip_id)
            else:
                if grip.toc_node_id is None:
                    raise StoreCorrupted(f"grip {grip_id!r} names no segment")
                day = parse_node_id(grip.toc_node_id).first_day
                if not key.first_day <= day <= key.last_day:
                    raise StoreCorrupted(
                        f"node {node.node_id!r} cites grip {grip_id!r} of {grip.toc_node_id!r}, "
                        "outside its period"
                    )
    return held
