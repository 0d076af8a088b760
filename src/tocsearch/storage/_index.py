"""In-memory indexes that every backend keeps beside its data: nodes by level and time, events
by id and by session. They hold ids and times only, never whole records."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar, cast

from sortedcontainers import SortedList

from tocsearch.errors import StoreCorrupted
from tocsearch.ids import event_id_ceiling, event_id_floor
from tocsearch.levels import TocLevel

__all__ = ["EventIndex", "NodeIndex"]

_A = TypeVar("_A")
_Entry = tuple[datetime, str, datetime, TocLevel]
_FIRST_TIME = datetime.min.replace(tzinfo=timezone.utc)
"""A node in the index: ``(start, node_id, end, level)``."""


def _probe(moment: datetime) -> _Entry:
    """What a level's list bisects with to find the first entry that starts at ``moment``:
    the pair ``(moment, "")``, which sorts before every entry of that start (typed as an
    entry: the list compares it as one)."""
    return cast(_Entry, (moment, ""))


_B = TypeVar("_B")


def _last_of_each(entries: Iterable[tuple[str, _A, _B]]) -> dict[str, tuple[_A, _B]]:
    """The entries by id, a repeated id keeping its last entry at its last position: what
    adding them one by one would leave."""
    latest: dict[str, tuple[_A, _B]] = {}
    for key, first, second in entries:
        latest.pop(key, None)
        latest[key] = (first, second)
    return latest


class NodeIndex:
    """Node ids by level, ordered by start time, for overlap queries on time ranges.

    Each level keeps a sorted list of ``(start_time, node_id)`` and the longest span seen, so an
    overlap query bisects to the first node that could reach the range and stops at the first
    that starts after it: O(log n + k).
    """

    def __init__(self) -> None:
        # One entry per node, ``(start, node_id, end, level)``, held by both the span map and
        # its level's sorted list: one tuple a node instead of two. The list orders entries
        # by ``(start, node_id)``; an id is unique in its level, so no comparison reaches
        # ``end``, and a query bisects with ``(time, "")`` as if entries were pairs.
        self._by_level: dict[TocLevel, SortedList[_Entry]] = {
            level: SortedList() for level in TocLevel
        }
        self._spans: dict[str, _Entry] = {}
        self._longest: dict[TocLevel, timedelta] = {level: timedelta(0) for level in TocLevel}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        spans: dict[str, tuple[Any, ...]] = state["_spans"]
        if spans and len(next(iter(spans.values()))) == 3:
            # Pickled when a node was (level, start, end) in the map and (start, node_id) in
            # its list: index the same spans anew, keeping the longest spans seen.
            by_level: dict[TocLevel, list[tuple[str, datetime, datetime]]] = {}
            for node_id, (level, start, end) in spans.items():
                by_level.setdefault(level, []).append((node_id, start, end))
            longest = state["_longest"]
            NodeIndex.__init__(self)
            for level, entries in by_level.items():
                NodeIndex.add_many(self, level, entries)
            self._longest = longest

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._spans

    def __len__(self) -> int:
        return len(self._spans)

    def ids(self) -> Iterable[str]:
        return self._spans.keys()

    def known(self, node_ids: Iterable[object]) -> list[str]:
        """Those of ``node_ids`` that are indexed, in order (anything not a string is not)."""
        spans = self._spans
        listed = list(node_ids)
        try:
            return [node_id for node_id in listed if node_id in spans]
        except TypeError:  # an unhashable id: no node has it
            return [node_id for node_id in listed if isinstance(node_id, str) and node_id in spans]

    def add(self, node_id: str, level: TocLevel, start: datetime, end: datetime) -> None:
        self.discard(node_id)
        entry = self._spans[node_id] = (start, node_id, end, level)
        self._by_level[level].add(entry)
        if end - start > self._longest[level]:
            self._longest[level] = end - start

    def add_many(self, level: TocLevel, entries: Iterable[tuple[str, datetime, datetime]]) -> None:
        """Index many ``(node_id, start, end)`` of one level at once, as :meth:`add` would one
        by one (an id already indexed is replaced; a repeated id keeps its last entry), but
        sorting the new entries once.

        Runtime complexity: O(k log k) for k entries, against k insertions for :meth:`add`.
        """
        latest = _last_of_each(entries)
        if not latest:
            return
        for node_id in latest:
            if node_id in self._spans:
                NodeIndex.discard(self, node_id)
        longest = self._longest[level]
        added: list[_Entry] = []
        for node_id, (start, end) in latest.items():
            entry = self._spans[node_id] = (start, node_id, end, level)
            added.append(entry)
            if end - start > longest:
                longest = end - start
        self._longest[level] = longest
        self._by_level[level].update(added)

    def discard(self, node_id: str) -> None:
        entry = self._spans.pop(node_id, None)
        if entry is not None:
            self._by_level[entry[3]].discard(entry)

    def own_id(self, node_id: str) -> str:
        """The index's own string of ``node_id`` when it is indexed, else ``node_id``: a store
        that keeps it instead of an equal copy holds one string an id."""
        entry = self._spans.get(node_id)
        return node_id if entry is None else entry[1]

    def span(self, node_id: str) -> tuple[TocLevel, datetime, datetime] | None:
        entry = self._spans.get(node_id)
        return None if entry is None else (entry[3], entry[0], entry[2])

    def query(
        self, level: TocLevel, start: datetime | None = None, end: datetime | None = None
    ) -> list[str]:
        """Ids of the nodes of ``level`` whose span overlaps ``[start, end)``, by start time."""
        ordered = self._by_level[level]
        high = len(ordered) if end is None else ordered.bisect_left(_probe(end))
        if start is None:
            return [entry[1] for entry in ordered[:high]]
        # A node overlapping ``start`` starts at most the longest span before it (compared
        # before subtracting, so a start near datetime.min reaches no earlier than it).
        reach = self._longest[level]
        low = 0 if start - _FIRST_TIME < reach else ordered.bisect_left(_probe(start - reach))
        # Only a node that starts before ``start`` can end before it.
        middle = max(low, min(high, ordered.bisect_left(_probe(start))))
        found = [entry[1] for entry in ordered[low:middle] if entry[2] >= start]
        found.extend(entry[1] for entry in ordered[middle:high])
        return found

    def check(self) -> None:
        """Raise StoreCorrupted when the per-level lists and the span map disagree."""
        listed = sum(len(ordered) for ordered in self._by_level.values())
        if listed != len(self._spans):
            raise StoreCorrupted(
                f"node index lists {listed} nodes by level but holds {len(self._spans)} spans"
            )
        for node_id, entry in self._spans.items():
            if entry[1] != node_id or entry not in self._by_level[entry[3]]:
                raise StoreCorrupted(f"node index lost {node_id!r} from level {entry[3].value}")


class EventIndex:
    """Event ids in order (which is time order), with their timestamps and sessions."""

    def __init__(self) -> None:
        self._ids: SortedList[str] = SortedList()
        self._facts: dict[str, tuple[datetime, str]] = {}
        self._sessions: dict[str, SortedList[str]] = {}

    def __contains__(self, event_id: object) -> bool:
        return event_id in self._facts

    def __len__(self) -> int:
        return len(self._facts)

    def ids(self) -> Iterable[str]:
        return self._ids

    def add(self, event_id: str, timestamp: datetime, session_id: str) -> None:
        self.discard(event_id)
        self._ids.add(event_id)
        self._facts[event_id] = (timestamp, session_id)
        self._sessions.setdefault(session_id, SortedList()).add(event_id)

    def add_many(self, entries: Iterable[tuple[str, datetime, str]]) -> None:
        """Index many ``(event_id, timestamp, session_id)`` at once, as :meth:`add` would one
        by one (an id already indexed is replaced; a repeated id keeps its last entry), but
        sorting the new ids once.

        Runtime complexity: O(k log k) for k entries, against k insertions for :meth:`add`.
        """
        latest = _last_of_each(entries)
        if not latest:
            return
        for event_id in latest:
            if event_id in self._facts:
                self.discard(event_id)
        self._facts.update(latest)
        self._ids.update(latest)
        by_session: dict[str, list[str]] = {}
        for event_id, (_, session_id) in latest.items():
            by_session.setdefault(session_id, []).append(event_id)
        for session_id, ids in by_session.items():
            self._sessions.setdefault(session_id, SortedList()).update(ids)

    def discard(self, event_id: str) -> None:
        facts = self._facts.pop(event_id, None)
        if facts is None:
            return
        self._ids.discard(event_id)
        session = self._sessions[facts[1]]
        session.discard(event_id)
        if not session:
            del self._sessions[facts[1]]

    def in_time_range(self, start: datetime | None, end: datetime | None) -> list[str]:
        """Ids whose timestamps are in ``[start, end)``, in id order."""
        low = 0 if start is None else self._ids.bisect_left(event_id_floor(start))
        # Ids carry milliseconds; an event in end's own millisecond may still be before it.
        ceiling = None if end is None else event_id_ceiling(end)
        high = len(self._ids) if ceiling is None else self._ids.bisect_left(ceiling)
        return [
            event_id
            for event_id in self._ids.islice(low, high)
            if (start is None or self._facts[event_id][0] >= start)
            and (end is None or self._facts[event_id][0] < end)
        ]

    def between(self, first_id: str, last_id: str) -> list[str]:
        return list(self._ids.irange(first_id, last_id))

    def before(self, event_id: str, limit: int) -> list[str]:
        if limit <= 0:
            return []
        high = self._ids.bisect_left(event_id)
        return list(self._ids.islice(max(0, high - limit), high))

    def after(self, event_id: str, limit: int) -> list[str]:
        if limit <= 0:
            return []
        low = self._ids.bisect_right(event_id)
        return list(self._ids.islice(low, low + limit))

    def session(self, session_id: str) -> list[str]:
        return list(self._sessions.get(session_id, ()))

    def check(self) -> None:
        """Raise StoreCorrupted when the id list, facts and sessions disagree."""
        if len(self._ids) != len(self._facts):
            raise StoreCorrupted(
                f"event index orders {len(self._ids)} ids but knows {len(self._facts)} events"
            )
        in_sessions = sum(len(ids) for ids in self._sessions.values())
        if in_sessions != len(self._facts):
            raise StoreCorrupted(
                f"event index files {in_sessions} events under sessions, not {len(self._facts)}"
            )
