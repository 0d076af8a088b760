"""Opening any backend by name, so one contract suite runs over all of them, and the small
records the storage tests write."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from tocsearch import ids
from tocsearch.levels import TocLevel
from tocsearch.models import Event, EventRole, EventType, TocNode
from tocsearch.storage._files_store import FileStorage
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.memory import InMemoryStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage
from tocsearch.storage.sqlite import SqliteStorage

BACKENDS = ("memory", "memory-objects", "jsondir", "shelve", "sqlite")
MEMORY_BACKENDS = ("memory", "memory-objects")
FILE_BACKENDS = ("jsondir", "shelve", "sqlite")


def open_store(backend: str, path: Path | None, *, readonly: bool = False) -> Storage:
    """A store of the named backend; file backends live at ``path``."""
    if backend == "memory":
        return InMemoryStorage()
    if backend == "memory-objects":
        return InMemoryStorage(pack_segments=False)
    return open_file_store(backend, path, readonly=readonly)


def open_file_store(
    backend: str, path: Path | None, *, readonly: bool = False
) -> FileStorage | SqliteStorage:
    """A file-backed store of the named backend at ``path``."""
    assert path is not None
    if backend == "jsondir":
        return JsonDirStorage(path, readonly=readonly)
    if backend == "shelve":
        return ShelveStorage(path, readonly=readonly)
    if backend == "sqlite":
        return SqliteStorage(path, readonly=readonly)
    raise ValueError(f"unknown backend {backend!r}")


def make_node(node_id: str, level: TocLevel, start: datetime, hours: float = 1.0) -> TocNode:
    """A node with a placeholder-free title naming its id, spanning ``hours`` from ``start``."""
    return TocNode(
        node_id=node_id,
        level=level,
        title=f"title of {node_id}",
        start_time=start,
        end_time=start + timedelta(hours=hours),
    )


def make_event(when: datetime, suffix: str, session: str = "s1") -> Event:
    """A user message at ``when`` whose text names its suffix."""
    return Event(
        event_id=ids.event_id(when, suffix),
        session_id=session,
        timestamp=when,
        role=EventRole.USER,
        event_type=EventType.USER_MESSAGE,
        text=f"text {suffix}",
    )
