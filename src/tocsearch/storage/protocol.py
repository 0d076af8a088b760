"""The Storage protocol: what every backend offers, with one behaviour across all of them.

Time ranges are half-open, ``[start, end)``; ``None`` leaves that side open. A node is in a range
when its own span ``[start_time, end_time]`` overlaps it: ``start_time < end`` and
``end_time >= start``. Events are in a range when their timestamp is.

Every method that takes an id (of a node, grip, event or session, or an event id bounding a
range) raises :class:`~tocsearch.errors.InvalidId` naming the argument and the value when it
is not a string, before reading or changing anything: no record can have such an id, so an
answer of None, False or nothing would hide the caller's mistake. A batch of ids
(``find_grips``, ``delete_events``) is refused whole for one such id, and refused with
:class:`~tocsearch.errors.InvalidArgument` when it is one string rather than a collection.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Storage"]


@runtime_checkable
class Storage(Protocol):
    """A store of TOC nodes, grips and events.

    Writes are durable when the call returns (for backends that write files). Reads never
    return a half-written record.
    """

    # -- nodes -----------------------------------------------------------------------------
    def put_node(self, node: TocNode) -> None:
        """Store a node, replacing any node with the same id."""

    def put_nodes(self, nodes: Iterable[TocNode]) -> None:
        """Store several nodes; each replaces any node with the same id."""

    def get_node(self, node_id: str) -> TocNode:
        """The node with this id.

        Raises:
            NodeNotFound: no such node is stored.
        """
        ...

    def find_node(self, node_id: str) -> TocNode | None:
        """The node with this id, or None."""
        ...

    def delete_node(self, node_id: str) -> None:
        """Remove a node; removing a node that is not there is not an error."""

    def get_child_nodes(self, parent_id: str) -> list[TocNode]:
        """The stored children named by a parent's ``child_node_ids``, sorted by start time
        (ties by id). Child ids that name no stored node are skipped.

        Raises:
            NodeNotFound: the parent is not stored.
        """
        ...

    def get_toc_root(self) -> list[TocNode]:
        """The year nodes, sorted by start time."""
        ...

    def get_nodes_by_level(
        self, level: TocLevel, start: datetime | None = None, end: datetime | None = None
    ) -> list[TocNode]:
        """The nodes of one level whose span overlaps ``[start, end)``, sorted by start time
        (ties by id).

        Runtime complexity: O(log n + k) index work for k nodes returned.
        """
        ...

    def iter_node_ids(self) -> Iterator[str]:
        """Every stored node id, in no promised order."""
        ...

    def count_nodes(self) -> int:
        """How many nodes are stored."""
        ...

    # -- grips -----------------------------------------------------------------------------
    def put_grip(self, grip: Grip) -> None:
        """Store a grip, replacing any grip with the same id."""

    def put_grips(self, grips: Iterable[Grip]) -> None:
        """Store several grips."""

    def get_grip(self, grip_id: str) -> Grip:
        """The grip with this id.

        Raises:
            GripNotFound: no such grip is stored.
        """
        ...

    def find_grip(self, grip_id: str) -> Grip | None:
        """The grip with this id, or None for a string that names no stored grip (empty or
        malformed included)."""
        ...

    def find_grips(self, grip_ids: Iterable[str]) -> dict[str, Grip]:
        """The stored grips among ``grip_ids``, by id, in the order the ids are first given;
        ids that name no stored grip are left out. One read for the lot where the backend
        can (a bullet's grips, an answer's grips), the same grips as :meth:`find_grip` of
        each id, and the same refusal.

        Raises:
            InvalidArgument: ``grip_ids`` is one string rather than a collection of ids.
        """
        ...

    def delete_grip(self, grip_id: str) -> None:
        """Remove a grip; removing a grip that is not there is not an error."""

    def iter_grip_ids(self) -> Iterator[str]:
        """Every stored grip id, in no promised order."""
        ...

    # -- events ----------------------------------------------------------------------------
    def put_event(self, event: Event) -> None:
        """Store an event, replacing any event with the same id."""

    def put_events(self, events: Iterable[Event]) -> None:
        """Store several events."""

    def get_event(self, event_id: str) -> Event:
        """The event with this id.

        Raises:
            EventNotFound: no such event is stored.
        """
        ...

    def find_event(self, event_id: str) -> Event | None:
        """The event with this id, or None."""
        ...

    def has_event(self, event_id: str) -> bool:
        """Whether an event with this id is stored."""
        ...

    def get_events(self, start: datetime | None = None, end: datetime | None = None) -> list[Event]:
        """The events with timestamps in ``[start, end)``, in event-id (time) order."""
        ...

    def get_event_range(self, first_id: str, last_id: str) -> list[Event]:
        """The stored events whose ids sort between ``first_id`` and ``last_id``, inclusive,
        in id order."""
        ...

    def get_events_before(self, event_id: str, limit: int) -> list[Event]:
        """Up to ``limit`` events whose ids sort just before ``event_id``, in id order
        (none for a limit of 0).

        Raises:
            InvalidArgument: ``limit`` is not an ``int`` of at least 0.
        """
        ...

    def get_events_after(self, event_id: str, limit: int) -> list[Event]:
        """Up to ``limit`` events whose ids sort just after ``event_id``, in id order (none
        for a limit of 0).

        Raises:
            InvalidArgument: ``limit`` is not an ``int`` of at least 0.
        """
        ...

    def get_session_events(self, session_id: str) -> list[Event]:
        """The events of one session, in id (time) order."""
        ...

    def count_events(self) -> int:
        """How many events are stored."""
        ...

    def delete_events(self, event_ids: Iterable[str]) -> None:
        """Remove the events with these ids; ids not stored are ignored. Nodes and grips that
        cite them are left to the caller (:func:`tocsearch.forget_events` rebuilds them).

        Raises:
            InvalidArgument: ``event_ids`` is one string rather than a collection of ids.
        """

    def scrub(self) -> None:
        """Make the store's files keep no readable copy of a removed or replaced record (a
        deleted event, an old version of a node or event); a no-op where nothing lingers.

        Runtime complexity: at most one pass over the files that hold such copies.
        """

    # -- revisions -------------------------------------------------------------------------
    def revision(self) -> int | None:
        """A number that changes whenever what the store holds may have changed: after every
        write through this object (a write that failed included), and after every write by
        another process or connection the store's reads can see. Equal revisions mean every
        read answers as before, so a reader may keep what it worked out between them. None
        when the store cannot vouch for that (a JSON-dir store opened read-only beside a
        writer in another process): keep nothing.

        Runtime complexity: O(1); a file store ``stat``-s its directory, SQLite asks one
        pragma.

        Raises:
            StorageError: the store's directory was moved away, removed or replaced since it
                opened (see docs/storage.md).
        """
        ...

    # -- lifecycle -------------------------------------------------------------------------
    def check(self) -> None:
        """Verify the store's integrity: every record readable, ids consistent with their
        records, indexes consistent with the data.

        Raises:
            StoreCorrupted: with a message naming the first broken record.
        """

    def close(self) -> None:
        """Release files and locks. Further use raises StoreClosed; closing twice is fine."""

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...
