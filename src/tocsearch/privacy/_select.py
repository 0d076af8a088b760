"""Which events a forget removes: a session, a project, a time range, given events, or the
events that all of the given criteria agree on.

Matching is exact, because what it picks is deleted: a session by its whole id, a project by its
recorded name (``-home-dev-shop`` for Claude Code), its working directory (``/home/dev/shop``)
or any folder below that directory. (The ``--project`` filter of search and navigate matches a
part of a name instead; that is right for finding, not for deleting.)

>>> from datetime import datetime, timezone
>>> from tocsearch.models import Event
>>> when = datetime(2026, 1, 30, 9, tzinfo=timezone.utc)
>>> event = Event(event_id="evt:1769763600000:a", session_id="s1", timestamp=when,
...               role="user", event_type="user_message", text="hello",
...               metadata={"cwd": "/home/dev/shop/api"})
>>> ForgetRequest(project="/home/dev/shop").matches(event)
True
>>> ForgetRequest(project="/home/dev/sho").matches(event)
False
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

import attrs

from tocsearch._checks import in_utc
from tocsearch.errors import InvalidArgument
from tocsearch.ids import event_id_floor, parse_event_id
from tocsearch.models import Event
from tocsearch.storage.protocol import Storage

__all__ = ["ForgetRequest", "in_project", "iter_stored_events"]

# Reading a whole history at once could need gigabytes; a scan reads this many events at a time.
_SCAN_BATCH = 20_000


def _optional_text(name: str) -> Callable[[object, attrs.Attribute[str | None], str | None], None]:
    def check(_: object, __: attrs.Attribute[str | None], value: str | None) -> None:
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise InvalidArgument(f"{name} must be a non-empty string, got {value!r}")

    return check


def _optional_time(value: datetime | None) -> datetime | None:
    return None if value is None else in_utc(value, "since/until")


def _event_ids(value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (tuple, list, set, frozenset)):
        raise InvalidArgument(f"event_ids must be a collection of event ids, got {value!r}")
    for event_id in value:
        parse_event_id(event_id)
    return tuple(dict.fromkeys(value))


def in_project(event: Event, project: str) -> bool:
    """Whether ``event`` was recorded in ``project``: its project name, its working directory,
    or a folder below that directory."""
    metadata = event.metadata
    if metadata.get("project") == project:
        return True
    cwd = metadata.get("cwd", "")
    folder = project.rstrip("/")
    return bool(cwd) and (cwd == project or (bool(folder) and cwd.startswith(folder + "/")))


@attrs.frozen
class ForgetRequest:
    """What to forget: the events that every given criterion matches (at least one is needed).

    Attributes:
        session: a whole session id.
        project: a project name or working directory (see :func:`in_project`).
        since: the first moment to forget, inclusive (timezone-aware).
        until: the moment to stop before, exclusive (timezone-aware).
        event_ids: these events only.
        dry_run: only report what would be removed.
        keep_out: also put the session, project, time range or events on the store's ignore
            list, so that a later ``sync`` or ``ingest`` of the same sources does not bring
            them back (see :mod:`tocsearch.privacy`).
    """

    session: str | None = attrs.field(default=None, validator=_optional_text("session"))
    project: str | None = attrs.field(default=None, validator=_optional_text("project"))
    since: datetime | None = attrs.field(default=None, converter=_optional_time)
    until: datetime | None = attrs.field(default=None, converter=_optional_time)
    event_ids: tuple[str, ...] = attrs.field(default=(), converter=_event_ids)
    dry_run: bool = False
    keep_out: bool = True

    def __attrs_post_init__(self) -> None:
        if not (self.session or self.project or self.since or self.until or self.event_ids):
            raise InvalidArgument(
                "say what to forget: a session, a project, a time range (since/until) or event ids"
            )
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise InvalidArgument(
                f"since ({self.since.isoformat()}) must be before until ({self.until.isoformat()})"
            )

    def matches(self, event: Event) -> bool:
        """Whether ``event`` is one to forget."""
        if self.session is not None and event.session_id != self.session:
            return False
        if self.project is not None and not in_project(event, self.project):
            return False
        if self.since is not None and event.timestamp < self.since:
            return False
        if self.until is not None and event.timestamp >= self.until:
            return False
        return not self.event_ids or event.event_id in self.event_ids

    def select(self, storage: Storage) -> list[Event]:
        """The stored events to forget, in id (time) order.

        Runtime complexity: the given events, or the session's, are read directly; a project
        alone reads every event in the time range (all, without one) in batches.
        """
        if self.event_ids:
            found = (storage.find_event(event_id) for event_id in sorted(self.event_ids))
            candidates: Iterator[Event] = (event for event in found if event is not None)
        elif self.session is not None:
            candidates = iter(storage.get_session_events(self.session))
        else:
            candidates = iter_stored_events(storage, self.since, self.until)
        return [event for event in candidates if self.matches(event)]


def iter_stored_events(
    storage: Storage, start: datetime | None = None, end: datetime | None = None
) -> Iterator[Event]:
    """Every stored event in ``[start, end)`` in id order, read a batch at a time so a large
    history is never held whole.

    Runtime complexity: O(k) events read for k in the range, in batches of 20,000.
    """
    # An event's id starts with its millisecond, so every event at or after ``start`` sorts
    # after that millisecond's floor.
    after = "" if start is None else event_id_floor(start)
    while True:
        batch = storage.get_events_after(after, _SCAN_BATCH)
        for event in batch:
            if end is not None and event.timestamp >= end:
                return
            if start is None or event.timestamp >= start:
                yield event
        if len(batch) < _SCAN_BATCH:
            return
        after = batch[-1].event_id
