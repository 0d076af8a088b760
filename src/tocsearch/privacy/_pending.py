"""The note a forget or redact leaves in the store directory while it works, so that a crash
midway is finished by the next writer instead of leaving forgotten text in derived records.

``.tocsearch-forget.json`` names the events to delete, the redacted versions of events to put
(never the text they replaced), and the days whose tree must be rebuilt. It is written
atomically before the store is touched and removed once the store is scrubbed. Every step is
idempotent, so running the note again, whole, finishes the work wherever the crash cut it.
"""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path
from typing import Any

import attrs

from tocsearch._json_text import read_json
from tocsearch.converter import from_dict, to_dict
from tocsearch.errors import StoreCorrupted
from tocsearch.models import Event
from tocsearch.storage._files import fsync_dir, remove_file, write_atomically
from tocsearch.storage._files_store import read_only_error

__all__ = [
    "PENDING_NAME",
    "PendingWork",
    "clear_pending",
    "ensure_writable",
    "read_pending",
    "store_directory",
    "write_pending",
]

PENDING_NAME = ".tocsearch-forget.json"
"""The note's file name in the store directory."""
_VERSION = 1


@attrs.frozen
class PendingWork:
    """What a forget or redact must do: delete events, put events, rebuild days, scrub."""

    delete: tuple[str, ...] = ()
    put: tuple[Event, ...] = ()
    days: tuple[date, ...] = ()


def write_pending(store: Path, work: PendingWork) -> None:
    """Record ``work`` durably before it starts."""
    body = {
        "version": _VERSION,
        "delete": list(work.delete),
        "put": [to_dict(event) for event in work.put],
        "days": [day.isoformat() for day in work.days],
    }
    write_atomically([(store / PENDING_NAME, json.dumps(body, ensure_ascii=False).encode())])


def read_pending(store: Path) -> PendingWork | None:
    """The unfinished work recorded in ``store``, or None.

    Raises:
        StoreCorrupted: the note cannot be read (it is written atomically, so this is damage).
    """
    path = store / PENDING_NAME
    try:
        data: Any = read_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise StoreCorrupted(
            f"{path}: the note of an unfinished forget cannot be read ({error}); "
            "delete it and run the same forget or redact again"
        ) from None
    try:
        if data["version"] != _VERSION:
            raise ValueError(f"version {data['version']!r}")
        return PendingWork(
            delete=tuple(str(event_id) for event_id in data["delete"]),
            put=tuple(from_dict(item, Event) for item in data["put"]),
            days=tuple(date.fromisoformat(day) for day in data["days"]),
        )
    except Exception as error:  # any malformed note means the same thing
        raise StoreCorrupted(
            f"{path}: the note of an unfinished forget is malformed ({error}); "
            "delete it and run the same forget or redact again"
        ) from None


def clear_pending(store: Path) -> None:
    """Remove the note: the work it names is done."""
    remove_file(store / PENDING_NAME)
    fsync_dir(store)


def store_directory(storage: object) -> Path | None:
    """The directory of an on-disk store (or of the store an index wraps), else None."""
    inner = getattr(storage, "storage", None)
    path = getattr(inner if inner is not None else storage, "path", None)
    return path if isinstance(path, Path) and os.path.isdir(path) else None


def ensure_writable(storage: object, action: str) -> None:
    """Refuse ``action`` on a store opened read-only, before any note or list is written for it.

    Raises:
        StoreReadOnly: the store (or the store an index wraps) was opened with ``readonly=True``.
    """
    inner = getattr(storage, "storage", None)
    target = inner if inner is not None else storage
    if getattr(target, "readonly", False) is True:
        directory = store_directory(storage)
        raise read_only_error(directory if directory is not None else Path("."), action)
