"""The events of a JSON directory store: one JSON Lines log per month, with an offset index.

``months/2026-01.events.jsonl`` holds one event per line (its :func:`to_json`), in the month
its id (its timestamp) falls in, UTC. Batches are appended: serialised fully first, written
with one ``write`` on an ``O_APPEND`` descriptor, fsynced. ``months/2026-01.index.json`` says
where each event's line is::

    {"size": 5120, "sessions": ["s1", "s2"], "events": [["evt:...", 0, 0, 431], ...]}

(``size`` is how many bytes of the log the index covers; each event names its session by
number, its offset and its length). The index is written atomically after each append, so it
covers a prefix of the log made of whole lines; lines past ``size`` were appended by a batch
whose index write a crash cut off, and are read by scanning them. A last line without its
newline was cut short by a crash: it is ignored, and the next writer truncates it. A log shorter
than its index says, a missing log whose index lists events, or a whole line that is not an
event of that month, is damage (:class:`StoreCorrupted`).

Putting an event again appends its new line; the old one is dead. When dead lines outweigh live
ones the log is rewritten without them: the index is removed first, then the new log replaces
the old one, then the new index is written; a crash in between leaves no index, and the log is
scanned whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from tocsearch._json_text import read_json
from tocsearch.errors import InvalidId, StoreCorrupted
from tocsearch.ids import EVENT_MS, EVENT_PREFIX, from_epoch_ms, parse_event_id
from tocsearch.storage._files import (
    APPEND_FLAGS,
    READ_FLAGS,
    TRUNCATE_FLAGS,
    fsync_dir,
    open_file,
    read_bytes,
    remove_file,
    write_atomically,
)
from tocsearch.text import ascii_digits

__all__ = ["INDEX_SUFFIX", "LOG_SUFFIX", "EventEntry", "MonthLog", "month_of_event"]

LOG_SUFFIX = ".events.jsonl"
INDEX_SUFFIX = ".index.json"
# Dead bytes a log may carry before it is rewritten without them (and never more than live ones).
_SLACK = 1 << 20

EventEntry = tuple[str, int, int]
"""Where an event is: its session, the offset of its line and the line's length."""


_MS_PER_DAY = 86_400_000
_MONTH_OF_DAY: dict[int, str] = {}


def month_of_event(event_id: str) -> str:
    """The ``YYYY-MM`` log an event id belongs in (from the timestamp the id carries).

    Raises:
        InvalidId: not an event id.
    """
    parse_event_id(event_id)
    return month_of_valid_event(event_id)


def month_of_valid_event(event_id: str) -> str:
    """:func:`month_of_event` for an id known to be an event id (of a stored or validated
    event), without parsing it again: the month of each day is worked out once.

    >>> from datetime import datetime, timezone
    >>> from tocsearch.ids import event_id
    >>> month_of_valid_event(event_id(datetime(2026, 1, 30, 9, tzinfo=timezone.utc), "a"))
    '2026-01'
    """
    day = int(event_id[EVENT_MS]) // _MS_PER_DAY
    month = _MONTH_OF_DAY.get(day)
    if month is None:
        month = _MONTH_OF_DAY[day] = from_epoch_ms(day * _MS_PER_DAY).strftime("%Y-%m")
    return month


def _event_fields(line: bytes) -> tuple[str, str] | None:
    """The event id and session id of one log line, or None when it is not an event."""
    try:
        record = read_json(line)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    event_id, session = record.get("event_id"), record.get("session_id")
    if not isinstance(event_id, str) or not isinstance(session, str):
        return None
    return event_id, session


