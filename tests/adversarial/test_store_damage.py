"""Damage done to a store from outside (deleted, emptied, cut or changed files, symbolic links)
is reported as StoreCorrupted, never answered around; nothing is read, written or deleted
through a link inside a store."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.cli import run
from tests._support.examples import scaled
from tests._support.storage_helpers import make_event, make_node

from tocsearch import check_tree, ids
from tocsearch.errors import StorageError, StoreCorrupted
from tocsearch.examples import example_path
from tocsearch.levels import TocLevel
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.shelf import ShelveStorage

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)


def _shelve_store(path: Path) -> None:
    """A shelve store written in several batches, so its journal has several lines."""
    with ShelveStorage(path) as store:
        for batch in range(4):
            when = _T0 + timedelta(hours=batch)
            store.put_events(
                [make_event(when + timedelta(seconds=n), f"b{batch}n{n}") for n in range(3)]
            )
            store.put_node(
                make_node(ids.segment_id(when.date(), f"s{batch}"), TocLevel.SEGMENT, when)
            )


def _delete(journal: Path) -> None:
    journal.unlink()


def _empty(journal: Path) -> None:
    journal.write_bytes(b"")


def _cut_in_half(journal: Path) -> None:
    data = journal.read_bytes()
    journal.write_bytes(data[: len(data) // 2])


def _drop_last_lines(journal: Path) -> None:
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:-3]))


def _change_a_byte_in_the_last_line(journal: Path) -> None:
    data = bytearray(journal.read_bytes())
    assert data.endswith(b"\n")
    start = data.rfind(b"\n", 0, len(data) - 1) + 1
    spot = start + 20
    data[spot] = ord("x") if data[spot] != ord("x") else ord("y")
    journal.write_bytes(bytes(data))


JOURNAL_DAMAGE: dict[str, Callable[[Path], None]] = {
    "deleted": _delete,
    "emptied": _empty,
    "cut in half": _cut_in_half,
    "last lines dropped": _drop_last_lines,
    "a byte changed in the last whole line": _change_a_byte_in_the_last_line,
}


@pytest.mark.parametrize("damage", sorted(JOURNAL_DAMAGE))
@pytest.mark.parametrize("readonly", [False, True])
def test_shelve_journal_damage_is_reported_on_open(
    damage: str, readonly: bool, tmp_path: Path
) -> None:
    """A journal deleted, emptied, cut or changed makes opening raise StoreCorrupted, for a
    writer and for a reader, instead of opening with records missing."""
    path = tmp_path / "store"
    _shelve_store(path)
    JOURNAL_DAMAGE[damage](path / "journal.log")
    with pytest.raises(StoreCorrupted, match=r"journal\.log"):
        ShelveStorage(path, readonly=readonly)


@pytest.mark.parametrize("damage", sorted(JOURNAL_DAMAGE))
def test_shelve_journal_damage_is_reported_by_check(damage: str, tmp_path: Path) -> None:
    """check() on an open store finds journal damage done after it opened."""
    path = tmp_path / "store"
    _shelve_store(path)
    with ShelveStorage(path, readonly=True) as reader:
        reader.check()
        JOURNAL_DAMAGE[damage](path / "journal.log")
        with pytest.raises(StoreCorrupted, match=r"journal\.log"):
            reader.check()


def test_shelve_store_whose_journal_was_compacted_still_opens(tmp_path: Path) -> None:
    """A writer that rewrites a long journal as one snapshot leaves a store that opens, checks
    and holds every record: the rewrite is not mistaken for lost lines."""
    path = tmp_path / "store"
    node_id = ids.segment_id(_T0.date(), "again")
    with ShelveStorage(path) as store:
        for version in range(1, 120):
            store.put_node(make_node(node_id, TocLevel.SEGMENT, _T0, hours=version / 100))
    before = (path / "journal.log").stat().st_size
    with ShelveStorage(path) as store:
        store.check()
    assert (path / "journal.log").stat().st_size < before
    for readonly in (True, False):
        with ShelveStorage(path, readonly=readonly) as store:
            store.check()
            assert store.get_node(node_id).end_time == _T0 + timedelta(hours=1.19)


# -- symbolic links ----------------------------------------------------------------------------
def _jsondir_store(path: Path) -> None:
    with JsonDirStorage(path) as store:
        store.put_events([make_event(_T0, "a", session="s1")])
        store.put_node(make_node(ids.segment_id(_T0.date(), "s"), TocLevel.SEGMENT, _T0))
        store.put_node(make_node(ids.day_id(_T0.date()), TocLevel.DAY, _T0))


def _outside_tree(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


def _replace_with_link(target: Path, outside: Path) -> None:
    """Move ``target`` to ``outside`` and leave a link to it in its place."""
    os.rename(target, outside)
    os.symlink(outside, target)


@pytest.mark.parametrize("folder", ["months", "years"])
@pytest.mark.parametrize("readonly", [False, True])
def test_jsondir_linked_folder_is_refused(folder: str, readonly: bool, tmp_path: Path) -> None:
    """A store folder that is a link to somewhere else stops the store from opening, and
    nothing there is written or deleted."""
    path, outside = tmp_path / "store", tmp_path / "outside"
    _jsondir_store(path)
    _replace_with_link(path / folder, outside)
    (outside / ".left.json.0a0b0c0d.tmp").write_bytes(b"{}")
    before = _outside_tree(outside)
    with pytest.raises(StoreCorrupted, match="symbolic link"):
        JsonDirStorage(path, readonly=readonly)
    assert _outside_tree(outside) == before


def test_jsondir_linked_events_log_is_neither_read_nor_appended_to(tmp_path: Path) -> None:
    """A month's events log that is a link to a file outside is refused by reads, check() and
    writes, and the file outside is left as it was."""
    path, outside = tmp_path / "store", tmp_path / "outside.jsonl"
    _jsondir_store(path)
    log = next((path / "months").glob("*.events.jsonl"))
    _replace_with_link(log, outside)
    before = outside.read_bytes()
    with JsonDirStorage(path) as store:
        with pytest.raises(StoreCorrupted, match="symbolic link"):
            store.get_event(ids.event_id(_T0, "a"))
        with pytest.raises(StoreCorrupted, match="symbolic link"):
            store.check()
        with pytest.raises(StoreCorrupted, match="symbolic link"):
            store.put_events([make_event(_T0 + timedelta(minutes=1), "b", session="s1")])
    assert outside.read_bytes() == before


def test_jsondir_linked_tree_file_is_not_read(tmp_path: Path) -> None:
    """A month's tree file that is a link to a file outside is refused when read and by
    check()."""
    path, outside = tmp_path / "store", tmp_path / "outside.json"
    _jsondir_store(path)
    tree = next((path / "months").glob("*.tree.json"))
    _replace_with_link(tree, outside)
    with JsonDirStorage(path, readonly=True) as store:
        with pytest.raises(StoreCorrupted, match="symbolic link"):
            store.get_node(ids.day_id(_T0.date()))
        with pytest.raises(StoreCorrupted, match="symbolic link"):
            store.check()


def test_jsondir_record_file_that_is_a_folder_is_named(tmp_path: Path) -> None:
    """A month's tree file of an ingested store replaced by a folder is reported as
    StoreCorrupted by check_tree and by a search on the command line, never as a raw
    IsADirectoryError."""
    path = tmp_path / "store"
    status, _, err = run(
        "ingest", str(example_path()), "--store", str(path), "--backend", "jsondir"
    )
    assert status == 0, err
    tree_file = sorted((path / "months").glob("*.tree.json"))[0]
    tree_file.unlink()
    tree_file.mkdir()
    with (
        JsonDirStorage(path, readonly=True) as store,
        pytest.raises(StoreCorrupted, match="is a folder where a record file belongs"),
    ):
        check_tree(store)
    status, _, err = run("search", "-q", "jwt", "--level", "segment", "--store", str(path))
    assert status == 1
    assert f"{tree_file} is a folder where a record file belongs" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("backend", [JsonDirStorage, ShelveStorage])
def test_linked_lock_file_is_refused_and_its_target_never_made(
    backend: type[JsonDirStorage] | type[ShelveStorage], tmp_path: Path
) -> None:
    """A .lock that is a link (even to a missing file) is refused; nothing is created there."""
    path, outside = tmp_path / "store", tmp_path / "made-by-the-lock"
    backend(path).close()
    (path / ".lock").unlink()
    os.symlink(outside, path / ".lock")
    with pytest.raises(StorageError, match="symbolic link"):
        backend(path)
    assert not outside.exists()


@pytest.mark.parametrize("backend", [JsonDirStorage, ShelveStorage])
def test_lock_that_is_a_folder_is_named(
    backend: type[JsonDirStorage] | type[ShelveStorage], tmp_path: Path
) -> None:
    """A .lock that is a folder gives an error that says so."""
    path = tmp_path / "store"
    backend(path).close()
    (path / ".lock").unlink()
    (path / ".lock").mkdir()
    with pytest.raises(StorageError, match="is a folder"):
        backend(path)


@pytest.mark.parametrize("name", ["journal.log", "records.dat", "records.dir"])
def test_shelve_linked_files_are_refused(name: str, tmp_path: Path) -> None:
    """A shelve file replaced by a link to a copy outside is refused on open."""
    path, outside = tmp_path / "store", tmp_path / "outside"
    _shelve_store(path)
    _replace_with_link(path / name, outside)
    for readonly in (False, True):
        with pytest.raises(StoreCorrupted, match="symbolic link"):
            ShelveStorage(path, readonly=readonly)


@pytest.mark.parametrize("name", ["journal.log", "records.dat", "records.dir", "records.bak"])
def test_shelve_file_that_is_a_folder_is_named(name: str, tmp_path: Path) -> None:
    """A shelve file (or the index backup a crash leaves) that is a folder is StoreCorrupted
    naming it, on open for reading or writing, never a raw IsADirectoryError (which moving a
    .bak folder over the index raised) or a store opened without it; a salvage names a records
    file that is a folder, and reads every event past a folder it does not need."""
    path = tmp_path / "store"
    _shelve_store(path)
    target = path / name
    if target.exists():
        target.unlink()
    target.mkdir()
    message = f"{target} is a folder where a record file belongs"
    for readonly in (False, True):
        with pytest.raises(StoreCorrupted, match=re.escape(message)):
            ShelveStorage(path, readonly=readonly)
    salvaged = ShelveStorage.salvage(path)
    if name in ("records.dat", "records.dir"):
        assert salvaged.events == ()
        assert any(message in problem for problem in salvaged.problems), salvaged.problems
    else:
        assert len(salvaged.events) == 12
        assert salvaged.problems == ()
    assert target.is_dir()


@pytest.mark.parametrize("line", [b"1111111\n", b"None\n", b"1.5\n"])
def test_shelve_index_line_of_another_shape_is_reported(line: bytes, tmp_path: Path) -> None:
    """A line of records.dir that reads as a Python literal but not as (key, (offset, size))
    makes opening raise StoreCorrupted and a salvage name the index, never dbm's TypeError."""
    path = tmp_path / "store"
    _shelve_store(path)
    with open(path / "records.dir", "ab") as index:
        index.write(line)
    for readonly in (False, True):
        with pytest.raises(StoreCorrupted, match=re.escape("cannot open the dbm.dumb database")):
            ShelveStorage(path, readonly=readonly)
    salvaged = ShelveStorage.salvage(path)
    assert salvaged.events == ()
    assert any("cannot open the dbm database" in problem for problem in salvaged.problems)


