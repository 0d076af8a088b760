"""JsonDirStorage: a directory of readable JSON, records grouped by month, opened without
reading records.

Layout of a store directory::

    tocsearch-store.json             format marker, written last when the store is created
    .lock                            the writer's lock target
    months/2026-01.events.jsonl      the month's events, one JSON document per line
    months/2026-01.index.json        where each event's line is, and its session
    months/2026-01.tree.json         the month's segments and day nodes, and their grips
    years/2026.json                  the week, month and year nodes of a year

A history of a few years is a few hundred files, each of them plain JSON or JSON Lines
(:mod:`tocsearch.storage._jsondir_events`, :mod:`tocsearch.storage._jsondir_tree`). Opening
reads the marker only; the event indexes are read on the first event operation, the tree
files of a level the first time a query needs that level, and one tree file when a node or
grip in it is asked for by id.

A store in the first layout (one file per record) is migrated when it is opened: its records
are written in this layout, the marker is switched, and only then are the old files removed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path

from tocsearch.converter import from_json, to_json
from tocsearch.errors import InvalidId, StoreCorrupted, StoreLocked
from tocsearch.ids import month_id, parse_node_id, year_id
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._files import (
    fsync_dir,
    linked_error,
    real_dir,
    remove_temp_files,
    write_atomically,
)
from tocsearch.storage._files_index import LazyEventIndex, LazyNodeIndex, NodeEntry
from tocsearch.storage._files_store import (
    FileStorage,
    marker_version,
    open_store_dir,
    write_marker,
)
from tocsearch.storage._jsondir_events import (
    INDEX_SUFFIX,
    LOG_SUFFIX,
    MonthLog,
    month_of_event,
    month_of_valid_event,
)
from tocsearch.storage._jsondir_tree import (
    TREE_SUFFIX,
    Group,
    GroupCache,
    group_of_grip,
    group_of_node,
)
from tocsearch.storage._jsondir_v1 import OLD_ENTRIES, read_first_layout
from tocsearch.storage._lock import WriterLock
from tocsearch.storage._recent import RecentEvents
from tocsearch.storage._salvage import Salvage, SalvageBuilder

__all__ = ["JsonDirStorage"]

_FORMAT = "tocsearch.jsondir"
_LAYOUT = 2
_FOLDERS = ("months", "years")
_MONTH_LEVELS = frozenset({TocLevel.SEGMENT, TocLevel.DAY})


class JsonDirStorage(FileStorage):
    """A durable store of readable JSON files grouped by month, for histories of any size.

    Args:
        path: the store directory; a writer creates it (and its parents) when missing.
        readonly: open without the writer lock; writes then raise StorageError.

    A read-only store checks a tree file's size and time before each lookup by id, so it sees
    the newest durable version of a node or grip. Listings (nodes by level, counts, events)
    are read the first time each is needed and kept; :meth:`refresh` drops them.

    Raises:
        StoreLocked: another writer holds the store.
        StorageError: the path is not a JSON directory store (or, for a reader, no store).
        StoreCorrupted: a folder of the store is a symbolic link, or (when a first-layout
            store is migrated) one of its records cannot be read.
    """

    FORMAT = _FORMAT
    """The format name in the store's marker file."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        directory, lock, created = open_store_dir(path, _FORMAT, readonly=readonly)
        super().__init__(directory, lock)
        self._groups = GroupCache(
            trusted=lock is not None, confirm=lambda: self._home.confirm("read the store")
        )
        self._months: dict[str, MonthLog] = {}
        self._recent = RecentEvents()
        self._node_index: LazyNodeIndex = LazyNodeIndex(self._list_level, self._probe_node)
        self._event_index: LazyEventIndex = LazyEventIndex(self._list_events)
        try:
            if created:
                self._lay_out()
            elif marker_version(directory) != _LAYOUT:
                self._migrate()
            self._check_layout(repair=lock is not None)
            if lock is not None:
                remove_temp_files([directory, *self._folders()])
                _remove_first_layout(directory)
        except BaseException:
            self._release_lock()
            raise

    # -- layout ------------------------------------------------------------------------------
    def _folders(self) -> list[Path]:
        return [self._path / name for name in _FOLDERS]

    def _lay_out(self) -> None:
        self._make_folders()
        write_marker(self._path, _FORMAT, _LAYOUT)

    def _make_folders(self) -> None:
        for folder in self._folders():
            folder.mkdir(exist_ok=True)
            fsync_dir(folder)
        fsync_dir(self._path)

    def _check_layout(self, *, repair: bool) -> None:
        """Refuse folders that are symbolic links; a writer puts back missing folders (a folder
        deleted by hand must not make every later write fail)."""
        for folder in self._folders():
            try:
                real_dir(folder)
            except FileNotFoundError:
                if repair:
                    folder.mkdir()
                    fsync_dir(self._path)

    def _listed(self, folder: str, suffix: str) -> list[str]:
        """The stems of the files in a folder that end in ``suffix``, refusing links."""
        # What a folder lists (or its absence, which means no records) is the store's only in
        # the directory the store opened.
        self._home.confirm("read the store")
        try:
            entries = list(os.scandir(real_dir(self._path / folder)))
        except FileNotFoundError:
            return []
        stems: list[str] = []
        for entry in entries:
            if entry.name.startswith(".") or not entry.name.endswith(suffix):
                continue
            if entry.is_symlink():
                raise linked_error(entry.path)
            stems.append(entry.name[: -len(suffix)])
        return sorted(stems)

    # -- the tree: nodes and grips ---------------------------------------------------------
    def _tree_files(self, level: TocLevel) -> list[Path]:
        if level in _MONTH_LEVELS:
            return [
                self._path / "months" / f"{stem}{TREE_SUFFIX}"
                for stem in self._listed("months", TREE_SUFFIX)
            ]
        return [self._path / "years" / f"{stem}.json" for stem in self._listed("years", ".json")]

    def _list_level(self, level: TocLevel) -> Iterator[NodeEntry]:
        for path in self._tree_files(level):
            yield from self._groups.spans(path, level)

    def _probe_node(self, node_id: str) -> bool:
        path = group_of_node(self._path, node_id)
        return path is not None and node_id in self._groups.get(path).nodes

    def _read_node(self, node_id: str) -> TocNode | None:
        path = group_of_node(self._path, node_id)
        return None if path is None else self._groups.get(path).node(node_id)

    def _write_nodes(self, nodes: list[TocNode]) -> None:
        self._write_grouped(nodes)

    def _write_grouped(self, records: list[TocNode] | list[Grip]) -> None:
        """Put nodes or grips into their groups, then write every group touched at once."""
        touched: dict[Path, Group] = {}
        for record in records:
            if isinstance(record, TocNode):
                path = group_of_node(self._path, record.node_id)
            else:
                path = group_of_grip(self._path, record.grip_id)
            assert path is not None  # the id of a record always parses
            group = touched.get(path)
            if group is None:
                group = touched[path] = self._groups.get(path)
            group.put(record)
        self._groups.write(list(touched.values()))

    def _erase_node(self, node_id: str) -> None:
        path = group_of_node(self._path, node_id)
        if path is None:
            return
        group = self._groups.get(path)
        if group.discard(node_id):
            self._groups.write([group])

    def _read_grip(self, grip_id: str) -> Grip | None:
        path = group_of_grip(self._path, grip_id)
        return None if path is None else self._groups.get(path).grip(grip_id)

    def _write_grips(self, grips: list[Grip]) -> None:
        self._write_grouped(grips)

    def _erase_grip(self, grip_id: str) -> None:
        path = group_of_grip(self._path, grip_id)
        if path is None:
            return
        group = self._groups.get(path)
        if grip_id in group.grips and group.discard(grip_id):
            self._groups.write([group])

    def _grip_ids(self) -> Iterator[str]:
        for path in self._tree_files(TocLevel.SEGMENT):
            yield from list(self._groups.get(path).grips)

    # -- events --------------------------------------------------------------------------------
    def _month(self, month: str) -> MonthLog:
        log = self._months.get(month)
        if log is None:
            self._home.confirm("read the store")
            log = MonthLog(self._path / "months", month)
            log.load()
            self._months[month] = log
        return log

    def _event_months(self) -> list[str]:
        return sorted(
            set(self._listed("months", LOG_SUFFIX)) | set(self._listed("months", INDEX_SUFFIX))
        )

    def _list_events(self) -> Iterator[tuple[str, datetime, str]]:
        for month in self._event_months():
            yield from self._month(month).listing()

    def _read_event(self, event_id: str) -> Event | None:
        found = self._read_events_of([event_id])
        return found[0]

    def _read_events(self, event_ids: Iterable[str]) -> list[Event]:
        wanted = list(event_ids)
        events = self._read_events_of(wanted)
        for event_id, event in zip(wanted, events, strict=True):
            if event is None:
                raise StoreCorrupted(f"indexed event {event_id!r} cannot be read")
        return [event for event in events if event is not None]

    def _read_events_of(self, event_ids: list[str]) -> list[Event | None]:
        """The stored events with these ids (None for ids not stored), reading each month's
        log once."""
        by_month: dict[str, list[int]] = {}
        found: list[Event | None] = [None] * len(event_ids)
        recent = self._recent.get if self._lock is not None else None
        for position, event_id in enumerate(event_ids):
            kept = recent(event_id) if recent is not None else None
            if kept is not None:
                found[position] = kept
            elif event_id in self._event_index:
                by_month.setdefault(month_of_valid_event(event_id), []).append(position)
        for month, positions in by_month.items():
            wanted = [event_ids[position] for position in positions]
            for position, event in zip(positions, self._month_events(month, wanted), strict=True):
                found[position] = event
        return found

    def _month_events(self, month: str, event_ids: list[str]) -> list[Event | None]:
        log = self._month(month)
        try:
            return self._decode_lines(log, event_ids)
        except StoreCorrupted:
            if self._lock is not None:
                raise
            # A reader may hold offsets from before the writer rewrote the log: read the index
            # again once (of the directory the store opened), and trust what it says then.
            self._home.confirm("read the store")
            log.load()
            return self._decode_lines(log, event_ids)

    @staticmethod
    def _decode_lines(log: MonthLog, event_ids: list[str]) -> list[Event | None]:
        events: list[Event | None] = []
        for event_id, line in zip(event_ids, log.read_lines(event_ids), strict=True):
            if line is None:
                events.append(None)
                continue
            try:
                event = from_json(line, Event)
            except Exception as error:  # any failure to parse junk means the same thing
                raise StoreCorrupted(
                    f"{log.log}: the line of {event_id!r} is not a readable Event: {error}"
                ) from None
            if event.event_id != event_id:
                raise StoreCorrupted(
                    f"{log.log}: the line of {event_id!r} holds {event.event_id!r}"
                )
            events.append(event)
        return events

    def _write_events(self, events: list[Event]) -> None:
        batch = {event.event_id: event for event in events}
        lines: dict[str, list[tuple[str, str, bytes]]] = {}
        # Forgotten first: if the write fails, the disk says what the events are.
        self._recent.forget(batch)
        for event in batch.values():
            line = to_json(event).encode() + b"\n"
            lines.setdefault(month_of_valid_event(event.event_id), []).append(
                (event.event_id, event.session_id, line)
            )
        logs = [self._month(month) for month in lines]
        for log in logs:
            log.append(lines[log.month])
        # The logs are durable; the indexes now cover them (a crash before this is read back
        # by scanning the logs' tails).
        write_atomically([(log.index, log.index_bytes()) for log in logs])
        for log in logs:
            if log.needs_compaction():
                log.compact()
        self._recent.remember(batch.values())

    def _erase_events(self, event_ids: list[str]) -> None:
        # Each month's log is rewritten without the events (and without dead lines), so no
        # copy of their text stays in the files.
        self._recent.forget(event_ids)
        by_month: dict[str, list[str]] = {}
        for event_id in event_ids:
            by_month.setdefault(month_of_valid_event(event_id), []).append(event_id)
        for month, gone in sorted(by_month.items()):
            log = self._month(month)
            for event_id in gone:
                del log.entries[event_id]
            log.compact()

    def _scrub(self) -> None:
        # Only a writer's own puts leave dead lines behind (an event put again), and it has
        # loaded those months; a log with any dead byte is rewritten with its live lines.
        for log in list(self._months.values()):
            if log.size != log.live or log.torn:
                log.compact()

    # -- queries that need the exact timestamps ------------------------------------------------
    def get_events(self, start: datetime | None = None, end: datetime | None = None) -> list[Event]:
        return [
            event
            for event in super().get_events(start, end)
            if (start is None or event.timestamp >= start)
            and (end is None or event.timestamp < end)
        ]

    # -- salvage -------------------------------------------------------------------------------
    @classmethod
    def salvage(cls, directory: Path) -> Salvage:
        """Every event that can still be read out of a possibly damaged store (either layout),
        and the event ids its readable segments cite; unreadable files are named, links are
        never followed. The caller holds the writer lock."""
        found = SalvageBuilder()
        first = read_first_layout(directory)
        found.problems.extend(first.problems)
        for node in first.nodes:
            found.node(node)
        for _, event in first.events.values():
            found.event(event)
        # A salvage reads whatever the directory holds now: it has no earlier one to keep to.
        groups = GroupCache(trusted=False, confirm=lambda: None)
        for _stem, path in _salvage_listing(directory, TREE_SUFFIX, found):
            try:
                group = groups.get(path)
                for node_id in list(group.nodes):
                    try:
                        stored = group.node(node_id)
                    except StoreCorrupted as error:
                        found.problem(str(path), error)
                        continue
                    if stored is not None:
                        found.node(stored)
            except StoreCorrupted as error:
                found.problem(str(path), error)
        for stem, path in _salvage_listing(directory, LOG_SUFFIX, found):
            log = MonthLog(directory / "months", stem)
            try:
                lines = list(log.all_lines())
            except StoreCorrupted as error:
                found.problem(str(path), error)
                continue
            for offset, line in lines:
                try:
                    found.event(from_json(line, Event))
                except Exception as error:  # any failure to read junk means the same thing
                    found.problem(f"{path} byte {offset}", error)
        return found.done()

    # -- migration from the first layout ----------------------------------------------------
    def _migrate(self) -> None:
        """Rewrite a first-layout store in this layout, then switch the marker.

        A reader takes the writer lock for the migration when it is free; when a writer holds
        it, that writer migrated the store when it opened, and the marker says so.

        Raises:
            StoreCorrupted: a record of the old layout cannot be read (``tocsearch check
                --repair`` rebuilds such a store from the events it still holds).
        """
        held = self._lock
        if held is None:
            try:
                held = WriterLock(self._path)
            except StoreLocked:
                if marker_version(self._path) == _LAYOUT:
                    return
                raise
        try:
            if marker_version(self._path) == _LAYOUT:
                return
            old = read_first_layout(self._path)
            if old.problems:
                raise StoreCorrupted(
                    f"cannot move {str(self._path)!r} to the grouped layout: "
                    + "; ".join(old.problems[:3])
                    + " (run 'tocsearch check --repair' to rebuild it from its events)"
                )
            # What an earlier, interrupted migration wrote is written again from the start.
            for name in _FOLDERS:
                shutil.rmtree(self._path / name, ignore_errors=True)
            self._make_folders()
            self._groups.forget()
            self._months = {}
            if old.nodes:
                self._write_nodes(old.nodes)
            if old.grips:
                self._write_grips(old.grips)
            events = [event for _, event in old.events.values()]
            if events:
                self._write_events(sorted(events, key=lambda event: event.event_id))
            write_marker(self._path, _FORMAT, _LAYOUT)
            _remove_first_layout(self._path)
        finally:
            if held is not self._lock:
                held.release()
        self._groups.forget()
        self._months = {}

    # -- lifecycle -----------------------------------------------------------------------------
    def _reload(self) -> None:
        self._groups.forget()
        self._months = {}
        self._recent.clear()
        self._node_index = LazyNodeIndex(self._list_level, self._probe_node)
        self._event_index = LazyEventIndex(self._list_events)

    def _release(self) -> None:
        self._release_lock()

    def check(self) -> None:
        """Verify every file: each tree file parses, each record in it reads back under its id
        and belongs in that file, each month's log and index agree line by line, no stray file
        sits among them, and the indexes agree with the files.

        This is a check of the records the store holds. A record deleted whole leaves nothing
        here to notice it by when nothing else in the store's files names it; the deep check,
        :func:`tocsearch.check_store` (``tocsearch check``), adds :func:`check_tree`.

        Raises:
            StoreCorrupted: naming the first broken file.
        """
        self._ensure_open()
        with self._file_errors("check the store"):
            self._check_files()

    def _check_files(self) -> None:
        self._check_strays()
        self._node_index.check()
        self._event_index.check()
        nodes = 0
        for level in TocLevel:
            for path in self._tree_files(level):
                group = self._groups.get(path)
                if level in (TocLevel.SEGMENT, TocLevel.YEAR):
                    self._groups.check(path)
                for node_id, start, end in group.spans(level):
                    node = group.node(node_id)
                    assert node is not None
                    if group_of_node(self._path, node_id) != path:
                        raise StoreCorrupted(f"{path}: holds {node_id!r}, which belongs elsewhere")
                    if self._node_index.span(node_id) != (level, start, end):
                        raise StoreCorrupted(f"{path}: node {node_id!r} is not indexed as stored")
                    nodes += 1
        if nodes != len(self._node_index):
            raise StoreCorrupted(
                f"{self._path}: the index holds {len(self._node_index)} nodes, "
                f"but the tree files hold {nodes}"
            )
        for path in self._tree_files(TocLevel.SEGMENT):
            group = self._groups.get(path)
            for grip_id in list(group.grips):
                group.grip(grip_id)
                if group_of_grip(self._path, grip_id) != path:
                    raise StoreCorrupted(f"{path}: holds {grip_id!r}, which belongs elsewhere")
        for path in self._tree_files(TocLevel.YEAR):
            if self._groups.get(path).grips:
                raise StoreCorrupted(f"{path}: a year file holds grips")
        events = 0
        for month in self._event_months():
            log = MonthLog(self._path / "months", month)
            log.load()
            ids = list(log.entries)
            for event_id in ids:
                if month_of_event(event_id) != month:
                    raise StoreCorrupted(f"{log.index}: lists {event_id!r} of another month")
            for event_id, event in zip(ids, self._decode_lines(log, ids), strict=True):
                assert event is not None
                if event.session_id != log.entries[event_id][0]:
                    raise StoreCorrupted(f"{log.index}: files {event_id!r} under another session")
                if self._event_index.session_of(event_id) != event.session_id:
                    raise StoreCorrupted(f"{log.log}: event {event_id!r} is not indexed as stored")
            log.verify_lines()
            events += len(ids)
        if events != len(self._event_index):
            raise StoreCorrupted(
                f"{self._path}: the index holds {len(self._event_index)} events, "
                f"but the logs hold {events}"
            )

    def _check_strays(self) -> None:
        """Refuse files in the store's folders that it did not write."""
        suffixes = {"months": (TREE_SUFFIX, LOG_SUFFIX, INDEX_SUFFIX), "years": (".json",)}
        for folder, allowed in suffixes.items():
            try:
                entries = list(os.scandir(real_dir(self._path / folder)))
            except FileNotFoundError:
                raise StoreCorrupted(f"{self._path / folder} is missing") from None
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_symlink():
                    raise linked_error(entry.path)
                stem = next(
                    (entry.name[: -len(end)] for end in allowed if entry.name.endswith(end)), None
                )
                if stem is None or not entry.is_file() or not _is_period(stem, folder):
                    raise StoreCorrupted(f"{entry.path}: not a file this store writes")


