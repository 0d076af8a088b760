"""JsonDirStorage: one JSON file per record in a directory tree, opened without reading records.

Layout of a store directory::

    tocsearch-store.json             format marker, written last when the store is created
    .lock                            the writer's flock target
    spans.json                       spans of nodes that leave their calendar period
    nodes/<level>/<id>.json          one file per node, in the folder of its level
    grips/<id>.json                  one file per grip
    events/<session>/<id>.json       one file per event, in the folder of its session

``<id>`` and ``<session>`` are made by :func:`tocsearch.storage._files.encode_name`. The
directory listing is the source of truth: opening a store reads the marker and ``spans.json``
only. A node is indexed under the calendar period its id names (widened by ``spans.json`` for the
nodes whose span leaves that period), so the listing of one level is enough to answer queries
on it; those listings are read the first time a query needs them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from tocsearch.converter import from_json, to_json
from tocsearch.errors import InvalidId, StoreCorrupted
from tocsearch.ids import parse_event_id, parse_grip_id, parse_node_id
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._files import (
    decode_name,
    encode_name,
    fsync_dir,
    is_hashed_name,
    linked_error,
    read_bytes,
    real_dir,
    remove_file,
    remove_temp_files,
    write_atomically,
)
from tocsearch.storage._files_index import LazyEventIndex, LazyNodeIndex, NodeEntry
from tocsearch.storage._files_store import FileStorage, open_store_dir, write_marker
from tocsearch.storage._salvage import Salvage, SalvageBuilder

__all__ = ["JsonDirStorage"]

_FORMAT = "tocsearch.jsondir"
_SPANS = "spans.json"
_SUFFIX = ".json"
_R = TypeVar("_R", TocNode, Grip, Event)
_Span = tuple[datetime, datetime]


def _record_id(record: TocNode | Grip | Event) -> str:
    if isinstance(record, TocNode):
        return record.node_id
    if isinstance(record, Grip):
        return record.grip_id
    return record.event_id


def _decode(path: Path, data: bytes, cls: type[_R], expected_id: str | None) -> _R:
    """A record from a file's bytes, or StoreCorrupted naming the file."""
    try:
        record = from_json(data, cls)
    except Exception as error:  # any failure to parse junk means the same thing: corruption
        raise StoreCorrupted(f"{path}: not a readable {cls.__name__} record: {error}") from None
    if expected_id is not None and _record_id(record) != expected_id:
        raise StoreCorrupted(
            f"{path}: holds {cls.__name__} {_record_id(record)!r}, not {expected_id!r}"
        )
    return record


def _period(node_id: str) -> _Span:
    key = parse_node_id(node_id)
    return key.start, key.end


def _hull(first: _Span, second: _Span) -> _Span:
    return min(first[0], second[0]), max(first[1], second[1])


def _outside(node: TocNode) -> bool:
    start, end = _period(node.node_id)
    return node.start_time < start or node.end_time > end


