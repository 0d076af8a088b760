"""The nodes and grips of a JSON directory store, grouped in one JSON file per month or year.

``months/2026-01.tree.json`` holds the segments and day nodes of January 2026 and the grips
whose ids carry a time in it (a grip sits beside its segment); ``years/2026.json`` holds the
week, month and year nodes whose ids name 2026. A group file is two lines of JSON: the span of
each node by level, then the records::

    {"spans": {"day": [["toc:day:2026-01-30", "2026-01-30T09:00:00+00:00", "..."]], ...}}
    {"nodes": {"toc:day:2026-01-30": {...}, ...}, "grips": {"grip:...": {...}, ...}}

Each record is the :func:`tocsearch.converter.to_dict` form. Listing a level reads the first
line of each file only, so a query of a time range does not parse every record of the store.

A group file is replaced whole, by the atomic write of :mod:`tocsearch.storage._files`, so a
crash leaves every record of the file either old or new. Parsed groups are cached (a bounded
number of them); a reader checks the file's size, time and inode before each use and reads it
again when a writer replaced it.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from tocsearch._json_text import read_json
from tocsearch.converter import from_dict, to_dict
from tocsearch.errors import InvalidId, StoreCorrupted
from tocsearch.ids import parse_grip_id, parse_node_id
from tocsearch.levels import TocLevel
from tocsearch.models import Grip, TocNode
from tocsearch.storage._files import (
    READ_FLAGS,
    linked_error,
    open_file,
    read_bytes,
    write_atomically,
)

__all__ = ["TREE_SUFFIX", "Group", "GroupCache", "group_of_grip", "group_of_node"]

TREE_SUFFIX = ".tree.json"
_MONTH_LEVELS = frozenset({TocLevel.SEGMENT, TocLevel.DAY})
_CACHED_GROUPS = 256
_R = TypeVar("_R", TocNode, Grip)
Signature = tuple[int, int, int]


def group_of_node(root: Path, node_id: str) -> Path | None:
    """The group file a node id belongs in, or None for an id that is not a node id."""
    try:
        key = parse_node_id(node_id)
    except (InvalidId, TypeError):
        return None
    if key.level in _MONTH_LEVELS:
        return root / "months" / f"{key.first_day:%Y-%m}{TREE_SUFFIX}"
    # The year the id names (an ISO week's year for a week), not the year of its first day:
    # toc:year:2026 may begin on 2025-12-29.
    return root / "years" / f"{node_id.split(':')[2][:4]}.json"


def group_of_grip(root: Path, grip_id: str) -> Path | None:
    """The group file a grip id belongs in, or None for an id that is not a grip id."""
    try:
        when, _ = parse_grip_id(grip_id)
    except (InvalidId, TypeError):
        return None
    return root / "months" / f"{when:%Y-%m}{TREE_SUFFIX}"


def _signature(path: Path) -> Signature | None:
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    if (found.st_mode & 0o170000) == 0o120000:
        raise linked_error(path)
    return found.st_size, found.st_mtime_ns, found.st_ino


class Group:
    """One group file: its raw records by id, and the records decoded so far."""

    def __init__(self, path: Path, raw: dict[str, dict[str, Any]], signature: Signature | None):
        self.path = path
        self.nodes: dict[str, Any] = raw.get("nodes", {})
        self.grips: dict[str, Any] = raw.get("grips", {})
        self.signature = signature
        self._decoded: dict[str, TocNode | Grip] = {}

    def node(self, node_id: str) -> TocNode | None:
        """The node stored under this id, or None."""
        return self._record(self.nodes, node_id, TocNode)

    def grip(self, grip_id: str) -> Grip | None:
        """The grip stored under this id, or None."""
        return self._record(self.grips, grip_id, Grip)

    def _record(self, table: dict[str, Any], record_id: str, cls: type[_R]) -> _R | None:
        cached = self._decoded.get(record_id)
        if isinstance(cached, cls):
            return cached
        raw = table.get(record_id)
        if raw is None:
            return None
        try:
            record = from_dict(raw, cls)
        except Exception as error:  # any failure to read junk means the same thing
            raise StoreCorrupted(
                f"{self.path}: {record_id!r} is not a readable {cls.__name__} record: {error}"
            ) from None
        found = record.node_id if isinstance(record, TocNode) else record.grip_id
        if found != record_id:
            raise StoreCorrupted(f"{self.path}: {record_id!r} holds {cls.__name__} {found!r}")
        self._decoded[record_id] = record
        return record

    def put(self, record: TocNode | Grip) -> None:
        """Store a node or grip (the file is written by :meth:`GroupCache.write`)."""
        if isinstance(record, TocNode):
            self.nodes[record.node_id] = to_dict(record)
            self._decoded[record.node_id] = record
        else:
            self.grips[record.grip_id] = to_dict(record)
            self._decoded[record.grip_id] = record

    def discard(self, record_id: str) -> bool:
        """Remove a node or grip; whether it was there."""
        self._decoded.pop(record_id, None)
        return (
            self.nodes.pop(record_id, None) is not None
            or self.grips.pop(record_id, None) is not None
        )

    def spans(self, level: TocLevel) -> Iterator[tuple[str, datetime, datetime]]:
        """``(node_id, start, end)`` of the nodes of one level in this group, from the raw
        records (nothing is decoded).

        Raises:
            StoreCorrupted: a node id or span does not parse.
        """
        return _parse_spans(self.path, self.header().get(level.value, []))

    def header(self) -> dict[str, list[list[str]]]:
        """The first line of the file: each level's ``[node_id, start, end]`` rows.

        Raises:
            StoreCorrupted: a node id or span does not parse.
        """
        header: dict[str, list[list[str]]] = {}
        for node_id, raw in self.nodes.items():
            try:
                level = parse_node_id(node_id).level.value
                row = [node_id, raw["start_time"], raw["end_time"]]
            except (InvalidId, KeyError, TypeError):
                raise StoreCorrupted(
                    f"{self.path}: node {node_id!r} has no readable id or span"
                ) from None
            header.setdefault(level, []).append(row)
        return header

    def encode(self) -> bytes:
        """The group file's bytes; fails (before any file is touched) on unencodable text."""
        body: dict[str, Any] = {"nodes": self.nodes}
        if self.grips or self.path.parent.name == "months":
            body["grips"] = self.grips
        dump = json.dumps
        first = dump({"spans": self.header()}, ensure_ascii=False, separators=(",", ":"))
        second = dump(body, ensure_ascii=False, separators=(",", ":"))
        return f"{first}\n{second}\n".encode()


