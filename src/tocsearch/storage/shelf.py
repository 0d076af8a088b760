"""ShelveStorage: records in a :mod:`shelve` over :mod:`dbm.dumb`, committed by a journal.

Layout of a store directory::

    tocsearch-store.json             format marker, written last when the store is created
    .lock                            the writer's flock target
    records.dat, records.dir         the dbm.dumb database under the shelf (records.bak after
                                     a close)
    journal.log                      the commit journal: which shelf key holds each record

``dbm.dumb`` is not crash-safe on its own: it overwrites a value in place when the new one
fits, updates ``.dir`` for moved keys only when it closes, and rewrites ``.dir`` on every
delete. This store never lets it do any of those. Every record version goes under a fresh key
(``n17``, ``e18``...), so the shelf only ever appends to ``.dat`` and ``.dir``; a delete only
writes a journal line. A batch is durable once ``.dat`` and ``.dir`` are fsynced and its
journal line is fsynced; keys written by a batch that never reached the journal are ignored.
Space held by replaced or deleted versions is not reclaimed, but :meth:`ShelveStorage.scrub`
overwrites their bytes in place (with an empty record of the same length), so a forgotten text
leaves ``records.dat`` without any record moving.

Damage to the journal is told apart from a crash. A new journal starts with one line, so an
empty one was emptied. Every batch that writes records also writes a ``j<n>`` key holding the
size of the committed journal when the batch began; a journal shorter than the newest of those
sizes has lost committed lines, deleted, emptied or cut short. A whole line that does not check
out was changed after it was written. Each of these makes opening and :meth:`check` raise
:class:`StoreCorrupted`; ``tocsearch check --repair`` rebuilds the store from the events in
``records.dat``.
"""

from __future__ import annotations

import contextlib
import dbm.dumb
import io
import os
import pickle
import shelve
import time
from collections.abc import Iterator, MutableMapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from tocsearch.converter import from_json, to_json
from tocsearch.errors import StorageError, StoreCorrupted
from tocsearch.levels import TocLevel
from tocsearch.models import Event, Grip, TocNode
from tocsearch.storage._files import (
    READ_FLAGS,
    TRUNCATE_FLAGS,
    fsync_dir,
    fsync_file,
    open_file,
    refuse_links,
    remove_temp_files,
    write_atomically,
)
from tocsearch.storage._files_journal import Batch, Journal, JournalContents, encoded_size
from tocsearch.storage._files_store import FileStorage, open_store_dir, write_marker
from tocsearch.storage._recent import RecentEvents
from tocsearch.storage._salvage import Salvage, SalvageBuilder

__all__ = ["ShelveStorage"]

_FORMAT = "tocsearch.shelve"
_R = TypeVar("_R", TocNode, Grip, Event)
# Reopening the dbm while a writer closes it can meet ``.dir`` renamed away for a moment.
_READER_RETRIES = 5


