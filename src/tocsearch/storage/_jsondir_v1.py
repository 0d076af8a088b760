"""Reading a JSON directory store in its first layout, one file per record, to migrate it.

The first layout kept ``nodes/<level>/<id>.json``, ``grips/<id>.json``,
``events/<session>/<id>.json`` and ``spans.json``. It is only ever read whole, record by
record, never through links; records that cannot be read are named.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

import attrs

from tocsearch.converter import from_json
from tocsearch.errors import StoreCorrupted
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._files import read_bytes, real_dir

__all__ = ["OLD_ENTRIES", "FirstLayout", "read_first_layout"]

OLD_ENTRIES = ("nodes", "grips", "events", "spans.json")
"""What the first layout keeps beside the marker and the lock."""

_R = TypeVar("_R", TocNode, Grip, Event)


@attrs.define
class FirstLayout:
    """The records of a first-layout store, and the files that could not be read."""

    nodes: list[TocNode] = attrs.field(factory=list)
    grips: list[Grip] = attrs.field(factory=list)
    events: dict[str, tuple[int, Event]] = attrs.field(factory=dict)
    problems: list[str] = attrs.field(factory=list)


def read_first_layout(directory: Path) -> FirstLayout:
    """Every readable record of a first-layout store under ``directory``."""
    found = FirstLayout()
    for level in TocLevel:
        for path in _entries(directory / "nodes" / level.value, found):
            node = _record(path, TocNode, found)
            if node is not None:
                found.nodes.append(node)
    for path in _entries(directory / "grips", found):
        grip = _record(path, Grip, found)
        if grip is not None:
            found.grips.append(grip)
    for folder in _entries(directory / "events", found, folders=True):
        for path in _entries(folder, found):
            event = _record(path, Event, found)
            if event is None:
                continue
            # A crash while an event moved between sessions can leave both files: the newer
            # one is the event.
            stamp = os.lstat(path).st_mtime_ns
            known = found.events.get(event.event_id)
            if known is None or known[0] <= stamp:
                found.events[event.event_id] = (stamp, event)
    return found


def _entries(directory: Path, found: FirstLayout, *, folders: bool = False) -> list[Path]:
    try:
        entries = sorted(os.scandir(real_dir(directory)), key=lambda entry: entry.name)
    except FileNotFoundError:
        return []
    except StoreCorrupted as error:
        found.problems.append(str(error))
        return []
    listed: list[Path] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            found.problems.append(f"{entry.path}: a symbolic link, not followed")
        elif folders == entry.is_dir(follow_symlinks=False):
            listed.append(Path(entry.path))
        else:
            found.problems.append(f"{entry.path}: not a record {'folder' if folders else 'file'}")
    return listed


def _record(path: Path, cls: type[_R], found: FirstLayout) -> _R | None:
    try:
        data = read_bytes(path)
        if data is None:
            return None
        return from_json(data, cls)
    except Exception as error:  # any failure to read junk means the same thing
        found.problems.append(f"{path}: not a readable {cls.__name__} record: {error}")
        return None