def _parse_spans(path: Path, rows: Any) -> Iterator[tuple[str, datetime, datetime]]:
    try:
        for node_id, start, end in rows:
            yield node_id, datetime.fromisoformat(start), datetime.fromisoformat(end)
    except (TypeError, ValueError):
        raise StoreCorrupted(f"{path}: the spans on its first line do not parse") from None


def _split(path: Path, data: bytes) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The header and the records of a group file's bytes (a file of one line, as the first
    version of this layout wrote, has no header)."""
    first, _, rest = data.partition(b"\n")
    try:
        if rest.strip():
            header, body = read_json(first), read_json(rest)
        else:
            header, body = None, read_json(first)
        if not isinstance(body, dict) or not all(
            isinstance(body.get(name, {}), dict) for name in ("nodes", "grips")
        ):
            raise ValueError("not an object of 'nodes' and 'grips'")
        if header is not None and not isinstance(
            header.get("spans") if isinstance(header, dict) else None, dict
        ):
            raise ValueError("the first line is not an object of 'spans'")
    except ValueError as error:
        raise StoreCorrupted(f"{path}: not a readable group of records: {error}") from None
    return (None if header is None else header["spans"]), body


class GroupCache:
    """Parsed group files, at most a few hundred at a time.

    Args:
        trusted: the caller is the store's one writer, so what it cached is what is on disk and
            need not be checked again; a reader checks each file's signature before each use.
        confirm: raises unless the store's directory is still the one it opened; called before
            a file is read, or its absence taken for an empty group.
    """

    def __init__(self, *, trusted: bool, confirm: Callable[[], None]) -> None:
        self._trusted = trusted
        self._confirm = confirm
        self._groups: OrderedDict[Path, Group] = OrderedDict()

    def get(self, path: Path) -> Group:
        """The group at ``path`` (empty when the file does not exist).

        Raises:
            StoreCorrupted: the file is not a group file, or is a link.
        """
        cached = self._groups.get(path)
        if cached is not None and (self._trusted or _signature(path) == cached.signature):
            self._groups.move_to_end(path)
            return cached
        self._confirm()
        signature = _signature(path)
        data = None if signature is None else read_bytes(path)
        raw: dict[str, Any] = {} if data is None else _split(path, data)[1]
        group = Group(path, raw, signature)
        self._groups[path] = group
        if len(self._groups) > _CACHED_GROUPS:
            self._groups.popitem(last=False)
        return group

    def spans(self, path: Path, level: TocLevel) -> Iterator[tuple[str, datetime, datetime]]:
        """The spans of one level's nodes in the group at ``path``, from the group when it is
        cached and current, else from the file's first line only.

        Raises:
            StoreCorrupted: the file or its first line does not parse, or is a link.
        """
        cached = self._groups.get(path)
        if cached is not None and (self._trusted or _signature(path) == cached.signature):
            return cached.spans(level)
        self._confirm()
        try:
            fd = open_file(path, READ_FLAGS)
        except FileNotFoundError:
            return iter(())
        with open(fd, "rb", closefd=True) as stream:
            first = stream.readline()
            more = stream.read(1)
        if not more:  # one line: a file of the first version of this layout, all records
            return self.get(path).spans(level)
        try:
            header = read_json(first)
            rows = header["spans"].get(level.value, [])
        except (ValueError, TypeError, KeyError, AttributeError):
            raise StoreCorrupted(f"{path}: the spans on its first line do not parse") from None
        return _parse_spans(path, rows)

    def check(self, path: Path) -> None:
        """Raise StoreCorrupted unless the file's first line says exactly what its records do."""
        data = read_bytes(path)
        if data is None:
            return
        header, body = _split(path, data)
        if header is None:
            return
        expected = Group(path, body, None).header()
        if header != expected:
            raise StoreCorrupted(f"{path}: the spans on its first line disagree with its records")

    def write(self, groups: list[Group]) -> None:
        """Replace the files of changed groups atomically, all serialised before any is
        written."""
        try:
            write_atomically([(group.path, group.encode()) for group in groups])
        except BaseException:
            # What is cached may now be ahead of the disk; read the files again next time.
            for group in groups:
                self._groups.pop(group.path, None)
            raise
        for group in groups:
            group.signature = _signature(group.path)

    def forget(self) -> None:
        """Drop every cached group."""
        self._groups.clear()
