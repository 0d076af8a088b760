"""InMemoryStorage: the Storage protocol over plain dicts, for tests, notebooks and demos."""

from __future__ import annotations

import marshal
from collections.abc import Iterator

from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._leaf_map import LeafMap
from tocsearch.storage._memory_codec import (
    PackedEvent,
    grip_fields,
    grip_from_fields,
    pack_event,
    pack_node,
    unpack_event,
    unpack_node,
)
from tocsearch.storage.backend import Backend

__all__ = ["InMemoryStorage"]


def _packed_segment_table() -> LeafMap:
    """Where packed segments are kept: leaves of 16, a quarter of a busy day's, so that
    opening one for a single segment stays cheap; 64 kept open, every leaf of the few dozen
    days a search reads at a time."""
    return LeafMap(leaf_size=16, kept_open=64)


class InMemoryStorage(Backend):
    """Keeps every record in memory; nothing survives the process.

    Grips and events, read a few dozen at a time, are kept packed and rebuilt on each read:
    events one ``bytes`` object each (:mod:`tocsearch.storage._memory_codec`, about half the
    memory of the objects), grips compressed with their neighbours in id order
    (:class:`~tocsearch.storage._leaf_map.LeafMap`, about a sixth of the memory of a grip
    packed alone). Nodes are kept as the stored objects and handed out without copying
    (records are immutable), because the navigator reads thousands of them a question.

    Args:
        pack_segments: keep segments packed too, compressed 16 to a leaf with their
            neighbours in id order (a day's segments sit side by side), and rebuild each on
            every read: less than half the memory for a tree, at some microseconds more for
            every segment a search reads (a leaf is decompressed when none of its segments
            was read lately). Nodes above the segments, few and read on every walk, stay
            objects.
    """

    def __init__(self, *, pack_segments: bool = False) -> None:
        super().__init__()
        self._pack_segments = pack_segments
        self._nodes: dict[str, TocNode] = {}
        # Packed segments (pack_segments only), compressed by the leaf of neighbours in id
        # order (a day's segments sit side by side); an id is here or in _nodes, not both.
        self._packed_nodes = _packed_segment_table()
        self._grips = LeafMap()
        # Grips with a field marshal refuses (a str subclass), kept as they are; an id is in
        # one of the two at most.
        self._odd_grips: dict[str, Grip] = {}
        self._events: dict[str, PackedEvent] = {}

    def _read_node(self, node_id: str) -> TocNode | None:
        node = self._nodes.get(node_id)
        if node is None and self._packed_nodes:
            packed = self._packed_nodes.get(node_id)
            return None if packed is None else unpack_node(node_id, packed)
        return node

    def _read_children(self, node_ids: list[str]) -> list[TocNode]:
        # The dicts hold exactly the indexed nodes: one lookup per id answers both questions.
        get = self._nodes.get
        try:
            if not self._packed_nodes:
                return [node for node in map(get, node_ids) if node is not None]
            return [node for node in map(self._read_node, node_ids) if node is not None]
        except TypeError:  # an unhashable id
            return super()._read_children(node_ids)

    def _write_nodes(self, nodes: list[TocNode]) -> None:
        objects = self._nodes
        if not self._pack_segments:
            for node in nodes:
                objects[node.node_id] = node
            return
        packed_nodes = self._packed_nodes
        entries: dict[str, bytes] = {}
        for node in nodes:
            node_id = node.node_id
            packed = pack_node(node) if node.level is TocLevel.SEGMENT else node
            if isinstance(packed, bytes):
                entries[node_id] = packed
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
        self.__dict__.update(
            {"_pack_segments": False, "_packed_nodes": {}, "_odd_grips": {}, **state}
        )
        packed_nodes = self.__dict__["_packed_nodes"]
        if isinstance(packed_nodes, dict):  # one packed bytes each, before they were in leaves
            self._packed_nodes = _packed_segment_table()
            self._packed_nodes.update(packed_nodes.items())
        grips = self.__dict__["_grips"]
        if isinstance(grips, dict):
            self._grips = LeafMap()
            self._write_grips(
                [
                    grip_from_fields(grip_id, marshal.loads(packed))
                    if isinstance(packed, bytes)
                    else packed
                    for grip_id, packed in grips.items()
                ]
            )