@settings(max_examples=scaled(30))
@given(batches=st.integers(2, 5), cut=st.floats(0.0, 1.0))
def test_any_cut_of_the_shelve_journal_is_a_crash_or_reported(batches: int, cut: float) -> None:
    """A journal cut anywhere inside its last line looks like a crash during that append and
    opens without that batch; cut anywhere earlier, it has lost committed lines and opening
    raises StoreCorrupted. It never opens with an earlier batch missing."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "store"
        sizes: list[int] = []
        with ShelveStorage(path) as store:
            for batch in range(batches):
                when = _T0 + timedelta(hours=batch)
                store.put_events([make_event(when, f"b{batch}")])
                sizes.append((path / "journal.log").stat().st_size)
        journal = path / "journal.log"
        data = journal.read_bytes()
        stop = int(cut * len(data))
        journal.write_bytes(data[:stop])
        if stop >= sizes[-2]:
            with ShelveStorage(path, readonly=True) as store:
                store.check()
                assert store.count_events() == batches - (stop < len(data))
        else:
            with pytest.raises(StoreCorrupted, match=r"journal\.log"):
                ShelveStorage(path, readonly=True)


_TOO_DEEP = {"arrays": b"[" * 100_000, "objects": b'{"a":' * 5_000 + b"1" + b"}" * 5_000}


def _whole(path: Path, nesting: bytes) -> None:
    path.write_bytes(nesting)


def _first_line(path: Path, nesting: bytes) -> None:
    _, _, rest = path.read_bytes().partition(b"\n")
    path.write_bytes(nesting + b"\n" + rest)


def _after_first_line(path: Path, nesting: bytes) -> None:
    first, _, _ = path.read_bytes().partition(b"\n")
    path.write_bytes(first + b"\n" + nesting)


def _appended_line(path: Path, nesting: bytes) -> None:
    path.write_bytes(path.read_bytes() + nesting + b"\n")


# Where a JSON folder store keeps JSON, and how the nesting replaces it: the file (a glob in
# the store) and the edit. The month index is a cache of its log, read again when damaged.
_JSON_PLACES: dict[str, tuple[str, Callable[[Path, bytes], None], bool]] = {
    "store marker": ("tocsearch-store.json", _whole, True),
    "year file": ("years/*.json", _whole, True),
    "month tree spans": ("months/*.tree.json", _first_line, True),
    "month tree records": ("months/*.tree.json", _after_first_line, True),
    "month events log": ("months/*.events.jsonl", _appended_line, True),
    "month events index": ("months/*.index.json", _whole, False),
}


@pytest.fixture(scope="module")
def ingested_jsondir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JSON folder store of the bundled example history, to copy and damage."""
    path = tmp_path_factory.mktemp("jsondir") / "store"
    status, _, err = run(
        "ingest", str(example_path()), "--store", str(path), "--backend", "jsondir"
    )
    assert status == 0, err
    return path


@pytest.mark.parametrize("nesting", sorted(_TOO_DEEP))
@pytest.mark.parametrize("place", sorted(_JSON_PLACES))
def test_jsondir_json_nested_too_deep_is_reported_not_raised(
    ingested_jsondir: Path, tmp_path: Path, place: str, nesting: str
) -> None:
    """JSON in a store file nested deeper than a parser can follow is damage that check
    reports by the file's name (a month's index is read again from its log), and a search
    either answers without the file or reports it the same way; never a RecursionError."""
    path = tmp_path / "store"
    shutil.copytree(ingested_jsondir, path)
    pattern, damage, reported = _JSON_PLACES[place]
    target = sorted(path.glob(pattern))[-1]
    damage(target, _TOO_DEEP[nesting])
    status, _, err = run("check", "--store", str(path))
    assert (status, target.name in err) == ((1, True) if reported else (0, False)), err
    status, _, err = run("search", "JWT refresh", "--store", str(path))
    assert status == 0 or (status == 1 and target.name in err), err
