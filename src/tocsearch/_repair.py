"""Checking a store on disk deeply, and rebuilding a damaged one from the events it still holds.

A store's *sources* are its events: nodes and grips are derived from them by the builder, so a
repair reads every event it can out of the damaged store, builds a new store from them beside
it, then moves the damaged store aside (it is kept, never deleted) and the new one into its
place. What a repair cannot bring back is an event whose own record was deleted or damaged; it
names them (when a surviving segment still cites them) and ``tocsearch ingest`` of the original
files puts them back.
"""

from __future__ import annotations

import os
import secrets
import shutil
from datetime import datetime, timezone

import attrs

from tocsearch.errors import InvalidArgument, StorageError
from tocsearch.ingest import BuildConfig, TocBuilder, check_tree
from tocsearch.levels import TocLevel
from tocsearch.models import Event
from tocsearch.storage._files import fsync_dir, store_root
from tocsearch.storage._files_store import read_marker
from tocsearch.storage._lock import WriterLock
from tocsearch.storage._open import BACKENDS, DiskBackend, open_store, store_backend
from tocsearch.storage.protocol import Storage
from tocsearch.summarize import Summarizer

__all__ = ["RepairReport", "check_store", "repair_store"]

_BATCH = 5_000


def _backend(name: str) -> DiskBackend:
    try:
        return BACKENDS[name]
    except KeyError:
        raise InvalidArgument(
            f"backend must be one of {', '.join(sorted(BACKENDS))}, got {name!r}"
        ) from None


def check_store(path: str | os.PathLike[str], *, backend: str | None = None) -> None:
    """Check a store on disk as deeply as tocsearch can: open it read-only, run the store's own
    ``check()`` (every record readable, indexes consistent), then :func:`check_tree` (the tree
    is whole: no node, grip or event that another names is missing). ``backend`` defaults to
    the one the store's marker names.

    Raises:
        StoreCorrupted: naming the first problem found.
        StorageError: the path holds no store (of this backend).
    """
    opened = (
        open_store(path, readonly=True)
        if backend is None
        else _backend(backend)(path, readonly=True)
    )
    with opened as store:
        store.check()
        check_tree(store)


@attrs.frozen
class RepairReport:
    """What :func:`repair_store` did.

    Attributes:
        events_recovered: events read out of the damaged store and kept.
        missing_event_ids: events a surviving segment named that could not be read; they are
            lost from the store until their source files are ingested again.
        problems: each record or file that could not be read, naming it.
        segments: segments in the rebuilt store.
        damaged_copy: where the damaged store was moved; it is kept for inspection.
    """

    events_recovered: int
    missing_event_ids: tuple[str, ...]
    problems: tuple[str, ...]
    segments: int
    damaged_copy: str


def repair_store(
    path: str | os.PathLike[str],
    *,
    backend: str | None = None,
    summarizer: Summarizer | None = None,
    config: BuildConfig | None = None,
) -> RepairReport:
    """Rebuild the store at ``path`` from the events it still holds.

    Every readable event is kept; nodes and grips are built again (pass the ``summarizer`` and
    ``config`` the store was built with, if not the defaults). The new store is built in a
    hidden folder beside the old one; then the old store is renamed to
    ``<name>.damaged-<UTC time>`` and the new one takes its name. The writer lock is held the
    whole time, so no writer works on the store meanwhile.

    ``backend`` defaults to the one the store's marker names.

    Raises:
        StorageError: ``path`` holds no store (of this backend), or another writer holds it.
    """
    # Through a link that is the store directory itself, the store it leads to is repaired
    # in its place (the damaged copy beside it), and the link keeps leading to it.
    directory = store_root(path)
    backend = backend or store_backend(directory)
    if backend is None:
        raise StorageError(f"no tocsearch store at {str(directory)!r} to repair")
    store_class = _backend(backend)
    found = read_marker(directory) if directory.is_dir() else None
    if found != store_class.FORMAT:
        raise StorageError(f"no {backend} store at {str(directory)!r} to repair")
    lock = WriterLock(directory)
    try:
        salvage = store_class.salvage(directory)
        fresh = directory.with_name(f".{directory.name}.repair-{secrets.token_hex(4)}")
        try:
            with store_class(fresh) as store:
                _rebuild(store, salvage.events, summarizer, config)
                segments = len(store.get_nodes_by_level(TocLevel.SEGMENT))
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        aside = directory.with_name(f"{directory.name}.damaged-{stamp}")
        os.rename(directory, aside)
        try:
            os.rename(fresh, directory)
        except OSError as error:
            raise StorageError(
                f"the damaged store was moved to {str(aside)!r}, but the rebuilt one at "
                f"{str(fresh)!r} could not take its place ({error.strerror}); "
                f"rename it to {str(directory)!r}"
            ) from None
        fsync_dir(directory.parent)
    finally:
        lock.release()
    return RepairReport(
        events_recovered=len(salvage.events),
        missing_event_ids=salvage.missing_event_ids,
        problems=salvage.problems,
        segments=segments,
        damaged_copy=str(aside),
    )


def _rebuild(
    store: Storage,
    events: tuple[Event, ...],
    summarizer: Summarizer | None,
    config: BuildConfig | None,
) -> None:
    """Build the tree of ``events`` (in id order) into an empty store, a batch at a time."""
    builder = TocBuilder(store, summarizer=summarizer, config=config)
    for start in range(0, len(events), _BATCH):
        builder.ingest(events[start : start + _BATCH])
