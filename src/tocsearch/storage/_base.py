"""The shared half of every backend: indexes, queries and error handling.

A backend subclasses :class:`IndexedStorage` and supplies how one record is read, written and
erased. Queries go through the in-memory :class:`NodeIndex` and :class:`EventIndex`, then read
only the records they return.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator
from datetime import datetime

from tocsearch.errors import StoreCorrupted
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode, time_order
from tocsearch.storage._common import StorageCommon
from tocsearch.storage._index import EventIndex, NodeIndex

__all__ = ["IndexedStorage"]


class IndexedStorage(StorageCommon):
    """A Storage built from record-level reads and writes plus in-memory indexes.

    Subclasses fill ``self._node_index`` and ``self._event_index`` when they open, and implement
    the ``_read_*``, ``_write_*`` and ``_erase_*`` hooks. The index span of a node may be wider
    than the node's own span (a backend may index a node by its calendar period without reading
    it); queries re-check the exact span on the records they read.
    """

    def __init__(self) -> None:
        super().__init__()
        self._node_index = NodeIndex()
        self._event_index = EventIndex()

    # -- hooks -----------------------------------------------------------------------------
    @abc.abstractmethod
    def _read_node(self, node_id: str) -> TocNode | None: ...

    @abc.abstractmethod
    def _write_nodes(self, nodes: list[TocNode]) -> None: ...

    @abc.abstractmethod
    def _erase_node(self, node_id: str) -> None: ...

    @abc.abstractmethod
    def _read_grip(self, grip_id: str) -> Grip | None: ...

    @abc.abstractmethod
    def _write_grips(self, grips: list[Grip]) -> None: ...

    @abc.abstractmethod
    def _erase_grip(self, grip_id: str) -> None: ...

    @abc.abstractmethod
    def _grip_ids(self) -> Iterator[str]: ...

    @abc.abstractmethod
    def _read_event(self, event_id: str) -> Event | None: ...

    @abc.abstractmethod
    def _write_events(self, events: list[Event]) -> None: ...

    def _index_span(self, node: TocNode) -> tuple[datetime, datetime]:
        """The span under which a node is indexed; backends may widen it."""
        return node.start_time, node.end_time

    # -- nodes -----------------------------------------------------------------------------
    def put_nodes(self, nodes: Iterable[TocNode]) -> None:
        self._ensure_open()
        batch = list(nodes)
        if not batch:
            return
        self._write_nodes(batch)
        for node in batch:
            start, end = self._index_span(node)
            self._node_index.add(node.node_id, node.level, start, end)

    def find_node(self, node_id: str) -> TocNode | None:
        self._ensure_open()
        if not isinstance(node_id, str) or node_id not in self._node_index:
            return None
        return self._read_node(node_id)

    def delete_node(self, node_id: str) -> None:
        self._ensure_open()
        if node_id in self._node_index:
            self._erase_node(node_id)
            self._node_index.discard(node_id)

    def get_child_nodes(self, parent_id: str) -> list[TocNode]:
        parent = self.get_node(parent_id)
        # find_node() for every child at once: one check that the store is open, one batch
        # read of the ids the index knows.
        children = self._read_children(list(dict.fromkeys(parent.child_node_ids)))
        children.sort(key=time_order)
        return children

    def _read_children(self, node_ids: list[str]) -> list[TocNode]:
        """The stored nodes among ``node_ids``, in order (ids not stored are left out)."""
        known = self._node_index.known(node_ids)
        return [child for child in map(self._read_node, known) if child is not None]

    def get_nodes_by_level(
        self, level: TocLevel, start: datetime | None = None, end: datetime | None = None
    ) -> list[TocNode]:
        self._ensure_open()
        level = TocLevel(level)
        read = self._read_node
        found = [
            node
            for node in map(read, self._node_index.query(level, start, end))
            if node is not None
            and (end is None or node.start_time < end)
            and (start is None or node.end_time >= start)
        ]
        # The index orders by (indexed start, id); only a backend that widens the indexed span
        # can disagree with the nodes' own start times.
        if type(self)._index_span is not IndexedStorage._index_span:
            found.sort(key=time_order)
        return found

    def iter_node_ids(self) -> Iterator[str]:
        self._ensure_open()
        return iter(list(self._node_index.ids()))

    def count_nodes(self) -> int:
        self._ensure_open()
        return len(self._node_index)

    # -- grips -----------------------------------------------------------------------------
    def put_grips(self, grips: Iterable[Grip]) -> None:
        self._ensure_open()
        batch = list(grips)
        if batch:
            self._write_grips(batch)

    def find_grip(self, grip_id: str) -> Grip | None:
        self._ensure_open()
        if not isinstance(grip_id, str) or not grip_id:
            return None
        return self._read_grip(grip_id)

    def delete_grip(self, grip_id: str) -> None:
        self._ensure_open()
        if isinstance(grip_id, str) and grip_id:
            self._erase_grip(grip_id)

    def iter_grip_ids(self) -> Iterator[str]:
        self._ensure_open()
        return iter(list(self._grip_ids()))

    # -- events ----------------------------------------------------------------------------
    def put_events(self, events: Iterable[Event]) -> None:
        self._ensure_open()
        batch = list(events)
        if not batch:
            return
        self._write_events(batch)
        self._event_index.add_many(
            (event.event_id, event.timestamp, event.session_id) for event in batch
        )

    def find_event(self, event_id: str) -> Event | None:
        self._ensure_open()
        if not isinstance(event_id, str) or event_id not in self._event_index:
            return None
        return self._read_event(event_id)

    def has_event(self, event_id: str) -> bool:
        self._ensure_open()
        return event_id in self._event_index

    def _read_events(self, event_ids: Iterable[str]) -> list[Event]:
        events: list[Event] = []
        for event_id in event_ids:
            event = self._read_event(event_id)
            if event is None:
                raise StoreCorrupted(f"indexed event {event_id!r} cannot be read")
            events.append(event)
        return events

    def get_events(self, start: datetime | None = None, end: datetime | None = None) -> list[Event]:
        self._ensure_open()
        return self._read_events(self._event_index.in_time_range(start, end))

    def get_event_range(self, first_id: str, last_id: str) -> list[Event]:
        self._ensure_open()
        return self._read_events(self._event_index.between(first_id, last_id))

    def get_events_before(self, event_id: str, limit: int) -> list[Event]:
        self._ensure_open()
        return self._read_events(self._event_index.before(event_id, limit))

    def get_events_after(self, event_id: str, limit: int) -> list[Event]:
        self._ensure_open()
        return self._read_events(self._event_index.after(event_id, limit))

    def get_session_events(self, session_id: str) -> list[Event]:
        self._ensure_open()
        return self._read_events(self._event_index.session(session_id))

    def count_events(self) -> int:
        self._ensure_open()
        return len(self._event_index)

    # -- lifecycle -------------------------------------------------------------------------
    def check(self) -> None:
        """Verify that indexes agree and every indexed record reads back under its own id."""
        self._ensure_open()
        self._node_index.check()
        self._event_index.check()
        for node_id in list(self._node_index.ids()):
            node = self._read_node(node_id)
            if node is None or node.node_id != node_id:
                raise StoreCorrupted(f"indexed node {node_id!r} cannot be read back")
        for event_id in list(self._event_index.ids()):
            event = self._read_event(event_id)
            if event is None or event.event_id != event_id:
                raise StoreCorrupted(f"indexed event {event_id!r} cannot be read back")
        for grip_id in list(self._grip_ids()):
            grip = self._read_grip(grip_id)
            if grip is None or grip.grip_id != grip_id:
                raise StoreCorrupted(f"stored grip {grip_id!r} cannot be read back")