class JsonDirStorage(FileStorage):
    """A durable store of one JSON file per record, for histories of any size.

    Args:
        path: the store directory; a writer creates it (and its parents) when missing.
        readonly: open without the writer lock; writes then raise StorageError.

    A read-only store reads records from their files when asked, so a lookup by id sees the
    newest durable version. Listings (nodes by level, counts, events) are read from the
    directory the first time each is needed and kept; :meth:`refresh` drops them.

    Raises:
        StoreLocked: another writer holds the store.
        StorageError: the path is not a JSON directory store (or, for a reader, no store).
        StoreCorrupted: ``spans.json`` is damaged.
    """

    FORMAT = _FORMAT
    """The format name in the store's marker file."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        directory, lock, created = open_store_dir(path, _FORMAT, readonly=readonly)
        super().__init__(directory, lock)
        try:
            if created:
                self._lay_out()
            self._check_layout(repair=lock is not None)
            self._spans = self._read_spans()
            if lock is not None:
                remove_temp_files(self._all_dirs())
                self._prune_spans()
        except BaseException:
            self._release_lock()
            raise
        self._node_index: LazyNodeIndex = LazyNodeIndex(self._list_level, self._probe_node)
        self._event_index: LazyEventIndex = LazyEventIndex(self._list_events)

    # -- layout ----------------------------------------------------------------------------
    def _lay_out(self) -> None:
        for level in TocLevel:
            (self._path / "nodes" / level.value).mkdir(parents=True, exist_ok=True)
            fsync_dir(self._path / "nodes" / level.value)
        for name in ("grips", "events"):
            (self._path / name).mkdir(exist_ok=True)
            fsync_dir(self._path / name)
        fsync_dir(self._path / "nodes")
        fsync_dir(self._path)
        write_marker(self._path, _FORMAT)

    def _check_layout(self, *, repair: bool) -> None:
        """Refuse a store whose folders are symbolic links; a writer puts back missing folders
        (a folder deleted by hand must not make every later write fail)."""
        fixed = [self._path / "grips", self._path / "events", self._path / "nodes"]
        fixed += [self._path / "nodes" / level.value for level in TocLevel]
        for directory in fixed:
            try:
                real_dir(directory)
            except FileNotFoundError:
                if not repair:
                    continue
                directory.mkdir()
                fsync_dir(directory.parent)
        self._session_dirs()

    def _all_dirs(self) -> list[Path]:
        found = [self._path, self._path / "grips", self._path / "events"]
        found += [self._path / "nodes" / level.value for level in TocLevel]
        found += self._session_dirs()
        return found

    def _session_dirs(self) -> list[Path]:
        try:
            entries = list(os.scandir(self._path / "events"))
        except FileNotFoundError:
            return []
        for entry in entries:
            if entry.is_symlink():
                raise linked_error(entry.path)
        return [Path(entry.path) for entry in entries if entry.is_dir(follow_symlinks=False)]

    def _node_path(self, node_id: str) -> Path:
        level = parse_node_id(node_id).level
        return self._path / "nodes" / level.value / (encode_name(node_id) + _SUFFIX)

    def _grip_path(self, grip_id: str) -> Path:
        return self._path / "grips" / (encode_name(grip_id) + _SUFFIX)

    def _event_path(self, event_id: str, session_id: str) -> Path:
        return self._path / "events" / encode_name(session_id) / (encode_name(event_id) + _SUFFIX)

    # -- the spans of nodes that leave their period -----------------------------------------
    def _read_spans(self) -> dict[str, _Span]:
        path = self._path / _SPANS
        data = read_bytes(path)
        if data is None:
            return {}
        try:
            raw = json.loads(data)
            return {
                node_id: (datetime.fromisoformat(start), datetime.fromisoformat(end))
                for node_id, (start, end) in raw.items()
            }
        except (ValueError, TypeError, AttributeError):
            raise StoreCorrupted(f"{path}: not a valid map of node spans") from None

    def _save_spans(self, spans: dict[str, _Span]) -> None:
        body = {
            node_id: [start.isoformat(), end.isoformat()] for node_id, (start, end) in spans.items()
        }
        write_atomically([(self._path / _SPANS, json.dumps(body, sort_keys=True).encode())])
        self._spans = spans

    def _prune_spans(self) -> None:
        """Drop spans whose node a crash removed before its span entry."""
        kept = {node_id: span for node_id, span in self._spans.items() if self._probe_node(node_id)}
        if kept != self._spans:
            self._save_spans(kept)

    def _index_span(self, node: TocNode) -> _Span:
        return _hull(_period(node.node_id), (node.start_time, node.end_time))

    # -- listings ----------------------------------------------------------------------------
    def _listed_id(self, path: Path, stem: str, field: str) -> str | None:
        """The id a listed file stands for: from its name, or for a hashed name from its body."""
        if not is_hashed_name(stem):
            return decode_name(stem)
        data = read_bytes(path)
        try:
            value = json.loads(data or b"")[field]
        except (ValueError, TypeError, KeyError):
            return None
        return value if isinstance(value, str) and encode_name(value) == stem else None

    def _list_dir(self, directory: Path, field: str) -> Iterator[tuple[str, str]]:
        try:
            entries = list(os.scandir(directory))
        except FileNotFoundError:
            return
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not name.endswith(_SUFFIX):
                continue
            stem = name[: -len(_SUFFIX)]
            # Most names decode on their own; a Path is only built for hashed names.
            record_id = (
                decode_name(stem)
                if not is_hashed_name(stem)
                else self._listed_id(Path(entry.path), stem, field)
            )
            if record_id is not None:
                yield record_id, entry.path

    def _list_level(self, level: TocLevel) -> Iterator[NodeEntry]:
        for node_id, _ in self._list_dir(self._path / "nodes" / level.value, "node_id"):
            try:
                key = parse_node_id(node_id)
            except InvalidId:
                continue
            if key.level is not level:
                continue
            span = (key.start, key.end)
            extra = self._spans.get(node_id)
            if extra is not None:
                span = _hull(span, extra)
            yield node_id, span[0], span[1]

    def _probe_node(self, node_id: str) -> bool:
        return self._node_path(node_id).is_file()

    def _session_of_dir(self, directory: Path) -> str | None:
        session = decode_name(directory.name)
        if session is not None or not is_hashed_name(directory.name):
            return session
        for _, path in self._list_dir(directory, "event_id"):
            data = read_bytes(Path(path))
            try:
                value = json.loads(data or b"")["session_id"]
            except (ValueError, TypeError, KeyError):
                continue
            if isinstance(value, str) and encode_name(value) == directory.name:
                return value
        return None

    def _list_events(self) -> Iterator[tuple[str, datetime, str]]:
        chosen: dict[str, tuple[str, str]] = {}
        for directory in self._session_dirs():
            session = self._session_of_dir(directory)
            if session is None:
                continue
            for event_id, path in self._list_dir(directory, "event_id"):
                try:
                    parse_event_id(event_id)
                except InvalidId:
                    continue
                if event_id in chosen:
                    # A crash while an event moved to another session left both files; keep
                    # the newer, and let a writer remove the other.
                    other = chosen[event_id][1]
                    if os.stat(other).st_mtime_ns > os.stat(path).st_mtime_ns:
                        older = path
                    else:
                        older = other
                        chosen[event_id] = (session, path)
                    if not self.readonly:
                        remove_file(Path(older))
                        fsync_dir(Path(older).parent)
                    continue
                chosen[event_id] = (session, path)
        for event_id, (session, _) in chosen.items():
            yield event_id, parse_event_id(event_id)[0], session

    # -- record hooks ------------------------------------------------------------------------
    def _read_node(self, node_id: str) -> TocNode | None:
        path = self._node_path(node_id)
        data = read_bytes(path)
        return None if data is None else _decode(path, data, TocNode, node_id)

    def _write_nodes(self, nodes: list[TocNode]) -> None:
        batch = list({node.node_id: node for node in nodes}.values())
        files = [(self._node_path(node.node_id), to_json(node).encode()) for node in batch]
        # Before a node file changes, spans.json must cover both its old and its new span.
        widened = dict(self._spans)
        for node in batch:
            if _outside(node):
                span = (node.start_time, node.end_time)
                old = widened.get(node.node_id)
                widened[node.node_id] = span if old is None else _hull(old, span)
        if widened != self._spans:
            self._save_spans(widened)
        write_atomically(files)
        tight = dict(widened)
        for node in batch:
            if _outside(node):
                tight[node.node_id] = (node.start_time, node.end_time)
            else:
                tight.pop(node.node_id, None)
        if tight != widened:
            self._save_spans(tight)

    def _erase_node(self, node_id: str) -> None:
        path = self._node_path(node_id)
        if remove_file(path):
            fsync_dir(path.parent)
        if node_id in self._spans:
            self._save_spans({key: span for key, span in self._spans.items() if key != node_id})

    def _read_grip(self, grip_id: str) -> Grip | None:
        try:
            parse_grip_id(grip_id)
        except InvalidId:
            return None
        path = self._grip_path(grip_id)
        data = read_bytes(path)
        return None if data is None else _decode(path, data, Grip, grip_id)

    def _write_grips(self, grips: list[Grip]) -> None:
        batch = {grip.grip_id: grip for grip in grips}
        write_atomically(
            [(self._grip_path(grip_id), to_json(grip).encode()) for grip_id, grip in batch.items()]
        )

    def _erase_grip(self, grip_id: str) -> None:
        try:
            parse_grip_id(grip_id)
        except (InvalidId, TypeError):  # TypeError: a caller passed no string at all
            return
        path = self._grip_path(grip_id)
        if remove_file(path):
            fsync_dir(path.parent)

    def _grip_ids(self) -> Iterator[str]:
        for grip_id, _ in self._list_dir(self._path / "grips", "grip_id"):
            try:
                parse_grip_id(grip_id)
            except InvalidId:
                continue
            yield grip_id

    def _read_event(self, event_id: str) -> Event | None:
        session = self._event_index.session_of(event_id)
        if session is None:
            return None
        path = self._event_path(event_id, session)
        data = read_bytes(path)
        return None if data is None else _decode(path, data, Event, event_id)

    def _write_events(self, events: list[Event]) -> None:
        batch = list({event.event_id: event for event in events}.values())
        files = [
            (self._event_path(event.event_id, event.session_id), to_json(event).encode())
            for event in batch
        ]
        moved = [
            self._event_path(event.event_id, old)
            for event in batch
            if (old := self._event_index.session_of(event.event_id)) is not None
            and old != event.session_id
        ]
        new_dirs = [
            directory
            for directory in dict.fromkeys(path.parent for path, _ in files)
            if not self._session_dir_exists(directory)
        ]
        for directory in new_dirs:
            directory.mkdir()
        if new_dirs:
            fsync_dir(self._path / "events")
        write_atomically(files)
        # Only once the new files are durable may the old ones of moved events go.
        for path in moved:
            remove_file(path)
        for directory in dict.fromkeys(path.parent for path in moved):
            fsync_dir(directory)

    @staticmethod
    def _session_dir_exists(directory: Path) -> bool:
        try:
            real_dir(directory)
        except FileNotFoundError:
            return False
        return True

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
        """Every event that can still be read out of a possibly damaged store, and the event
        ids its readable segments cite; unreadable files are named, never followed as links.
        The caller holds the writer lock."""
        found = SalvageBuilder()
        for level in TocLevel:
            for path in _salvage_files(directory / "nodes" / level.value, found):
                node = _salvage_record(path, TocNode, found)
                if node is not None:
                    found.node(node)
        for folder in _salvage_files(directory / "events", found, folders=True):
            for path in _salvage_files(folder, found):
                event = _salvage_record(path, Event, found)
                if event is not None:
                    found.event(event)
        return found.done()

    # -- lifecycle -----------------------------------------------------------------------------
    def _reload(self) -> None:
        self._spans = self._read_spans()
        self._node_index = LazyNodeIndex(self._list_level, self._probe_node)
        self._event_index = LazyEventIndex(self._list_events)

    def _release(self) -> None:
        self._release_lock()

    def check(self) -> None:
        """Verify every file: it parses, holds the id its name encodes, sits in the folder of
        its level or session, and agrees with the indexes.

        Raises:
            StoreCorrupted: naming the first broken file.
        """
        self._ensure_open()
        self._node_index.check()
        self._event_index.check()
        nodes = 0
        for level in TocLevel:
            for path in self._record_files(self._path / "nodes" / level.value):
                node = self._check_file(path, TocNode)
                indexed = self._node_index.span(node.node_id)
                if node.level is not level or indexed is None:
                    raise StoreCorrupted(f"{path}: {level.value} node file is not indexed")
                if node.start_time < indexed[1] or node.end_time > indexed[2]:
                    raise StoreCorrupted(
                        f"{path}: the node's span leaves its period and {_SPANS} does not cover it"
                    )
                nodes += 1
        if nodes != len(self._node_index):
            raise StoreCorrupted(
                f"{self._path}: the index holds {len(self._node_index)} nodes, "
                f"but {nodes} node files exist"
            )
        for path in self._record_files(self._path / "grips"):
            self._check_file(path, Grip)
        events = 0
        for directory in self._record_files(self._path / "events", folders=True):
            for path in self._record_files(directory):
                event = self._check_file(path, Event)
                if encode_name(event.session_id) != directory.name:
                    raise StoreCorrupted(
                        f"{path}: event of session {event.session_id!r} "
                        "is filed under another session"
                    )
                indexed_session = self._event_index.session_of(event.event_id)
                if indexed_session is None:
                    raise StoreCorrupted(f"{path}: event file is not indexed")
                # A different indexed session is the older copy a crash left while the event
                # moved between sessions; the index holds the newer one and a writer removes it.
                events += indexed_session == event.session_id
        if events != len(self._event_index):
            raise StoreCorrupted(
                f"{self._path}: the index holds {len(self._event_index)} events, "
                f"but {events} event files exist"
            )

    def _record_files(self, directory: Path, *, folders: bool = False) -> list[Path]:
        """The entries of a record folder, refusing anything that is not a record."""
        found: list[Path] = []
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except FileNotFoundError:
            return found
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if folders:
                if not entry.is_dir() or (
                    decode_name(entry.name) is None and not is_hashed_name(entry.name)
                ):
                    raise StoreCorrupted(f"{entry.path}: not a session folder")
            elif not entry.is_file() or not entry.name.endswith(_SUFFIX):
                raise StoreCorrupted(f"{entry.path}: not a record file")
            found.append(Path(entry.path))
        return found

    @staticmethod
    def _check_file(path: Path, cls: type[_R]) -> _R:
        data = read_bytes(path)
        if data is None:
            raise StoreCorrupted(f"{path}: vanished while being checked")
        record = _decode(path, data, cls, None)
        if encode_name(_record_id(record)) + _SUFFIX != path.name:
            raise StoreCorrupted(
                f"{path}: file name does not encode the id {_record_id(record)!r} it holds"
            )
        return record


def _salvage_files(directory: Path, found: SalvageBuilder, *, folders: bool = False) -> list[Path]:
    """The record files (or session folders) of one folder, noting what is not one."""
    try:
        entries = sorted(os.scandir(real_dir(directory)), key=lambda entry: entry.name)
    except FileNotFoundError:
        found.problem(str(directory), "missing")
        return []
    except StoreCorrupted as error:
        found.problem(str(directory), error)
        return []
    listed: list[Path] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            found.problem(entry.path, "a symbolic link, not followed")
        elif folders == entry.is_dir(follow_symlinks=False):
            listed.append(Path(entry.path))
        else:
            found.problem(entry.path, "not a record file" if not folders else "not a folder")
    return listed


def _salvage_record(path: Path, cls: type[_R], found: SalvageBuilder) -> _R | None:
    try:
        data = read_bytes(path)
        if data is None:
            return None
        return _decode(path, data, cls, None)
    except StoreCorrupted as error:
        found.problem(str(path), error)
        return None
