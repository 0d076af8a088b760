"""What every backend derives the same way from its own primitives: single puts from batch
puts, ``get_*`` from ``find_*``, the year nodes from the level query, the lifecycle, and
batched grip lookups from single ones."""

from __future__ import annotations

import abc
import contextlib
import itertools
from collections.abc import Iterable
from contextlib import AbstractContextManager
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any

from tocsearch._checks import whole_number
from tocsearch.errors import (
    EventNotFound,
    GripNotFound,
    InvalidArgument,
    InvalidId,
    NodeNotFound,
    StoreClosed,
)
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "StorageCommon",
    "asked_ids",
    "next_revision",
    "reads_of",
    "require_limit",
    "require_string_id",
    "revision_of",
]

# One sequence for every store of the process: a revision is never handed out twice, so a
# value a reader remembers from one store can never come back after a write (``next()`` of an
# ``itertools.count`` is atomic under the GIL, where ``+= 1`` on an attribute is not).
_revisions = itertools.count(1)


def _offered(storage: object, name: str) -> Any:
    """The method ``name`` of ``storage`` where the store has it, else None: a store written
    against an earlier protocol lacks the parts added since (``revision``, ``reading``)."""
    method = getattr(storage, name, None)
    return method if callable(method) else None


def reads_of(storage: object) -> AbstractContextManager[None]:
    """``storage.reading()`` where the store offers it (:meth:`tocsearch.storage.SqliteStorage.
    reading`: the reads of a block in one read transaction), else a block that changes
    nothing: every other backend's reads already cost no lock each."""
    reading = _offered(storage, "reading")
    if reading is None:
        return contextlib.nullcontext()
    held: AbstractContextManager[None] = reading()
    return held


def revision_of(storage: object) -> int | None:
    """``storage.revision()`` where the store offers it, else None (keep nothing between
    reads, as for a store that cannot vouch for its revision)."""
    revision = _offered(storage, "revision")
    if revision is None:
        return None
    answer: int | None = revision()
    return answer


def next_revision() -> int:
    """A revision number never handed out before in this process (for :meth:`revision`)."""
    return next(_revisions)


def require_string_id(kind: str, value: object) -> None:
    """Refuse an id that is not a string: no record can have it, and answering None (or
    leaving it out of a batch) would hide the caller's mistake. Every ``find_*``/``get_*`` of
    a grip refuses it the same way, alone or in a batch.

    >>> require_string_id("grip_id", 7)
    Traceback (most recent call last):
    ...
    tocsearch.errors.InvalidId: grip_id must be a string, got int 7

    Raises:
        InvalidId: ``value`` is not a ``str``.
    """
    if not isinstance(value, str):
        raise InvalidId(f"{kind} must be a string, got {type(value).__name__} {value!r}")


def asked_ids(kind: str, values: Iterable[str]) -> list[str]:
    """The distinct ids of a batch call (``find_grips``, ``delete_events``), in the order
    first given, once every one is known to be a string: nothing is read or removed for a
    batch holding something else. One string given for the whole collection is refused too,
    since it would otherwise be read as one id per character, and match nothing.

    >>> asked_ids("event_id", ["evt:b", "evt:a", "evt:b"])
    ['evt:b', 'evt:a']

    Raises:
        InvalidArgument: ``values`` is one string, or not a collection.
        InvalidId: an id is not a string.
    """
    if isinstance(values, str):
        raise InvalidArgument(f"{kind}s must be a collection of ids, not one string: {values!r}")
    try:
        asked = list(values)
    except TypeError:
        raise InvalidArgument(f"{kind}s must be a collection of ids, got {values!r}") from None
    for value in asked:
        require_string_id(kind, value)
    return list(dict.fromkeys(asked))


def require_limit(limit: int) -> None:
    """Refuse a neighbour query's ``limit`` that is not an ``int`` (a ``bool`` is not one) of
    at least 0 (which asks for nothing): a negative limit is a caller's mistake that an empty
    answer would hide.

    Raises:
        InvalidArgument: ``limit`` is not a whole number of at least 0.
    """
    whole_number("limit", limit, minimum=0)


