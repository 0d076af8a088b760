"""What never goes into a store: the ignore list it keeps, and the ``.tocsearch-ignore`` marker.

Two ways to keep conversations out, both honoured by ``tocsearch ingest`` and ``tocsearch sync``
(and by :func:`without_ignored` for code of one's own):

- **A marker file.** An empty file named ``.tocsearch-ignore`` in a project's folder (or any
  folder above it) keeps every event recorded with a working directory inside it out of every
  store. Events that record no working directory (ChatGPT exports) are not affected.
- **The store's ignore list**, ``.tocsearch-ignore.json`` in the store directory: sessions,
  projects, events and time ranges this store refuses. :func:`~tocsearch.privacy.forget_events`
  adds what it forgets unless told not to, so that a later sync of the same transcript (which
  grew, was replaced, or is read again with ``--full``) does not bring it back.

>>> from datetime import datetime, timezone
>>> from tocsearch.models import Event
>>> when = datetime(2026, 1, 30, 9, tzinfo=timezone.utc)
>>> event = Event(event_id="evt:1769763600000:a", session_id="s1", timestamp=when,
...               role="user", event_type="user_message", text="hello")
>>> IgnoreList(sessions=frozenset({"s1"})).excludes(event)
True
>>> IgnoreList().excludes(event)
False
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import attrs

from tocsearch._checks import in_utc
from tocsearch._json_text import read_json
from tocsearch.errors import InvalidArgument, StoreCorrupted
from tocsearch.models import Event
from tocsearch.privacy._select import ForgetRequest, in_project
from tocsearch.storage._files import write_atomically

__all__ = [
    "IGNORE_LIST_NAME",
    "IGNORE_MARKER",
    "IgnoreList",
    "load_ignore_list",
    "marked_folder",
    "save_ignore_list",
    "without_ignored",
]

IGNORE_MARKER = ".tocsearch-ignore"
"""The marker file's name: in a project's folder (or above), it keeps that project out."""
IGNORE_LIST_NAME = ".tocsearch-ignore.json"
"""The ignore list's file name in the store directory (a dot name: store listings skip it)."""
_VERSION = 1
_DAWN = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _frozen_texts(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _ranges(value: Iterable[tuple[datetime, datetime]]) -> tuple[tuple[datetime, datetime], ...]:
    spans = {(in_utc(start, "range start"), in_utc(end, "range end")) for start, end in value}
    for start, end in spans:
        if start >= end:
            raise InvalidArgument(
                f"an ignored range must start before it ends: {start.isoformat()} to "
                f"{end.isoformat()}"
            )
    return tuple(sorted(spans))


@attrs.frozen
class IgnoreList:
    """Sessions, projects, events and time ranges (``[start, end)``, UTC) a store refuses."""

    sessions: frozenset[str] = attrs.field(default=frozenset(), converter=_frozen_texts)
    projects: frozenset[str] = attrs.field(default=frozenset(), converter=_frozen_texts)
    event_ids: frozenset[str] = attrs.field(default=frozenset(), converter=_frozen_texts)
    ranges: tuple[tuple[datetime, datetime], ...] = attrs.field(default=(), converter=_ranges)

    def __bool__(self) -> bool:
        return bool(self.sessions or self.projects or self.event_ids or self.ranges)

    def excludes(self, event: Event) -> bool:
        """Whether the list refuses ``event``."""
        if event.session_id in self.sessions or event.event_id in self.event_ids:
            return True
        if any(in_project(event, project) for project in self.projects):
            return True
        when = event.timestamp
        return any(start <= when < end for start, end in self.ranges)

    def with_forgotten(
        self, request: ForgetRequest, forgotten: Iterable[str], now: datetime
    ) -> IgnoreList:
        """This list plus what ``request`` forgot: its session, or its project, when that is
        all it names; its time range (closed at ``now``: what happens later is not refused)
        when that is all it names; else the ``forgotten`` event ids themselves."""
        ranged = request.since is not None or request.until is not None
        named = [request.session is not None, request.project is not None, ranged]
        if sum(named) == 1 and not request.event_ids:
            if request.session is not None:
                return attrs.evolve(self, sessions=self.sessions | {request.session})
            if request.project is not None:
                return attrs.evolve(self, projects=self.projects | {request.project})
            start = request.since if request.since is not None else _DAWN
            end = now if request.until is None else min(request.until, now)
            if start < end:
                return attrs.evolve(self, ranges=(*self.ranges, (start, end)))
            return self
        return attrs.evolve(self, event_ids=self.event_ids | set(forgotten))

    def union(self, other: IgnoreList) -> IgnoreList:
        """What either list refuses."""
        return IgnoreList(
            sessions=self.sessions | other.sessions,
            projects=self.projects | other.projects,
            event_ids=self.event_ids | other.event_ids,
            ranges=dict.fromkeys((*self.ranges, *other.ranges)),
        )

    def difference(self, other: IgnoreList) -> IgnoreList:
        """This list without the entries of ``other`` (a range goes when ``other`` holds the
        same range)."""
        return IgnoreList(
            sessions=self.sessions - other.sessions,
            projects=self.projects - other.projects,
            event_ids=self.event_ids - other.event_ids,
            ranges=[span for span in self.ranges if span not in other.ranges],
        )

    def entries(self) -> list[str]:
        """One line per entry, for people: ``session s1``, ``from 2026-01-01T00:00:00+00:00
        to ...``."""
        lines = [f"session {session}" for session in sorted(self.sessions)]
        lines += [f"project {project}" for project in sorted(self.projects)]
        lines += [f"event {event_id}" for event_id in sorted(self.event_ids)]
        lines += [f"from {start.isoformat()} to {end.isoformat()}" for start, end in self.ranges]
        return lines

    def to_json(self) -> str:
        """The list as the JSON document the store keeps."""
        body = {
            "version": _VERSION,
            "sessions": sorted(self.sessions),
            "projects": sorted(self.projects),
            "event_ids": sorted(self.event_ids),
            "ranges": [[start.isoformat(), end.isoformat()] for start, end in self.ranges],
        }
        return json.dumps(body, ensure_ascii=False, indent=1)


def load_ignore_list(store: str | os.PathLike[str]) -> IgnoreList:
    """The ignore list of the store directory ``store`` (empty when it has none).

    Raises:
        StoreCorrupted: the file is there but not an ignore list: refusing to guess keeps
            ignored conversations from slipping in.
    """
    path = Path(os.fspath(store)) / IGNORE_LIST_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return IgnoreList()
    except (OSError, UnicodeDecodeError) as error:
        raise StoreCorrupted(f"{path}: cannot read the ignore list: {error}") from None
    try:
        data: Any = read_json(text)
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            raise ValueError(f"not a version {_VERSION} ignore list")
        texts = {
            name: _strings(data.get(name, []), name)
            for name in ("sessions", "projects", "event_ids")
        }
        ranges = [
            (datetime.fromisoformat(start), datetime.fromisoformat(end))
            for start, end in data.get("ranges", [])
        ]
        return IgnoreList(ranges=ranges, **texts)
    except (ValueError, TypeError) as error:
        raise StoreCorrupted(
            f"{path}: not a readable ignore list ({error}); fix or delete the file"
        ) from None


def _strings(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{name} must be a list of strings")
    return value


def save_ignore_list(store: str | os.PathLike[str], ignore: IgnoreList) -> None:
    """Replace the store's ignore list atomically."""
    directory = Path(os.fspath(store))
    write_atomically([(directory / IGNORE_LIST_NAME, ignore.to_json().encode("utf-8"))])


def marked_folder(cwd: str, cache: dict[str, bool] | None = None) -> bool:
    """Whether the folder ``cwd`` or one above it holds a ``.tocsearch-ignore`` marker.

    ``cache`` remembers answers per folder across calls (a history names few folders).
    """
    if not cwd:
        return False
    seen = cache if cache is not None else {}
    path = Path(cwd)
    walked: list[str] = []
    found = False
    for folder in (path, *path.parents):
        key = os.fspath(folder)
        if key in seen:
            found = seen[key]
            break
        walked.append(key)
        try:
            if (folder / IGNORE_MARKER).is_file():
                found = True
                break
        except OSError:
            continue
    for key in walked:
        seen[key] = found
    return found


def without_ignored(
    events: Iterable[Event], ignore: IgnoreList | None = None
) -> tuple[list[Event], int]:
    """The events neither ``ignore`` refuses nor a ``.tocsearch-ignore`` marker keeps out, in
    their order, and how many were left out."""
    kept: list[Event] = []
    skipped = 0
    folders: dict[str, bool] = {}
    for event in events:
        if (ignore is not None and ignore.excludes(event)) or marked_folder(
            event.metadata.get("cwd", ""), folders
        ):
            skipped += 1
        else:
            kept.append(event)
    return kept, skipped