class MonthLog:
    """The events of one month: which line of the log holds each, once :meth:`load` ran.

    Runtime complexity: loading reads the index and any unindexed tail, O(events of the month).
    """

    def __init__(self, folder: Path, month: str) -> None:
        self.month = month
        self.log = folder / f"{month}{LOG_SUFFIX}"
        self.index = folder / f"{month}{INDEX_SUFFIX}"
        self.entries: dict[str, EventEntry] = {}
        self.size = 0
        self.live = 0
        self.torn = False

    # -- reading the index and the tail ------------------------------------------------------
    def load(self) -> None:
        """Read where every event of the month is.

        Raises:
            StoreCorrupted: the log is missing while its index lists events, shorter than its
                index says, a link, or holds a whole line that is not an event of this month.
        """
        self.entries, self.size, self.live, self.torn = {}, 0, 0, False
        covered = self._read_index()
        data_size = self._log_size()
        if data_size is None:
            if self.entries:
                raise StoreCorrupted(
                    f"{self.log} is missing, but {self.index.name} lists "
                    f"{len(self.entries)} events in it"
                )
            self.entries, self.live = {}, 0
            return
        if data_size < covered:
            raise StoreCorrupted(
                f"{self.log} holds {data_size} bytes, but its index covers {covered}: "
                "the log was cut short"
            )
        self.size = covered
        if data_size > covered:
            self._scan_tail(covered, data_size)

    def _read_index(self) -> int:
        data = read_bytes(self.index)
        if data is None:
            return 0
        try:
            raw = read_json(data)
            sessions = raw["sessions"]
            size = raw["size"]
            entries: dict[str, EventEntry] = {}
            live = 0
            prefix = EVENT_PREFIX
            for event_id, session, offset, length in raw["events"]:
                # A cheap shape check; the id's month is checked by check().
                if not (
                    isinstance(event_id, str)
                    and event_id.startswith(prefix)
                    and ascii_digits(event_id[EVENT_MS])
                    and isinstance(offset, int)
                    and isinstance(length, int)
                ):
                    raise TypeError(event_id)
                entries[event_id] = (sessions[session], offset, length)
                live += length
            if not isinstance(size, int):
                raise TypeError(size)
        except (ValueError, TypeError, KeyError, IndexError):
            # The index is a cache of the log: a damaged one is read again from the log.
            return 0
        self.entries, self.live = entries, live
        return size

    def _log_size(self) -> int | None:
        try:
            fd = open_file(self.log, READ_FLAGS)
        except FileNotFoundError:
            return None
        try:
            return os.fstat(fd).st_size
        finally:
            os.close(fd)

    def _read_range(self, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of the log (fewer when it ends sooner), never through a link."""
        fd = open_file(self.log, READ_FLAGS)
        try:
            os.lseek(fd, start, os.SEEK_SET)
            return _read_exactly(fd, end - start)
        finally:
            os.close(fd)

    def _scan_tail(self, start: int, end: int) -> None:
        tail = self._read_range(start, end)
        offset = start
        for line in tail.split(b"\n")[:-1]:
            self._take(line, offset)
            offset += len(line) + 1
        self.size = offset
        self.torn = offset != end

    def _take(self, line: bytes, offset: int) -> None:
        fields = _event_fields(line)
        if fields is None or not self._belongs(fields[0]):
            raise StoreCorrupted(
                f"{self.log}: the line at byte {offset} is not an event of {self.month}"
            )
        event_id, session = fields
        old = self.entries.get(event_id)
        if old is not None:
            self.live -= old[2]
        self.entries[event_id] = (session, offset, len(line) + 1)
        self.live += len(line) + 1

    def _belongs(self, event_id: str) -> bool:
        try:
            return month_of_event(event_id) == self.month
        except InvalidId:
            return False

    # -- reading lines -------------------------------------------------------------------------
    def read_lines(self, event_ids: list[str]) -> list[bytes | None]:
        """The stored line of each event (None where the month does not hold it), reading the
        span of the log they cover once."""
        wanted = [self.entries.get(event_id) for event_id in event_ids]
        spans = [(entry[1], entry[1] + entry[2]) for entry in wanted if entry is not None]
        if not spans:
            return [None] * len(event_ids)
        low = min(start for start, _ in spans)
        high = max(end for _, end in spans)
        data = self._read_range(low, high)
        if len(data) != high - low:
            raise StoreCorrupted(f"{self.log} ends before byte {high}: the log was cut short")
        return [
            None if entry is None else data[entry[1] - low : entry[1] - low + entry[2]]
            for entry in wanted
        ]

    def all_lines(self) -> Iterator[tuple[int, bytes]]:
        """Every whole line of the log with its offset, live or dead."""
        data = read_bytes(self.log) or b""
        offset = 0
        for line in data.split(b"\n")[:-1]:
            yield offset, line
            offset += len(line) + 1

    def verify_lines(self) -> None:
        """Raise StoreCorrupted unless every whole line of the log, live or dead, is an event
        of this month."""
        for offset, line in self.all_lines():
            fields = _event_fields(line)
            if fields is None or not self._belongs(fields[0]):
                raise StoreCorrupted(
                    f"{self.log}: the line at byte {offset} is not an event of {self.month}"
                )

    # -- writing -------------------------------------------------------------------------------
    def append(self, lines: list[tuple[str, str, bytes]]) -> None:
        """Append ``(event_id, session, line)`` records (each line ends in a newline) and make
        them durable; the index is not written (writing it fsyncs the folder, which makes a
        new log's name durable too).

        Raises:
            StoreCorrupted: the log's size is not what this writer left it at.
        """
        if self.torn:
            self._truncate()
        fd = open_file(self.log, APPEND_FLAGS)
        try:
            found = os.fstat(fd).st_size
            if found != self.size:
                raise StoreCorrupted(
                    f"{self.log} holds {found} bytes, not the {self.size} this writer left"
                )
            payload = b"".join(line for _, _, line in lines)
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        offset = self.size
        for event_id, session, line in lines:
            old = self.entries.get(event_id)
            if old is not None:
                self.live -= old[2]
            self.entries[event_id] = (session, offset, len(line))
            self.live += len(line)
            offset += len(line)
        self.size = offset

    def _truncate(self) -> None:
        fd = open_file(self.log, TRUNCATE_FLAGS)
        try:
            os.ftruncate(fd, self.size)
            os.fsync(fd)
        finally:
            os.close(fd)
        self.torn = False

    def needs_compaction(self) -> bool:
        """Whether dead lines outweigh live ones (and a megabyte)."""
        dead = self.size - self.live
        return dead > _SLACK and dead > self.live

    def compact(self) -> None:
        """Rewrite the log with its live lines only, in offset order, and its index."""
        order = sorted(self.entries.items(), key=lambda item: item[1][1])
        lines = self.read_lines([event_id for event_id, _ in order])
        remove_file(self.index)
        fsync_dir(self.index.parent)
        entries: dict[str, EventEntry] = {}
        offset = 0
        for (event_id, (session, _, _)), line in zip(order, lines, strict=True):
            assert line is not None
            entries[event_id] = (session, offset, len(line))
            offset += len(line)
        write_atomically([(self.log, b"".join(line for line in lines if line is not None))])
        self.entries, self.size, self.live, self.torn = entries, offset, offset, False
        write_atomically([(self.index, self.index_bytes())])

    def index_bytes(self) -> bytes:
        """The serialised index of what this month holds now."""
        sessions: dict[str, int] = {}
        rows: list[list[Any]] = []
        for event_id, (session, offset, length) in self.entries.items():
            rows.append([event_id, sessions.setdefault(session, len(sessions)), offset, length])
        body = {"size": self.size, "sessions": list(sessions), "events": rows}
        return json.dumps(body, separators=(",", ":")).encode()

    def listing(self) -> Iterator[tuple[str, datetime, str]]:
        """Every event of the month as ``(event_id, timestamp to the millisecond, session)``."""
        for event_id, (session, _, _) in self.entries.items():
            yield event_id, from_epoch_ms(int(event_id[EVENT_MS])), session


def _read_exactly(fd: int, count: int) -> bytes:
    chunks: list[bytes] = []
    while count > 0:
        chunk = os.read(fd, count)
        if not chunk:
            break
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)
