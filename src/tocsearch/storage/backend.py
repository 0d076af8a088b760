"""Backend: the small contract a new record store implements to become a full Storage.

A backend subclasses :class:`Backend` and says how one record is read, written and erased; this
class builds the whole caller-facing :class:`~tocsearch.storage.Storage` facade on those hooks
once, with the behaviour the shared contract suite checks for every backend: time and level
queries through in-memory indexes of ids and times (:class:`NodeIndex`, :class:`EventIndex`),
``NotFound`` errors, ``check()``, ``close()`` and ``with``. The hooks are the protected
methods below (leading underscore: subclasses implement them, callers never call them):

=====================================  ========================================================
hook                                   promise
=====================================  ========================================================
``_read_node(node_id)``                the stored node, or None
``_write_nodes(nodes)``                store every node of the batch (durably, for files)
``_erase_node(node_id)``               remove a node that is stored
``_read_grip(grip_id)``                the stored grip, or None
``_write_grips(grips)``                store every grip of the batch
``_erase_grip(grip_id)``               remove a grip, stored or not
``_grip_ids()``                        every stored grip id
``_read_event(event_id)``              the stored event, or None
``_write_events(events)``              store every event of the batch (an event put again
                                       under another session moves there)
``_erase_events(event_ids)``           remove stored events (every id is stored)
``_scrub()`` (optional)                 leave no readable copy of removed or replaced records
                                       in the store's files
``_release()``                         free files and locks; called once, by ``close()``
``_index_span(node)`` (optional)       the span a node is indexed under; may be wider than
                                       the node's own
=====================================  ========================================================

A backend that opens an existing store fills ``self._node_index`` and ``self._event_index``
(or replaces them with indexes that load themselves, as :class:`JsonDirStorage` does). Records
are immutable, so a backend may hand out the objects it keeps.

A store with a query engine of its own implements the :class:`~tocsearch.storage.Storage`
protocol directly instead, as :class:`~tocsearch.storage.SqliteStorage` does: its queries run in
SQLite, so opening it loads no index at all.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator
from datetime import datetime

from tocsearch.errors import StoreCorrupted
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode, time_order
from tocsearch.storage._common import (
    StorageCommon,
    asked_ids,
    require_limit,
    require_string_id,
)
from tocsearch.storage._index import EventIndex, NodeIndex

__all__ = ["Backend"]


class Backend(StorageCommon):
    """A Storage built from the record hooks of a subclass plus in-memory indexes.

    The index span of a node may be wider than the node's own span (a backend may index a node
    by its calendar period without reading it); queries re-check the exact span on the records
    they read.
    """

    def __init__(self) -> None:
        super().__init__()
        self._node_index = NodeIndex()
        self._event_index = EventIndex()

    # -- hooks -----------------------------------------------------------------------------
    @abc.abstractmethod
    def _read_node(self, node_id: str) -> TocNode | None:
        """The stored node with this id, or None. ``node_id`` is one the index knows."""

    @abc.abstractmethod
    def _write_nodes(self, nodes: list[TocNode]) -> None:
        """Store every node, each replacing any node with its id; durable on return."""

    @abc.abstractmethod
    def _erase_node(self, node_id: str) -> None:
        """Remove the stored node with this id; durable on return."""

    @abc.abstractmethod
    def _read_grip(self, grip_id: str) -> Grip | None:
        """The stored grip with this id, or None (for any non-empty string)."""

    @abc.abstractmethod
    def _write_grips(self, grips: list[Grip]) -> None:
        """Store every grip, each replacing any grip with its id; durable on return."""

    @abc.abstractmethod
    def _erase_grip(self, grip_id: str) -> None:
        """Remove the grip with this id if it is stored; durable on return."""

    @abc.abstractmethod
    def _grip_ids(self) -> Iterator[str]:
        """Every stored grip id, in no promised order."""

    @abc.abstractmethod
    def _read_event(self, event_id: str) -> Event | None:
        """The stored event with this id, or None. ``event_id`` is one the index knows."""

    @abc.abstractmethod
    def _write_events(self, events: list[Event]) -> None:
        """Store every event, each replacing any event with its id (and leaving its old session
        when the session changed); durable on return."""

    @abc.abstractmethod
    def _erase_events(self, event_ids: list[str]) -> None:
        """Remove the stored events with these ids (each is stored, none repeated); durable on
        return."""

    def _scrub(self) -> None:
        """Overwrite or drop what the store's files still hold of removed or replaced records.
        A store that keeps no such copies (in memory, or rewriting whole files) needs nothing."""

    def _index_span(self, node: TocNode) -> tuple[datetime, datetime]:
        """The span under which a node is indexed; backends may widen it."""
        return node.start_time, node.end_time

    # -- nodes -----------------------------------------------------------------------------
    def put_nodes(self, nodes: Iterable[TocNode]) -> None:
        self._ensure_open()
        batch = list(nodes)
        if not batch:
            return
        try:
            self._write_nodes(batch)
            for node in batch:
                start, end = self._index_span(node)
                self._node_index.add(node.node_id, node.level, start, end)
        finally:
            self._wrote()

    def find_node(self, node_id: str) -> TocNode | None:
        self._ensure_open()
        require_string_id("node_id", node_id)
        if node_id not in self._node_index:
            return None
        return self._read_node(node_id)

    def delete_node(self, node_id: str) -> None:
        self._ensure_open()
        require_string_id("node_id", node_id)
        if node_id in self._node_index:
            try:
                self._erase_node(node_id)
                self._node_index.discard(node_id)
            finally:
                self._wrote()

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
        if type(self)._index_span is not Backend._index_span:
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
            try:
                self._write_grips(batch)
            finally:
                self._wrote()

    def find_grip(self, grip_id: str) -> Grip | None:
        self._ensure_open()
        require_string_id("grip_id", grip_id)
        return self._read_grip(grip_id) if grip_id else None

    def delete_grip(self, grip_id: str) -> None:
        self._ensure_open()
        require_string_id("grip_id", grip_id)
        if grip_id:
            try:
                self._erase_grip(grip_id)
            finally:
                self._wrote()

    def iter_grip_ids(self) -> Iterator[str]:
        self._ensure_open()
        return iter(list(self._grip_ids()))

    # -- events ----------------------------------------------------------------------------
    def put_events(self, events: Iterable[Event]) -> None:
        self._ensure_open()
        batch = list(events)
        if not batch:
            return
        try:
            self._write_events(batch)
            self._event_index.add_many(
                (event.event_id, event.timestamp, event.session_id) for event in batch
            )
        finally:
            self._wrote()

    def find_event(self, event_id: str) -> Event | None:
        self._ensure_open()
        require_string_id("event_id", event_id)
        if event_id not in self._event_index:
            return None
        return self._read_event(event_id)

    def has_event(self, event_id: str) -> bool:
        self._ensure_open()
        require_string_id("event_id", event_id)
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
        require_string_id("first_id", first_id)
        require_string_id("last_id", last_id)
        return self._read_events(self._event_index.between(first_id, last_id))

    def get_events_before(self, event_id: str, limit: int) -> list[Event]:
        self._ensure_open()
        require_string_id("event_id", event_id)
        require_limit(limit)
        return self._read_events(self._event_index.before(event_id, limit))

    def get_events_after(self, event_id: str, limit: int) -> list[Event]:
        self._ensure_open()
        require_string_id("event_id", event_id)
        require_limit(limit)
        return self._read_events(self._event_index.after(event_id, limit))

    def get_session_events(self, session_id: str) -> list[Event]:
        self._ensure_open()
        require_string_id("session_id", session_id)
        return self._read_events(self._event_index.session(session_id))

    def count_events(self) -> int:
        self._ensure_open()
        return len(self._event_index)

    def delete_events(self, event_ids: Iterable[str]) -> None:
        self._ensure_open()
        index = self._event_index
        stored = [event_id for event_id in asked_ids("event_id", event_ids) if event_id in index]
        if not stored:
            return
        try:
            self._erase_events(stored)
            for event_id in stored:
                index.discard(event_id)
        finally:
            self._wrote()

    def scrub(self) -> None:
        self._ensure_open()
        self._scrub()

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
