"""Gathering events from one input: strict and lenient handling of bad records, duplicate ids."""

from __future__ import annotations

from datetime import datetime

from tocsearch.errors import ImportFailed, InvalidArgument
from tocsearch.importers._records import ImportProblem, ImportResult
from tocsearch.models import Event, EventRole, EventType

__all__ = ["BadRecord", "Collector", "make_event"]


class BadRecord(Exception):
    """Raised by a record parser with the reason a record cannot be imported.

    It never leaves the importers: the collector turns it into an :class:`ImportProblem`.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Collector:
    """Collects the events of one import and decides what a bad record means.

    In strict mode the first problem raises :class:`ImportFailed`; in lenient mode it is recorded
    and the record skipped. Two records that yield the same event id are fine when the events are
    equal (a resumed transcript repeats earlier lines) and a problem when they differ, because
    keeping either would silently lose the other.
    """

    def __init__(self, path: str, *, strict: bool) -> None:
        self.path = path
        self.strict = strict
        self.records_read = 0
        self._events: dict[str, Event] = {}
        self._where: dict[str, str] = {}
        self._problems: list[ImportProblem] = []
        self._unknown: dict[str, int] = {}

    @property
    def event_count(self) -> int:
        """How many distinct events have been kept so far."""
        return len(self._events)

    def problem(self, location: str, reason: str, *, path: str | None = None) -> None:
        """Report a bad record: raise in strict mode, remember it in lenient mode.

        Raises:
            ImportFailed: in strict mode, always.
        """
        found = ImportProblem(path=path or self.path, location=location, reason=reason)
        if self.strict:
            raise ImportFailed(str(found))
        self._problems.append(found)

    def count_unknown(self, kinds: list[str]) -> None:
        """Count content types met that the importer does not know (their text was kept)."""
        for kind in kinds:
            self._unknown[kind] = self._unknown.get(kind, 0) + 1

    def add(self, events: list[Event], location: str, *, path: str | None = None) -> None:
        """Keep the events of one record, all or none, unless one clashes with a kept id."""
        for event in events:
            kept = self._events.get(event.event_id)
            if kept is not None and kept != event:
                self.problem(
                    location,
                    f"event id {event.event_id!r} is already used by a different event "
                    f"({self._where[event.event_id]})",
                    path=path,
                )
                return
        where = location if path is None or path == self.path else f"{path} {location}"
        for event in events:
            if event.event_id not in self._events:
                self._events[event.event_id] = event
                self._where[event.event_id] = where

    def result(self) -> ImportResult:
        """The events sorted by id, the problems in the order met."""
        ordered = tuple(self._events[key] for key in sorted(self._events))
        return ImportResult(
            events=ordered,
            problems=tuple(self._problems),
            records_read=self.records_read,
            source_path=self.path,
            unknown_content=dict(sorted(self._unknown.items())),
        )


def make_event(
    *,
    event_id: str,
    session_id: str,
    timestamp: datetime,
    role: EventRole,
    event_type: EventType,
    text: str,
    metadata: dict[str, str] | None = None,
    agent: str | None = None,
) -> Event:
    """An Event, with a model validation error turned into a :class:`BadRecord`."""
    try:
        return Event(
            event_id=event_id,
            session_id=session_id,
            timestamp=timestamp,
            role=role,
            event_type=event_type,
            text=text,
            metadata=metadata or {},
            agent=agent,
        )
    except (InvalidArgument, ValueError) as error:
        raise BadRecord(str(error)) from None
