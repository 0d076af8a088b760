"""Indexes that fill themselves from the store's listings the first time they are needed.

A JSON directory store does not read its records when it opens. The node index loads one level
at a time, from the spans lines of that level's tree files, when a query first needs that level;
the event index loads every month's offset index on the first event operation. Until a level
is loaded, membership is answered by a probe of the one tree file the id belongs in, and writes
to that level leave the index alone: the listing will pick them up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from tocsearch.errors import InvalidId
from tocsearch.ids import level_of
from tocsearch.levels import TocLevel
from tocsearch.storage._index import EventIndex, NodeIndex

__all__ = ["LazyEventIndex", "LazyNodeIndex", "NodeEntry"]

NodeEntry = tuple[str, datetime, datetime]
"""A node id with the span it is indexed under."""


def _level(node_id: object) -> TocLevel | None:
    if not isinstance(node_id, str):
        return None
    try:
        return level_of(node_id)
    except InvalidId:
        return None


class LazyNodeIndex(NodeIndex):
    """A :class:`NodeIndex` whose levels are read from the store on first use.

    Args:
        load: the ``(node_id, start, end)`` entries stored at one level.
        probe: whether a node with this (valid) id is stored, for levels not yet loaded.
    """

    def __init__(
        self,
        load: Callable[[TocLevel], Iterable[NodeEntry]],
        probe: Callable[[str], bool],
    ) -> None:
        super().__init__()
        self._load = load
        self._probe = probe
        self._loaded: set[TocLevel] = set()

    def loaded(self, level: TocLevel) -> bool:
        """Whether a level's listing has been read."""
        return level in self._loaded

    def ensure(self, level: TocLevel) -> None:
        """Read one level's listing if it has not been read yet."""
        if level in self._loaded:
            return
        # One sort for the whole listing, not one insertion per node.
        super().add_many(level, self._load(level))
        self._loaded.add(level)

    def ensure_all(self) -> None:
        """Read every level's listing."""
        for level in TocLevel:
            self.ensure(level)

    def __contains__(self, node_id: object) -> bool:
        level = _level(node_id)
        if level is None:
            return False
        assert isinstance(node_id, str)
        if level in self._loaded:
            return super().__contains__(node_id)
        return self._probe(node_id)

    def known(self, node_ids: Iterable[object]) -> list[str]:
        return [node_id for node_id in node_ids if isinstance(node_id, str) and node_id in self]

    def __len__(self) -> int:
        self.ensure_all()
        return super().__len__()

    def ids(self) -> Iterable[str]:
        self.ensure_all()
        return super().ids()

    def add(self, node_id: str, level: TocLevel, start: datetime, end: datetime) -> None:
        if level in self._loaded:
            super().add(node_id, level, start, end)

    def discard(self, node_id: str) -> None:
        level = _level(node_id)
        if level is not None and level in self._loaded:
            super().discard(node_id)

    def span(self, node_id: str) -> tuple[TocLevel, datetime, datetime] | None:
        level = _level(node_id)
        if level is None:
            return None
        self.ensure(level)
        return super().span(node_id)

    def query(
        self, level: TocLevel, start: datetime | None = None, end: datetime | None = None
    ) -> list[str]:
        self.ensure(level)
        return super().query(level, start, end)

    def check(self) -> None:
        self.ensure_all()
        super().check()


class LazyEventIndex(EventIndex):
    """An :class:`EventIndex` read from the store's listing on the first event operation.

    Listed events are indexed at the millisecond their id carries, so time-range answers are
    candidates: a superset that the store narrows on the exact timestamps it reads.

    Args:
        load: every stored ``(event_id, timestamp to the millisecond, session_id)``.
    """

    def __init__(self, load: Callable[[], Iterable[tuple[str, datetime, str]]]) -> None:
        super().__init__()
        self._load = load
        self._is_loaded = False
        self._session_of: dict[str, str] = {}

    def ensure(self) -> None:
        """Read the event listing if it has not been read yet."""
        if self._is_loaded:
            return
        entries = list(self._load())
        # Marked loaded first: EventIndex.add calls discard, which would come back here.
        self._is_loaded = True
        for event_id, timestamp, session_id in entries:
            super().add(event_id, timestamp, session_id)
            self._session_of[event_id] = session_id

    def session_of(self, event_id: str) -> str | None:
        """The session an event is filed under, or None when it is not stored."""
        self.ensure()
        return self._session_of.get(event_id)

    def __contains__(self, event_id: object) -> bool:
        self.ensure()
        return super().__contains__(event_id)

    def __len__(self) -> int:
        self.ensure()
        return super().__len__()

    def ids(self) -> Iterable[str]:
        self.ensure()
        return super().ids()

    def add(self, event_id: str, timestamp: datetime, session_id: str) -> None:
        self.ensure()
        # EventIndex.add discards the old entry through self.discard, so record the session after.
        super().add(event_id, timestamp, session_id)
        self._session_of[event_id] = session_id

    def add_many(self, entries: Iterable[tuple[str, datetime, str]]) -> None:
        self.ensure()
        listed = list(entries)
        super().add_many(listed)
        for event_id, _, session_id in listed:
            self._session_of[event_id] = session_id

    def discard(self, event_id: str) -> None:
        self.ensure()
        self._session_of.pop(event_id, None)
        super().discard(event_id)

    def in_time_range(self, start: datetime | None, end: datetime | None) -> list[str]:
        """Candidate ids for ``[start, end)``: every event in the range, and perhaps a few in
        the millisecond just before ``start``."""
        self.ensure()
        if start is not None:
            try:
                start = start - timedelta(milliseconds=1)
            except OverflowError:
                start = None
        return super().in_time_range(start, end)

    def between(self, first_id: str, last_id: str) -> list[str]:
        self.ensure()
        return super().between(first_id, last_id)

    def before(self, event_id: str, limit: int) -> list[str]:
        self.ensure()
        return super().before(event_id, limit)

    def after(self, event_id: str, limit: int) -> list[str]:
        self.ensure()
        return super().after(event_id, limit)

    def session(self, session_id: str) -> list[str]:
        self.ensure()
        return super().session(session_id)

    def check(self) -> None:
        self.ensure()
        super().check()
