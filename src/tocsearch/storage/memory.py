"""InMemoryStorage: the Storage protocol over plain dicts, for tests, notebooks and demos."""

from __future__ import annotations

import marshal
from collections.abc import Iterator
from typing import Any

import attrs

from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode, time_order
from tocsearch.storage._common import next_revision
from tocsearch.storage._leaf_map import LeafMap
from tocsearch.storage._memory_codec import (
    PackedEvent,
    grip_fields,
    grip_from_fields,
    node_fields,
    node_from_fields,
    pack_event,
    unpack_event,
    unpack_node,
)
from tocsearch.storage.backend import Backend

__all__ = ["InMemoryStorage"]


def _packed_segment_table() -> LeafMap:
    """Where packed segments are kept: each alone in its leaf, because a search reads one or
    two of a day's segments (those its segment map keeps), and a leaf shared with neighbours
    would be opened for them all; compressed against a dictionary learned from the first 256,
    which wins back what compressing neighbours together saved. A segment's digest (already
    compressed, the last of its fields) is stored after it as it is: compressing it again
    cost more time than the rest of the segment and took room in the dictionary from the
    text. The 64 read last are kept open, for a walk that reads a segment twice."""
    return LeafMap(leaf_size=1, kept_open=64, dictionary_after=256, raw_tails=True)


def _grip_table() -> LeafMap:
    """Where grips are kept: 64 to a leaf in id order (the grips of a segment sit side by
    side), compressed against a dictionary learned from the first 4,096, which holds the id
    and time prefixes that begin every leaf: about 13% less room than a leaf alone."""
    return LeafMap(dictionary_after=4096)


def _segment(node_id: str, packed: tuple[Any, ...] | bytes) -> TocNode:
    """The segment a packed table holds under ``node_id``: its fields, or (in a table of an
    older layout, or of a store pickled while segments were kept so) its fields marshalled."""
    if isinstance(packed, bytes):
        return unpack_node(node_id, packed)
    return node_from_fields(node_id, packed)


