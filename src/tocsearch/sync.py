"""Incremental sync: read only what is new in Claude Code transcripts and ChatGPT exports.

:func:`sync_sources` remembers, per source file, its identity (device and inode), size,
modification time and how far it was read (see :mod:`tocsearch._sync_state`). On the next run:

- a file whose identity, size and time are unchanged is not opened at all;
- a Claude Code transcript that grew is read from where the last run stopped, whole lines only
  (a line still being written waits for the next run);
- a file that shrank or was replaced by another under its name is read again from its start;
- a ChatGPT export (a folder holding ``conversations.json``, the file itself, or the ``.zip``
  ChatGPT mails) is read again whole, but only when it changed.

The events read go through the :class:`~tocsearch.ingest.TocBuilder`, which rebuilds only the
days they fall on; the store is opened for writing only when there is something to write.

>>> from tocsearch.sync import source_files
>>> source_files([])
[]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import attrs

from tocsearch._sync_state import FileState, load_state, save_state
from tocsearch.errors import ImportFailed
from tocsearch.importers._export import unpacked_export
from tocsearch.importers.chatgpt import load_chatgpt
from tocsearch.importers.claude_code import load_claude_code_tail, transcripts_below
from tocsearch.ingest import TocBuilder
from tocsearch.ingest._batches import day_batches
from tocsearch.models import Event
from tocsearch.privacy import finish_pending, load_ignore_list, without_ignored
from tocsearch.storage import store_backend
from tocsearch.storage.protocol import Storage

__all__ = [
    "SourceFile",
    "SyncReport",
    "default_claude_projects",
    "source_files",
    "sync_sources",
]

_CLAUDE_CODE = "claude-code"
_CHATGPT = "chatgpt"
_BATCH = 5_000


@attrs.frozen
class SourceFile:
    """One file to sync, the format it holds, and its resolved path (what the sync state
    remembers it by; a file reached twice, through a link, is synced once)."""

    path: Path
    kind: str
    resolved: Path = attrs.field(
        default=attrs.Factory(lambda source: source.path.resolve(), takes_self=True)
    )


@attrs.frozen
class SyncReport:
    """What one sync did.

    Attributes:
        store: the store directory written to.
        files_seen: source files found.
        files_unchanged: files skipped because nothing changed since the last sync.
        files_read: files read (in part or whole).
        files_reread: files read again from their start: shrunk, replaced, or changed exports.
        bytes_read: bytes of transcript read (exports count their whole size).
        events_read: events in what was read.
        events_added: events the store did not hold yet.
        events_ignored: events left out by the store's ignore list or a
            ``.tocsearch-ignore`` marker (see :mod:`tocsearch.privacy`).
        days_rebuilt: days whose segments were rebuilt.
        problems: records skipped, one line each (``path line N: reason``).
    """

    store: str
    files_seen: int = 0
    files_unchanged: int = 0
    files_read: int = 0
    files_reread: int = 0
    bytes_read: int = 0
    events_read: int = 0
    events_added: int = 0
    days_rebuilt: int = 0
    problems: tuple[str, ...] = ()
    events_ignored: int = 0


def default_claude_projects() -> Path:
    """``~/.claude/projects``, where Claude Code keeps its session transcripts."""
    return Path.home() / ".claude" / "projects"


def source_files(paths: Iterable[str | os.PathLike[str]]) -> list[SourceFile]:
    """The files to sync below ``paths``, each once (by its resolved path), in a stable order,
    under the paths they were found by (a Claude Code project is named by its folder there).

    A folder holding ``conversations.json`` is a ChatGPT export; any other folder is searched
    for Claude Code ``*.jsonl`` transcripts. A ``.zip`` or ``.json`` file is a ChatGPT export, a
    ``.jsonl`` file a transcript.

    Raises:
        ImportFailed: a path does not exist, is a file of another kind, is neither a file
            nor a folder (a pipe, a device), or starts with the home of an unknown user.
    """
    found: dict[Path, SourceFile] = {}
    for given in paths:
        try:
            path = Path(given).expanduser()
        except RuntimeError:  # "~name" of a user this system does not know
            raise ImportFailed(f"{str(given)!r} names the home of no known user") from None
        try:
            path.stat()
        except OSError as error:  # a name too long, a folder on the way that is a file...
            if not isinstance(error, FileNotFoundError):
                raise ImportFailed(f"{path}: {error.strerror or error}") from None
        except ValueError:  # a NUL, or a surrogate no file name's bytes decode to
            raise ImportFailed(f"{str(path)!r} is not a path this system can name") from None
        if path.is_dir():
            export = unpacked_export(path)
            files = [SourceFile(export, _CHATGPT)] if export is not None else _transcripts(path)
        elif path.is_file():
            files = [SourceFile(path, _file_kind(path))]
        elif path.exists():  # a pipe, a device or a socket, which a sync would never finish
            raise ImportFailed(f"{path}: not a file or a folder")
        else:
            raise ImportFailed(f"{path}: no such file or directory")
        for source in files:
            found.setdefault(source.resolved, source)
    return list(found.values())


def _transcripts(folder: Path) -> list[SourceFile]:
    """The transcripts below ``folder``, read by the paths they were found under, remembered
    by their resolved paths.

    The folder is resolved once; as linked folders are not entered, a file found below it is
    resolved by its place under the resolved folder, and only a linked file is resolved on its
    own: resolving each of thousands of paths one by one was most of a sync with nothing new.
    """
    real = os.fspath(folder.resolve())
    below = os.fspath(folder) + os.sep
    sources: list[SourceFile] = []
    for path, linked in transcripts_below(folder):
        found = os.fspath(path)
        if linked or not found.startswith(below):
            resolved = path.resolve()
        else:
            resolved = Path(real + found[len(below) - 1 :])
        sources.append(SourceFile(path, _CLAUDE_CODE, resolved))
    return sources


def _file_kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _CLAUDE_CODE
    if suffix in (".zip", ".json"):
        return _CHATGPT
    raise ImportFailed(
        f"{path}: not a Claude Code transcript (.jsonl) or a ChatGPT export (.json, .zip)"
    )


def sync_sources(
    store: str | os.PathLike[str],
    paths: Sequence[str | os.PathLike[str]],
    open_writer: Callable[[], AbstractContextManager[Storage]],
    *,
    full: bool = False,
    progress: Callable[[str], None] | None = None,
) -> SyncReport:
    """Read what is new in the files below ``paths`` into the store at ``store``.

    Args:
        store: the store directory; the sync state is kept in it.
        paths: files and folders to read (see :func:`source_files`).
        open_writer: opens the store for writing (creating it if need be); called only when
            there is something to write.
        full: read every file from its start, ignoring what earlier syncs remembered.
        progress: called with a short line after each file read and each batch of events
            stored.

    Raises:
        ImportFailed: a path does not exist or is not a known kind of file.
        StorageError: ``store`` is a file, or a store of a format this version cannot read.
        StoreLocked: another writer holds the store.
    """
    root = Path(store)
    # Refused before any file is read, also when nothing new would need the store opened
    # (the sync state is kept in it).
    store_backend(root)
    sources = source_files(paths)
    state = load_state(root)
    remembered = {} if full else dict(state)
    events: list[Event] = []
    problems: list[str] = []
    counts = {"unchanged": 0, "read": 0, "reread": 0, "bytes": 0}
    for number, source in enumerate(sources, start=1):
        key = os.fspath(source.resolved)
        try:
            stat = source.path.stat()
        except OSError as error:
            problems.append(f"{source.path}: {error.strerror or error}")
            continue
        known = remembered.get(key)
        if known is not None and known.kind == source.kind and known.unchanged(stat):
            counts["unchanged"] += 1
            continue
        if source.kind == _CLAUDE_CODE:
            start, entry, read, bad = _read_transcript(source.path, stat, known)
        else:
            start, entry, read, bad = _read_export(source.path, stat)
        if known is not None and start == 0:
            counts["reread"] += 1
        counts["read"] += 1
        counts["bytes"] += entry.offset - start
        events.extend(read)
        problems.extend(bad)
        state[key] = entry
        if progress is not None:
            progress(f"read {number:,}/{len(sources):,} files, {len(events):,} events")
    added = rebuilt = 0
    read_count = len(events)
    events = _first_of_each_id(events, problems)
    events, ignored = without_ignored(events, load_ignore_list(root) if root.is_dir() else None)
    if events:
        with open_writer() as storage:
            finish_pending(storage)
            builder = TocBuilder(storage)
            # Stored events are immutable: a re-read export whose conversation was renamed
            # (new metadata, same ids) keeps what was stored and adds only what is new.
            events = [event for event in events if not storage.has_event(event.event_id)]
            done = 0
            # Whole days per batch: a long session's day is built once, not once a batch.
            for batch in day_batches(events, _BATCH):
                report = builder.ingest(batch)
                added += report.events_added
                rebuilt += report.days_rebuilt
                done += len(batch)
                if progress is not None:
                    progress(f"stored {done:,}/{len(events):,} events")
    if state != remembered or full:
        root.mkdir(parents=True, exist_ok=True)
        save_state(root, state)
    return SyncReport(
        store=os.fspath(root),
        files_seen=len(sources),
        files_unchanged=counts["unchanged"],
        files_read=counts["read"],
        files_reread=counts["reread"],
        bytes_read=counts["bytes"],
        events_read=read_count,
        events_added=added,
        days_rebuilt=rebuilt,
        problems=tuple(problems),
        events_ignored=ignored,
    )


def _first_of_each_id(events: Sequence[Event], problems: list[str]) -> list[Event]:
    """Each event id once, the first read kept, as one import of all the files would: a resumed
    session repeats earlier lines in its new file."""
    kept: dict[str, Event] = {}
    for event in events:
        first = kept.setdefault(event.event_id, event)
        if first is not event and first != event:
            problems.append(f"event id {event.event_id!r} is already used by a different event")
    return list(kept.values())


def _read_transcript(
    path: Path, stat: os.stat_result, known: FileState | None
) -> tuple[int, FileState, tuple[Event, ...], list[str]]:
    start = lines = 0
    calls: dict[str, str] = {}
    # Read on only from the same file that has not shrunk; anything else starts again.
    if known is not None and known.same_file(stat) and stat.st_size >= known.offset:
        start, lines, calls = known.offset, known.lines, dict(known.open_calls)
    tail = load_claude_code_tail(path, start=start, lines=lines, open_calls=calls)
    entry = FileState(
        kind=_CLAUDE_CODE,
        device=stat.st_dev,
        inode=stat.st_ino,
        size=stat.st_size,
        mtime_ns=stat.st_mtime_ns,
        offset=tail.offset,
        lines=tail.lines,
        open_calls=dict(tail.open_calls),
    )
    if tail.offset < stat.st_size:
        # A line still being written: remember the size read to, so the next sync looks again.
        entry = attrs.evolve(entry, size=tail.offset)
    problems = [str(problem) for problem in tail.result.problems]
    return start, entry, tail.result.events, problems


def _read_export(
    path: Path, stat: os.stat_result
) -> tuple[int, FileState, tuple[Event, ...], list[str]]:
    result = load_chatgpt(path, strict=False)
    entry = FileState(
        kind=_CHATGPT,
        device=stat.st_dev,
        inode=stat.st_ino,
        size=stat.st_size,
        mtime_ns=stat.st_mtime_ns,
        offset=stat.st_size,
    )
    return 0, entry, result.events, [str(problem) for problem in result.problems]
