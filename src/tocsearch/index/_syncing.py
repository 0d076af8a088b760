"""IndexingStorage: a store whose writes reach its search index in the same call."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from datetime import datetime
from types import TracebackType

from tocsearch.index._sidecar import SearchIndex
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._common import asked_ids, reads_of

__all__ = ["IndexingStorage"]


class IndexingStorage:
    """A :class:`~tocsearch.storage.Storage` that passes every call to ``index.storage`` and
    mirrors the writes that change indexed text (events, segments, their deletions) into
    ``index``, so a builder writing through it keeps the index in step with the store.

    The store is written first; if indexing then fails, the next :meth:`SearchIndex.sync`
    sees the counts differ and catches up. Wrapping syncs the index first. Closing closes the
    store and the index.

    >>> from tocsearch.storage import InMemoryStorage
    >>> from tocsearch.examples import load_example_events
    >>> from tocsearch.ingest import TocBuilder
    >>> store = IndexingStorage(SearchIndex(InMemoryStorage()))
    >>> _ = TocBuilder(store).ingest(load_example_events()[:40])
    >>> store.index.check()
    """

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self.storage = index.storage
        index.sync()

    # -- writes that the index mirrors -----------------------------------------------------
    def put_node(self, node: TocNode) -> None:
        self.put_nodes((node,))

    def put_nodes(self, nodes: Iterable[TocNode]) -> None:
        batch = list(nodes)
        self.storage.put_nodes(batch)
        self.index.add_segments(batch)
        self.index.mark_synced()

    def delete_node(self, node_id: str) -> None:
        self.storage.delete_node(node_id)
        self.index.remove_segments((node_id,))
        self.index.mark_synced()

    def put_event(self, event: Event) -> None:
        self.put_events((event,))

    def put_events(self, events: Iterable[Event]) -> None:
        batch = list(events)
        self.storage.put_events(batch)
        self.index.add_events(batch)
        self.index.mark_synced()

    # -- everything else, passed through ---------------------------------------------------
    def get_node(self, node_id: str) -> TocNode:
        return self.storage.get_node(node_id)

    def find_node(self, node_id: str) -> TocNode | None:
        return self.storage.find_node(node_id)

    def get_child_nodes(self, parent_id: str) -> list[TocNode]:
        return self.storage.get_child_nodes(parent_id)

    def get_toc_root(self) -> list[TocNode]:
        return self.storage.get_toc_root()

    def get_nodes_by_level(
        self, level: TocLevel, start: datetime | None = None, end: datetime | None = None
    ) -> list[TocNode]:
        return self.storage.get_nodes_by_level(level, start, end)

    def iter_node_ids(self) -> Iterator[str]:
        return self.storage.iter_node_ids()

    def count_nodes(self) -> int:
        return self.storage.count_nodes()

    def put_grip(self, grip: Grip) -> None:
        self.storage.put_grip(grip)

    def put_grips(self, grips: Iterable[Grip]) -> None:
        self.storage.put_grips(grips)

    def get_grip(self, grip_id: str) -> Grip:
        return self.storage.get_grip(grip_id)

    def find_grip(self, grip_id: str) -> Grip | None:
        return self.storage.find_grip(grip_id)

    def find_grips(self, grip_ids: Iterable[str]) -> dict[str, Grip]:
        return self.storage.find_grips(grip_ids)

    def delete_grip(self, grip_id: str) -> None:
        self.storage.delete_grip(grip_id)

    def iter_grip_ids(self) -> Iterator[str]:
        return self.storage.iter_grip_ids()

    def get_event(self, event_id: str) -> Event:
        return self.storage.get_event(event_id)

    def find_event(self, event_id: str) -> Event | None:
        return self.storage.find_event(event_id)

    def has_event(self, event_id: str) -> bool:
        return self.storage.has_event(event_id)

    def get_events(self, start: datetime | None = None, end: datetime | None = None) -> list[Event]:
        return self.storage.get_events(start, end)

    def get_event_range(self, first_id: str, last_id: str) -> list[Event]:
        return self.storage.get_event_range(first_id, last_id)

    def get_events_before(self, event_id: str, limit: int) -> list[Event]:
        return self.storage.get_events_before(event_id, limit)

    def get_events_after(self, event_id: str, limit: int) -> list[Event]:
        return self.storage.get_events_after(event_id, limit)

    def get_session_events(self, session_id: str) -> list[Event]:
        return self.storage.get_session_events(session_id)

    def count_events(self) -> int:
        return self.storage.count_events()

    def delete_events(self, event_ids: Iterable[str]) -> None:
        # Checked before the store sees them: the index is told of the same batch, and one
        # string must not be read as one id per character.
        batch = asked_ids("event_id", event_ids)
        self.storage.delete_events(batch)
        self.index.remove_events(batch)
        self.index.mark_synced()

    def scrub(self) -> None:
        """Scrub the store, then the index's own file."""
        self.storage.scrub()
        self.index.scrub()

    def revision(self) -> int | None:
        """The wrapped store's revision: every write reaches the store through it."""
        return self.storage.revision()

    def reading(self) -> AbstractContextManager[None]:
        """The wrapped store's block of reads in one transaction, where it has one
        (:meth:`tocsearch.storage.SqliteStorage.reading`)."""
        return reads_of(self.storage)

    def check(self) -> None:
        """Check the store, then that the index agrees with it."""
        self.storage.check()
        self.index.check()

    def close(self) -> None:
        self.index.close()
        self.storage.close()

    def __enter__(self) -> IndexingStorage:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