class StorageCommon(abc.ABC):
    """The part of the Storage protocol that follows from the rest of it.

    Subclasses implement the batch puts, the ``find_*`` lookups, ``get_nodes_by_level`` and
    ``_release``; this class answers ``put_node``, ``get_node``, ``get_toc_root``,
    ``find_grips`` (one ``find_grip`` per id, unless a backend reads them at once),
    ``close`` and the ``with`` statement from them, with one behaviour for every backend.
    """

    def __init__(self) -> None:
        self._closed = False
        self._revision = next_revision()

    # -- what subclasses implement -----------------------------------------------------------
    @abc.abstractmethod
    def put_nodes(self, nodes: Iterable[TocNode]) -> None: ...

    @abc.abstractmethod
    def find_node(self, node_id: str) -> TocNode | None: ...

    @abc.abstractmethod
    def get_nodes_by_level(
        self, level: TocLevel, start: datetime | None = None, end: datetime | None = None
    ) -> list[TocNode]: ...

    @abc.abstractmethod
    def put_grips(self, grips: Iterable[Grip]) -> None: ...

    @abc.abstractmethod
    def find_grip(self, grip_id: str) -> Grip | None: ...

    @abc.abstractmethod
    def put_events(self, events: Iterable[Event]) -> None: ...

    @abc.abstractmethod
    def find_event(self, event_id: str) -> Event | None: ...

    @abc.abstractmethod
    def _release(self) -> None:
        """Free files and locks; called once by close()."""

    # -- revisions ---------------------------------------------------------------------------
    def revision(self) -> int | None:
        """A number that changes with every write this store object makes (see
        :meth:`tocsearch.storage.Storage.revision`). A backend that other processes may
        write under overrides this to see their writes too, or to answer None."""
        self._ensure_open()
        return self._revision

    def _wrote(self) -> None:
        """Move :meth:`revision` on: called after every write, whether or not it succeeded
        (a write that failed half way may have changed something)."""
        self._revision = next_revision()

    # -- helpers -----------------------------------------------------------------------------
    def _ensure_open(self) -> None:
        if self._closed:
            raise StoreClosed(f"{type(self).__name__} is closed")

    @staticmethod
    def _require_id(kind: str, value: str) -> None:
        require_string_id(kind, value)
        if not value:
            raise InvalidArgument(f"{kind} must be a non-empty string, got {value!r}")

    def _asked_grip_ids(self, grip_ids: Iterable[str]) -> list[str]:
        """The distinct ids of a :meth:`find_grips` call, in the order first given, once the
        store is known open and every id a string."""
        self._ensure_open()
        return asked_ids("grip_id", grip_ids)

    # -- derived -----------------------------------------------------------------------------
    def put_node(self, node: TocNode) -> None:
        self.put_nodes((node,))

    def get_node(self, node_id: str) -> TocNode:
        self._require_id("node_id", node_id)
        node = self.find_node(node_id)
        if node is None:
            raise NodeNotFound(f"node not found: {node_id!r}")
        return node

    def get_toc_root(self) -> list[TocNode]:
        return self.get_nodes_by_level(TocLevel.YEAR)

    def put_grip(self, grip: Grip) -> None:
        self.put_grips((grip,))

    def get_grip(self, grip_id: str) -> Grip:
        self._require_id("grip_id", grip_id)
        grip = self.find_grip(grip_id)
        if grip is None:
            raise GripNotFound(f"grip not found: {grip_id!r}")
        return grip

    def find_grips(self, grip_ids: Iterable[str]) -> dict[str, Grip]:
        # One lookup per id: a backend that can read many grips at once overrides this.
        found: dict[str, Grip] = {}
        for grip_id in self._asked_grip_ids(grip_ids):
            grip = self.find_grip(grip_id)
            if grip is not None:
                found[grip_id] = grip
        return found

    def put_event(self, event: Event) -> None:
        self.put_events((event,))

    def get_event(self, event_id: str) -> Event:
        self._require_id("event_id", event_id)
        event = self.find_event(event_id)
        if event is None:
            raise EventNotFound(f"event not found: {event_id!r}")
        return event

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()

    def __enter__(self) -> Self:
        self._ensure_open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