def _is_period(stem: str, folder: str) -> bool:
    """Whether a file stem names a year (``2026``) or, in ``months/``, a month (``2026-01``)."""
    try:
        if folder == "years":
            parse_node_id(year_id(int(stem)))
        else:
            year, month = stem.split("-")
            if len(month) != 2:
                return False
            parse_node_id(month_id(int(year), int(month)))
    except (InvalidId, ValueError):
        return False
    return True


def _salvage_listing(
    directory: Path, suffix: str, found: SalvageBuilder
) -> Iterator[tuple[str, Path]]:
    for folder in ("months", "years") if suffix == TREE_SUFFIX else ("months",):
        try:
            entries = sorted(os.scandir(real_dir(directory / folder)), key=lambda e: e.name)
        except FileNotFoundError:
            continue
        except StoreCorrupted as error:
            found.problem(str(directory / folder), error)
            continue
        ending = ".json" if folder == "years" else suffix
        for entry in entries:
            if entry.name.startswith(".") or not entry.name.endswith(ending):
                continue
            if entry.is_symlink():
                found.problem(entry.path, "a symbolic link, not followed")
                continue
            yield entry.name[: -len(ending)], Path(entry.path)


def _remove_first_layout(directory: Path) -> None:
    """Remove what the first layout left once the marker names this one."""
    removed = False
    for name in OLD_ENTRIES:
        path = directory / name
        if path.is_symlink() or path.is_file():
            path.unlink()
            removed = True
        elif path.is_dir():
            shutil.rmtree(path)
            removed = True
    if removed:
        fsync_dir(directory)