class InMemoryStorage(Backend):
    """Keeps every record in memory; nothing survives the process.

    Grips and events, read a few dozen at a time, are kept packed and rebuilt on each read:
    events one ``bytes`` object each (:mod:`tocsearch.storage._memory_codec`, about half the
    memory of the objects), grips compressed with their neighbours in id order
    (:class:`~tocsearch.storage._leaf_map.LeafMap`, about a sixth of the memory of a grip
    packed alone). Segments are packed too, each compressed alone against a dictionary
    learned from the first ones, and rebuilt on every read (some microseconds: a search reads
    a few dozen to a few hundred). Nodes above the segments, few and read on every walk, are
    kept as the stored objects and handed out without copying (records are immutable).

    Args:
        pack_segments: keep segments packed (the default): well under half the memory of a
            tree held as objects. False keeps them as the stored objects, handed out without
            rebuilding, for a small history where memory does not matter.

    A store pickled before segments were packed by default loads with them packed.
    """

    def __init__(self, *, pack_segments: bool = True) -> None:
        super().__init__()
        self._packs_segments = pack_segments
        self._nodes: dict[str, TocNode] = {}
        # Packed segments (pack_segments only), compressed by the leaf of neighbours in id
        # order (a day's segments sit side by side); an id is here or in _nodes, not both.
        self._packed_nodes = _packed_segment_table()
        self._grips = _grip_table()
        # Grips with a field marshal refuses (a str subclass), kept as they are; an id is in
        # one of the two at most.
        self._odd_grips: dict[str, Grip] = {}
        self._events: dict[str, PackedEvent] = {}

    def _repack_segments(self) -> None:
        """Keep the segments of a store pickled before segments were packed by default (as
        objects, or packed in an older layout) the way a new store keeps them: packed, each
        alone against the table's dictionary."""
        old = self.__dict__.pop("_packed_nodes")
        self.__dict__.pop("_pack_segments", None)
        self._packs_segments = True
        self._packed_nodes = _packed_segment_table()
        segments = [node for node in self._nodes.values() if node.level is TocLevel.SEGMENT]
        get = old.get
        segments.extend(_segment(node_id, get(node_id)) for node_id in list(old))
        self._write_nodes(segments)

    def _read_node(self, node_id: str) -> TocNode | None:
        node = self._nodes.get(node_id)
        if node is None and self._packed_nodes:
            packed = self._packed_nodes.get(node_id)
            return None if packed is None else _segment(node_id, packed)
        return node

    def get_child_nodes(self, parent_id: str) -> list[TocNode]:
        # A parent above the days lists nodes kept as objects: they are handed out with one
        # dict lookup each, without the generic path's second reading of the parent and its
        # index checks (a digest route through a long history lists a few hundred parents a
        # question). Segments (packed), unknown ids and a closed store take the generic path.
        nodes = self._nodes
        parent = nodes.get(parent_id) if type(parent_id) is str else None
        if parent is None or self._closed:
            return super().get_child_nodes(parent_id)
        ids = dict.fromkeys(parent.child_node_ids)
        children = list(filter(None, map(nodes.get, ids)))
        if len(children) != len(ids):
            return super().get_child_nodes(parent_id)
        children.sort(key=time_order)
        return children

    def _read_children(self, node_ids: list[str]) -> list[TocNode]:
        # The dicts hold exactly the indexed nodes: one lookup per id answers both questions.
        get = self._nodes.get
        try:
            if not self._packed_nodes:
                return [node for node in map(get, node_ids) if node is not None]
            return [node for node in map(self._read_node, node_ids) if node is not None]
        except TypeError:  # an unhashable id
            return super()._read_children(node_ids)

    def _sharing_ids(self, nodes: list[TocNode]) -> list[TocNode]:
        """The nodes, each holding its children's own id strings (those of the index, or of
        the children in this batch) instead of equal copies: a day's list of its segments
        would otherwise repeat every segment's id, about 80 bytes a segment."""
        batch = {node.node_id: node.node_id for node in nodes}
        own_id = self._node_index.own_id
        shared: list[TocNode] = []
        for node in nodes:
            children = node.child_node_ids
            if children:
                owned = tuple([batch.get(child) or own_id(child) for child in children])
                if any(mine is not theirs for mine, theirs in zip(owned, children, strict=True)):
                    node = attrs.evolve(node, child_node_ids=owned)
            shared.append(node)
        return shared

    def _write_nodes(self, nodes: list[TocNode]) -> None:
        nodes = self._sharing_ids(nodes)
        objects = self._nodes
        if not self._packs_segments:
            for node in nodes:
                objects[node.node_id] = node
            return
        packed_nodes = self._packed_nodes
        entries: dict[str, tuple[Any, ...]] = {}
        for node in nodes:
            node_id = node.node_id
            fields = node_fields(node) if node.level is TocLevel.SEGMENT else None
            if fields is not None:
                entries[node_id] = fields
                objects.pop(node_id, None)
            else:
                objects[node_id] = node
                entries.pop(node_id, None)
                if node.level is TocLevel.SEGMENT:  # only segments are ever packed
                    packed_nodes.discard(node_id)
        packed_nodes.update(entries.items())

    def _erase_node(self, node_id: str) -> None:
        self._nodes.pop(node_id, None)
        self._packed_nodes.discard(node_id)

    def _read_grip(self, grip_id: str) -> Grip | None:
        fields = self._grips.get(grip_id)
        if fields is None:
            return self._odd_grips.get(grip_id) if self._odd_grips else None
        return grip_from_fields(grip_id, fields)

    def _write_grips(self, grips: list[Grip]) -> None:
        odd = self._odd_grips
        try:
            self._grips.update((grip.grip_id, grip_fields(grip)) for grip in grips)
        except ValueError:  # a field marshal refuses: store the batch grip by grip
            for grip in grips:
                self._write_grip(grip)
            return
        if odd:
            for grip in grips:
                odd.pop(grip.grip_id, None)

    def _write_grip(self, grip: Grip) -> None:
        grip_id = grip.grip_id
        try:
            self._grips.update([(grip_id, grip_fields(grip))])
        except ValueError:
            self._grips.discard(grip_id)
            self._odd_grips[grip_id] = grip
        else:
            self._odd_grips.pop(grip_id, None)

    def _erase_grip(self, grip_id: str) -> None:
        self._grips.discard(grip_id)
        self._odd_grips.pop(grip_id, None)

    def _grip_ids(self) -> Iterator[str]:
        yield from self._grips
        yield from self._odd_grips

    def _read_event(self, event_id: str) -> Event | None:
        packed = self._events.get(event_id)
        return None if packed is None else unpack_event(event_id, packed)

    def _write_events(self, events: list[Event]) -> None:
        for event in events:
            self._events[event.event_id] = pack_event(event)

    def _erase_events(self, event_ids: list[str]) -> None:
        for event_id in event_ids:
            del self._events[event_id]

    def _release(self) -> None:
        self._nodes.clear()
        self._packed_nodes.clear()
        self._grips.clear()
        self._odd_grips.clear()
        self._events.clear()

    def check(self) -> None:
        """Verify the indexes, every record and the grip table's leaves."""
        super().check()
        self._grips.check()
        self._packed_nodes.check()

    def __setstate__(self, state: dict[str, object]) -> None:
        # A store pickled before segments could be packed has neither of these attributes, and
        # one pickled before grips were kept in leaves holds them in a dict, each packed alone
        # (its fields marshalled) or as itself.
        self.__dict__.update({"_packed_nodes": {}, "_odd_grips": {}, **state})
        # A revision of another process means nothing here (and older pickles have none).
        self._revision = next_revision()
        if "_packs_segments" not in state:
            self._repack_segments()
        grips = self.__dict__["_grips"]
        if isinstance(grips, dict):
            self._grips = _grip_table()
            self._write_grips(
                [
                    grip_from_fields(grip_id, marshal.loads(packed))
                    if isinstance(packed, bytes)
                    else packed
                    for grip_id, packed in grips.items()
                ]
            )