class _NoGlobalsUnpickler(pickle.Unpickler):
    """Unpickles plain data only: a damaged or planted record can never name code to run."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"record names {module}.{name}; only strings are stored")


class _JsonShelf(shelve.Shelf[str]):
    """A shelf whose values are JSON strings; reads refuse anything but a pickled string.

    Values are read through ``records``, a descriptor of ``records.dat`` held open from when
    the shelf opened (dbm.dumb would open the file by its path for every read): reads answer
    from the file the store opened wherever its directory goes, as SQLite's do, and cost no
    path lookup.
    """

    def __init__(self, database: MutableMapping[bytes, bytes], records: int) -> None:
        super().__init__(database)
        self.database = database
        self._records = records
        # dbm.dumb keeps where each value lies in ``_index``, updated as it writes: the one
        # way to reach a value's bytes without its reopening the file or rewriting around it.
        self.places: dict[bytes, tuple[int, int]] = database._index  # type: ignore[attr-defined]

    def __getitem__(self, key: str) -> str:
        position, size = self.places[key.encode("utf-8")]
        data = os.pread(self._records, size, position)
        value = _NoGlobalsUnpickler(io.BytesIO(data)).load()
        if not isinstance(value, str):
            raise pickle.UnpicklingError(f"record is a {type(value).__name__}, not a string")
        return value

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._records >= 0:
                os.close(self._records)
                self._records = -1


def _shelf_at(base: Path, flag: str) -> _JsonShelf:
    """The shelf of the dbm.dumb database at ``base`` (``records``), opened with ``flag``.

    Raises:
        OSError, SyntaxError, TypeError, ValueError: what dbm.dumb raises for a missing or
            damaged database.
    """
    database = dbm.dumb.open(str(base), flag)  # noqa: SIM115 - the shelf owns and closes it
    try:
        records = open_file(base.with_suffix(".dat"), READ_FLAGS)
    except BaseException:
        database.close()
        raise
    return _JsonShelf(cast(MutableMapping[bytes, bytes], database), records)


def _repair_dumb_index(base: Path) -> None:
    """Undo what a crash can do to ``.dir``: an interrupted close-time rewrite, a torn line.

    While keys are only ever appended, dbm.dumb's close-time rewrite writes ``.dir`` again with
    the same lines after renaming the old one to ``.bak``; so a missing or shorter ``.dir``
    beside a ``.bak`` means the rewrite was cut short, and ``.bak`` is whole.
    """
    index, backup = base.with_suffix(".dir"), base.with_suffix(".bak")
    # A .bak that is no file (a folder) is no backup: opening names it, a salvage goes without.
    if backup.is_file() and (not index.exists() or index.stat().st_size < backup.stat().st_size):
        os.replace(backup, index)
        fsync_dir(base.parent)
    data = index.read_bytes() if index.exists() else b""
    if data and not data.endswith(b"\n"):
        with open(index, "r+b") as stream:
            stream.truncate(data.rfind(b"\n") + 1)
            os.fsync(stream.fileno())


def _blank(size: int) -> bytes:
    """``size`` bytes that read back as an empty record: a pickled empty string, then zeros
    (unpickling stops at the pickle's end)."""
    empty = pickle.dumps("", protocol=2)
    return empty + bytes(size - len(empty)) if size >= len(empty) else bytes(size)


def _key_number(key: bytes) -> int:
    try:
        return int(key[1:].decode("ascii"))
    except ValueError:
        return -1


_MARK = "j"
"""The kind of the keys that record how long the committed journal was when a batch began."""


class ShelveStorage(FileStorage):
    """A durable store in one :mod:`shelve` database, for small and medium histories.

    Args:
        path: the store directory; a writer creates it (and its parents) when missing.
        readonly: open without the writer lock; writes then raise StorageError.

    Opening reads the journal and the dbm index (not the records). A read-only store sees the
    records committed when it opened; :meth:`refresh` catches up with the writer.

    Raises:
        StoreLocked: another writer holds the store.
        StorageError: the path is not a shelve store (or, for a reader, no store).
        StoreCorrupted: the journal or the dbm index is damaged.
    """

    FORMAT = _FORMAT
    """The format name in the store's marker file."""

    # A reader finds each record by the shelf key its journal named when it opened, and a key
    # is never written again: a writer's later batches go under fresh keys it does not know.
    # The one exception, a version the writer has scrubbed since, is refused, never misread.
    READS_A_SNAPSHOT = True

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        directory, lock, created = open_store_dir(path, _FORMAT, readonly=readonly)
        super().__init__(directory, lock)
        self._base = directory / "records"
        self._journal = Journal(directory / "journal.log")
        self._shelf: _JsonShelf | None = None
        self._recent = RecentEvents()
        try:
            refuse_links(
                [self._journal.path]
                + [self._base.with_suffix(end) for end in (".dat", ".dir", ".bak")],
                folders=True,
            )
            if lock is not None:
                remove_temp_files([directory])
                if created:
                    # dbm.dumb writes .dir only on its first key; readers need it from the start.
                    write_atomically([(self._base.with_suffix(".dir"), b"")])
                _repair_dumb_index(self._base)
            self._shelf = self._open_shelf()
            if created:
                fsync_file(self._base.with_suffix(".dat"))
                self._journal.create()
                fsync_dir(directory)
                write_marker(directory, _FORMAT)
            self._load()
        except BaseException:
            self._journal.close()
            if self._shelf is not None:
                self._shelf.close()
            self._release_lock()
            raise

    # -- opening -----------------------------------------------------------------------------
    def _open_shelf(self) -> _JsonShelf:
        attempt = 1
        while True:
            try:
                return _shelf_at(self._base, "c" if self._lock else "r")
            # dbm.dumb reads each index line as a Python literal and unpacks it as (key,
            # (offset, size)): a line of another shape raises TypeError or ValueError.
            except (OSError, SyntaxError, TypeError, ValueError) as error:
                if self._lock is None and attempt < _READER_RETRIES:
                    time.sleep(0.02 * attempt)
                    attempt += 1
                    continue
                raise StoreCorrupted(
                    f"{self._base.with_suffix('.dir')}: cannot open the dbm.dumb database: {error}"
                ) from None

    def _verify_journal(self, contents: JournalContents) -> None:
        """Raise StoreCorrupted when the journal holds less than the store has committed."""
        assert self._shelf is not None
        keys = [key for key in self._shelf.database if key[:1] == _MARK.encode()]
        if not contents.exists:
            if keys or any(True for _ in self._shelf.database):
                raise StoreCorrupted(
                    f"{self._journal.path} is missing, but records.dat holds records; "
                    "run 'tocsearch check --repair' to rebuild the store from its events"
                )
            return
        # A journal starts with one line; one with none was emptied (or is older than that
        # rule, and then it is empty only while the store holds no record).
        if not contents.batches and not contents.torn and any(True for _ in self._shelf.database):
            raise StoreCorrupted(
                f"{self._journal.path} is empty, but records.dat holds records; "
                "run 'tocsearch check --repair' to rebuild the store from its events"
            )
        if not keys:
            return
        newest = max(keys, key=_key_number).decode()
        try:
            expected = int(self._shelf[newest])
        except Exception as error:
            raise StoreCorrupted(
                f"{self._base.with_suffix('.dat')}: journal size record {newest} is damaged: "
                f"{error}"
            ) from None
        if contents.committed < expected:
            raise StoreCorrupted(
                f"{self._journal.path} holds {contents.committed} bytes of committed batches, "
                f"but the store had committed {expected} bytes before its last batch: "
                "committed lines were lost; run 'tocsearch check --repair' to rebuild the store "
                "from its events"
            )

    def _load(self) -> None:
        contents = self._journal.read()
        self._verify_journal(contents)
        nodes: dict[str, tuple[str, TocLevel, datetime, datetime]] = {}
        grips: dict[str, str] = {}
        events: dict[str, tuple[str, datetime, str]] = {}
        ops_seen = 0
        for number, batch in enumerate(contents.batches, start=1):
            for op in batch:
                ops_seen += 1
                try:
                    self._apply(op, nodes, grips, events)
                except (ValueError, TypeError, IndexError, KeyError):
                    raise StoreCorrupted(
                        f"{self._journal.path}: line {number} holds a malformed operation {op!r}"
                    ) from None
        self._node_keys = {node_id: entry[0] for node_id, entry in nodes.items()}
        self._grip_keys = grips
        self._event_keys = {event_id: entry[0] for event_id, entry in events.items()}
        for node_id, (_, level, start, end) in nodes.items():
            self._node_index.add(node_id, level, start, end)
        for event_id, (_, timestamp, session_id) in events.items():
            self._event_index.add(event_id, timestamp, session_id)
        assert self._shelf is not None
        self._next_key = 1 + max((_key_number(key) for key in self._shelf.database), default=0)
        if self._lock is not None:
            self._journal.open_for_append(contents.committed)
            live = len(nodes) + len(grips) + len(events)
            if ops_seen > 2 * live + 64:
                snapshot = self._snapshot(nodes, grips, events)
                size = encoded_size(snapshot)
                if size <= contents.committed:
                    # Recorded first: the journal is at least this long before the rewrite
                    # and exactly this long after it.
                    self._commit_records([(self._new_key(_MARK), str(size))])
                    self._journal.rewrite(snapshot)

    @staticmethod
    def _apply(
        op: list[Any],
        nodes: dict[str, tuple[str, TocLevel, datetime, datetime]],
        grips: dict[str, str],
        events: dict[str, tuple[str, datetime, str]],
    ) -> None:
        kind, record_id = op[0], op[1]
        if not isinstance(record_id, str):
            raise TypeError(record_id)
        if kind == "n":
            start, end = datetime.fromisoformat(op[4]), datetime.fromisoformat(op[5])
            nodes[record_id] = (str(op[2]), TocLevel(op[3]), start, end)
        elif kind == "-n":
            nodes.pop(record_id, None)
        elif kind == "g":
            grips[record_id] = str(op[2])
        elif kind == "-g":
            grips.pop(record_id, None)
        elif kind == "e":
            events[record_id] = (str(op[2]), datetime.fromisoformat(op[3]), str(op[4]))
        elif kind == "-e":
            events.pop(record_id, None)
        else:
            raise ValueError(kind)

    @staticmethod
    def _snapshot(
        nodes: dict[str, tuple[str, TocLevel, datetime, datetime]],
        grips: dict[str, str],
        events: dict[str, tuple[str, datetime, str]],
    ) -> Batch:
        ops: Batch = [
            ["n", node_id, key, level.value, start.isoformat(), end.isoformat()]
            for node_id, (key, level, start, end) in nodes.items()
        ]
        ops += [["g", grip_id, key] for grip_id, key in grips.items()]
        ops += [
            ["e", event_id, key, timestamp.isoformat(), session_id]
            for event_id, (key, timestamp, session_id) in events.items()
        ]
        return ops

    # -- committing ----------------------------------------------------------------------------
    def _new_key(self, kind: str) -> str:
        key = f"{kind}{self._next_key}"
        self._next_key += 1
        return key

    def _commit(self, records: list[tuple[str, str]], ops: Batch) -> None:
        """Append the records under fresh keys, make them durable, then commit the batch."""
        if records:
            mark = (self._new_key(_MARK), str(self._journal.size()))
            self._commit_records([*records, mark])
        self._journal.append(ops)

    def _commit_records(self, records: list[tuple[str, str]]) -> None:
        """Append values under fresh keys and make them durable (they are not committed yet)."""
        assert self._shelf is not None
        for key, text in records:
            self._shelf[key] = text
        fsync_file(self._base.with_suffix(".dat"))
        fsync_file(self._base.with_suffix(".dir"))

    def _read(self, key: str | None, cls: type[_R], record_id: str) -> _R | None:
        if key is None:
            return None
        assert self._shelf is not None
        where = f"{self._base.with_suffix('.dat')}: {cls.__name__} {record_id!r} (key {key})"
        try:
            text = self._shelf[key]
        except KeyError:
            raise StoreCorrupted(f"{where} is missing from the dbm index") from None
        except Exception as error:  # any failure to unpickle junk means the same thing
            raise StoreCorrupted(f"{where} cannot be unpickled: {error}") from None
        if text == "" and self._lock is None:
            # scrub() blanks versions its writer no longer holds; this reader still held one.
            raise StorageError(
                f"{where} was scrubbed by the store's writer after this reader read the "
                "store: refresh() to read it as it is now"
            )
        try:
            record = from_json(text, cls)
        except Exception as error:
            raise StoreCorrupted(f"{where} is not a readable record: {error}") from None
        found = getattr(record, {TocNode: "node_id", Grip: "grip_id", Event: "event_id"}[cls])
        if found != record_id:
            raise StoreCorrupted(f"{where} holds {found!r} instead")
        return record

    # -- record hooks ----------------------------------------------------------------------------
    def _read_node(self, node_id: str) -> TocNode | None:
        return self._read(self._node_keys.get(node_id), TocNode, node_id)

    def _write_nodes(self, nodes: list[TocNode]) -> None:
        records = [(self._new_key("n"), to_json(node)) for node in nodes]
        ops: Batch = [
            [
                "n",
                node.node_id,
                key,
                node.level.value,
                node.start_time.isoformat(),
                node.end_time.isoformat(),
            ]
            for node, (key, _) in zip(nodes, records, strict=True)
        ]
        self._commit(records, ops)
        for node, (key, _) in zip(nodes, records, strict=True):
            self._node_keys[node.node_id] = key

    def _erase_node(self, node_id: str) -> None:
        self._commit([], [["-n", node_id]])
        self._node_keys.pop(node_id, None)

    def _read_grip(self, grip_id: str) -> Grip | None:
        return self._read(self._grip_keys.get(grip_id), Grip, grip_id)

    def _write_grips(self, grips: list[Grip]) -> None:
        records = [(self._new_key("g"), to_json(grip)) for grip in grips]
        self._commit(
            records,
            [["g", grip.grip_id, key] for grip, (key, _) in zip(grips, records, strict=True)],
        )
        for grip, (key, _) in zip(grips, records, strict=True):
            self._grip_keys[grip.grip_id] = key

    def _erase_grip(self, grip_id: str) -> None:
        if isinstance(grip_id, str) and grip_id in self._grip_keys:
            self._commit([], [["-g", grip_id]])
            del self._grip_keys[grip_id]

    def _grip_ids(self) -> Iterator[str]:
        return iter(list(self._grip_keys))

    def _read_event(self, event_id: str) -> Event | None:
        if self._lock is not None:
            kept = self._recent.get(event_id)
            if kept is not None:
                return kept
        return self._read(self._event_keys.get(event_id), Event, event_id)

    def _write_events(self, events: list[Event]) -> None:
        # Forgotten first: if the write fails, the disk says what the events are.
        self._recent.forget(event.event_id for event in events)
        records = [(self._new_key("e"), to_json(event)) for event in events]
        ops: Batch = [
            ["e", event.event_id, key, event.timestamp.isoformat(), event.session_id]
            for event, (key, _) in zip(events, records, strict=True)
        ]
        self._commit(records, ops)
        for event, (key, _) in zip(events, records, strict=True):
            self._event_keys[event.event_id] = key
        self._recent.remember(events)

    def _erase_events(self, event_ids: list[str]) -> None:
        self._recent.forget(event_ids)
        self._commit([], [["-e", event_id] for event_id in event_ids])
        for event_id in event_ids:
            del self._event_keys[event_id]

    def _scrub(self) -> None:
        assert self._shelf is not None
        places = self._shelf.places
        live = {
            key.encode("utf-8")
            for keys in (self._node_keys, self._grip_keys, self._event_keys)
            for key in keys.values()
        }
        dead = sorted(
            place
            for key, place in places.items()
            if key[:1] in (b"n", b"g", b"e") and key not in live
        )
        if not dead:
            return
        path = self._base.with_suffix(".dat")
        fd = open_file(path, TRUNCATE_FLAGS)  # write in place, never through a link
        try:
            for position, size in dead:
                os.pwrite(fd, _blank(size), position)
            os.fsync(fd)
        finally:
            os.close(fd)

    # -- salvage ---------------------------------------------------------------------------------
    @classmethod
    def salvage(cls, directory: Path) -> Salvage:
        """Every event that can still be read out of ``records.dat``, journal or not (events
        never change, so the newest key of an id holds it), and the event ids its readable
        segments cite. The caller holds the writer lock."""
        found = SalvageBuilder()
        base = directory / "records"
        try:
            refuse_links([base.with_suffix(end) for end in (".dat", ".dir", ".bak")])
            refuse_links([base.with_suffix(end) for end in (".dat", ".dir")], folders=True)
            _repair_dumb_index(base)
            shelf = _shelf_at(base, "r")
        except (OSError, SyntaxError, TypeError, ValueError) as error:
            found.problem(str(base.with_suffix(".dir")), f"cannot open the dbm database: {error}")
            return found.done()
        try:
            keys = sorted(
                (key.decode("utf-8", "replace") for key in shelf.database),
                key=lambda key: _key_number(key.encode()),
            )
            for key in keys:
                if key[:1] not in ("n", "e"):
                    continue
                try:
                    text = shelf[key]
                    if not text:
                        continue  # an old version that scrub() blanked
                    if key[:1] == "e":
                        found.event(from_json(text, Event))
                    else:
                        found.node(from_json(text, TocNode))
                except Exception as error:  # any failure to read junk means the same thing
                    found.problem(f"{base.with_suffix('.dat')} key {key}", error)
        finally:
            shelf.close()
        return found.done()

    # -- lifecycle -------------------------------------------------------------------------------
    def check(self) -> None:
        """Verify the journal, that every committed key is in the dbm index, and that every
        record reads back under its own id.

        Raises:
            StoreCorrupted: naming the first broken record and the file that holds it.
        """
        self._ensure_open()
        with self._file_errors("check the store"):
            self._verify_journal(self._journal.read())
            super().check()

    def _reload(self) -> None:
        assert self._shelf is not None
        self._shelf.close()
        self._shelf = None
        self._journal.close()
        self._recent.clear()
        self._shelf = self._open_shelf()
        self._node_index = type(self._node_index)()
        self._event_index = type(self._event_index)()
        self._load()

    def _release(self) -> None:
        try:
            self._journal.close()
            shelf, self._shelf = self._shelf, None
            if shelf is not None:
                try:
                    shelf.close()
                except OSError:
                    # The shelf's sync failed (its folder gone) before it closed the database,
                    # whose collection would then try again and print the failure: close it
                    # now, quietly, and raise the failure once.
                    with contextlib.suppress(OSError):
                        shelf.database.close()  # type: ignore[attr-defined]
                    raise
                if self._lock is not None:
                    # The close-time rewrite of .dir is not fsynced by dbm.dumb.
                    fsync_file(self._base.with_suffix(".dir"))
                    fsync_dir(self._path)
        finally:
            self._release_lock()
