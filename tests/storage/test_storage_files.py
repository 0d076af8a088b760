"""Behaviour only file-backed stores have: reopening, locking, read-only use, safe file names,
corrupted files and leftovers of interrupted writes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.storage_helpers import FILE_BACKENDS, make_event, make_node, open_file_store
from tests._support.tree_files import edit_tree

from tocsearch import ids
from tocsearch.errors import (
    InvalidArgument,
    NotFound,
    StorageError,
    StoreCorrupted,
    StoreLocked,
    StoreReadOnly,
)
from tocsearch.levels import TocLevel
from tocsearch.models import Grip, TocNode
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.protocol import Storage
from tocsearch.storage.shelf import ShelveStorage

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)


def _node(node_id: str, level: TocLevel, start: datetime = _T0, hours: float = 1) -> TocNode:
    return make_node(node_id, level, start, hours)


_event = make_event


def _grip(suffix: str) -> Grip:
    return Grip(
        grip_id=ids.grip_id(_T0, suffix),
        excerpt="excerpt",
        event_id_start=ids.event_id(_T0, "a"),
        event_id_end=ids.event_id(_T0, "b"),
        timestamp=_T0,
        source="s1",
    )


def _tree(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


@pytest.fixture(params=FILE_BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The name of each file backend."""
    return str(request.param)


# -- reopening -------------------------------------------------------------------------------
def test_reopened_store_holds_every_record(backend: str, tmp_path: Path) -> None:
    """Records, replacements and deletions survive close and reopen."""
    path = tmp_path / "store"
    with open_file_store(backend, path) as store:
        store.put_nodes(
            [_node("toc:year:2026", TocLevel.YEAR), _node("toc:day:2026-01-30", TocLevel.DAY)]
        )
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY, hours=20))
        store.delete_node("toc:year:2026")
        store.put_grips([_grip("a"), _grip("b")])
        store.delete_grip(ids.grip_id(_T0, "b"))
        store.put_events([_event(_T0, "e1"), _event(_T0 + timedelta(seconds=1), "e2", "s2")])
    with open_file_store(backend, path) as store:
        store.check()
        assert store.get_toc_root() == []
        assert store.get_node("toc:day:2026-01-30").end_time == _T0 + timedelta(hours=20)
        assert list(store.iter_grip_ids()) == [ids.grip_id(_T0, "a")]
        assert [event.text for event in store.get_session_events("s2")] == ["text e2"]


def test_events_listed_after_reopen_are_split_by_exact_timestamps(
    backend: str, tmp_path: Path
) -> None:
    """After reopening, a range boundary inside one millisecond still splits events exactly."""
    first = _event(_T0.replace(microsecond=100), "a")
    second = _event(_T0.replace(microsecond=700), "b")
    with open_file_store(backend, tmp_path / "store") as store:
        store.put_events([first, second])
    with open_file_store(backend, tmp_path / "store") as store:
        assert store.get_events(_T0.replace(microsecond=700)) == [second]
        assert store.get_events(None, _T0.replace(microsecond=700)) == [first]


# -- locking and readers ---------------------------------------------------------------------
def test_second_writer_in_the_same_process_is_refused(backend: str, tmp_path: Path) -> None:
    """A second writer object on the same directory gets StoreLocked naming the path."""
    path = tmp_path / "store"
    with open_file_store(backend, path), pytest.raises(StoreLocked, match=re.escape(str(path))):
        open_file_store(backend, path)
    with open_file_store(backend, path):
        pass  # the lock is released on close


def test_second_writer_in_another_process_is_refused(backend: str, tmp_path: Path) -> None:
    """A writer in another process gets StoreLocked while this one holds the store."""
    path = tmp_path / "store"
    script = (
        "import sys\n"
        "from tests._support.storage_helpers import open_file_store\n"
        "from tocsearch.errors import StoreLocked\n"
        "try:\n"
        f"    open_file_store({backend!r}, __import__('pathlib').Path({str(path)!r}))\n"
        "except StoreLocked as error:\n"
        "    print('locked:', error)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    with open_file_store(backend, path):
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
        )
    assert done.stdout.startswith("locked:")
    assert str(path) in done.stdout


def test_reader_sees_durable_records_and_refuses_writes(backend: str, tmp_path: Path) -> None:
    """A read-only store opens beside a writer, refuses writes, and refresh() catches up."""
    path = tmp_path / "store"
    with open_file_store(backend, path) as writer:
        writer.put_node(_node("toc:year:2026", TocLevel.YEAR))
        with open_file_store(backend, path, readonly=True) as reader:
            assert [node.node_id for node in reader.get_toc_root()] == ["toc:year:2026"]
            with pytest.raises(StoreReadOnly, match="read-only"):
                reader.put_node(_node("toc:year:2025", TocLevel.YEAR))
            with pytest.raises(StoreReadOnly, match="read-only"):
                reader.delete_node("toc:year:2026")
            writer.put_node(_node("toc:year:2025", TocLevel.YEAR, _T0 - timedelta(days=400)))
            reader.refresh()
            assert reader.count_nodes() == 2
            reader.check()


def test_a_reader_vouches_for_its_revision_only_where_it_sees_other_writers(
    backend: str, tmp_path: Path
) -> None:
    """A SQLite reader's revision moves when a writer in another process commits, and stays
    while nothing is written; a read-only shelve store answers from what it read when it
    opened, so its revision is its own; a read-only JSON-dir store cannot see such writes
    come, so it vouches for no revision."""
    path = tmp_path / "store"
    with open_file_store(backend, path) as writer:
        writer.put_node(_node("toc:year:2026", TocLevel.YEAR))
    with open_file_store(backend, path, readonly=True) as reader:
        if backend == "jsondir":
            assert reader.revision() is None
            return
        before = reader.revision()
        assert before is not None
        assert reader.revision() == before
        script = (
            "from datetime import datetime, timezone\n"
            "from tests._support.storage_helpers import make_node, open_file_store\n"
            "from tocsearch.levels import TocLevel\n"
            f"with open_file_store({backend!r}, __import__('pathlib').Path({str(path)!r})) as s:\n"
            "    s.put_node(make_node('toc:year:2025', TocLevel.YEAR,"
            " datetime(2025, 1, 1, tzinfo=timezone.utc)))\n"
        )
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
        subprocess.run([sys.executable, "-c", script], env=env, check=True)
        after = reader.revision()
        assert after is not None
        if backend == "shelve":
            # The reader answers as when it opened, until it reads the store again.
            assert after == before
            assert reader.count_nodes() == 1
            reader.refresh()
            after = reader.revision()
            assert after != before
        else:
            assert after != before
        assert reader.count_nodes() == 2
        assert reader.revision() == after


def test_reader_of_a_missing_store_gets_a_clear_error(backend: str, tmp_path: Path) -> None:
    """Opening a store that does not exist read-only names the path."""
    with pytest.raises(StorageError, match="no tocsearch store"):
        open_file_store(backend, tmp_path / "nothing", readonly=True)


def test_a_foreign_directory_is_not_written_into(backend: str, tmp_path: Path) -> None:
    """A non-empty directory that is not a store is refused and left untouched."""
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(StorageError, match="not empty"):
        open_file_store(backend, tmp_path)
    assert _tree(tmp_path) == ["notes.txt"]


def test_one_backend_refuses_the_other_backends_store(tmp_path: Path) -> None:
    """A JSON directory store is not opened as a shelve store, nor the reverse."""
    JsonDirStorage(tmp_path / "json").close()
    ShelveStorage(tmp_path / "shelf").close()
    with pytest.raises(StorageError, match=re.escape("tocsearch.jsondir")):
        ShelveStorage(tmp_path / "json")
    with pytest.raises(StorageError, match=re.escape("tocsearch.shelve")):
        JsonDirStorage(tmp_path / "shelf", readonly=True)


# -- ids never become paths -----------------------------------------------------------------
def test_jsondir_files_are_named_by_periods_never_by_ids(tmp_path: Path) -> None:
    """Records are grouped in files named by month or year, whatever their ids hold."""
    path = tmp_path / "store"
    with JsonDirStorage(path) as store:
        store.put_node(_node(ids.segment_id(_T0.date(), "..:..:etc"), TocLevel.SEGMENT))
        store.put_node(_node("toc:year:2026", TocLevel.YEAR))
        store.put_events([_event(_T0, "Ab..c")])
        store.put_grips([_grip("x.y")])
    assert [name for name in _tree(path) if not name.startswith((".", "tocsearch-"))] == [
        "months",
        "months/2026-01.events.jsonl",
        "months/2026-01.index.json",
        "months/2026-01.tree.json",
        "years",
        "years/2026.json",
    ]


def test_a_long_segment_id_round_trips(backend: str, tmp_path: Path) -> None:
    """A valid id of 200 characters is stored, listed and read back."""
    node = _node(ids.segment_id(_T0.date(), "A" * 200), TocLevel.SEGMENT)
    with open_file_store(backend, tmp_path / "store") as store:
        store.put_node(node)
    with open_file_store(backend, tmp_path / "store") as store:
        assert store.get_nodes_by_level(TocLevel.SEGMENT) == [node]
        assert list(store.iter_node_ids()) == [node.node_id]
        store.check()


_YEAR = _node("toc:year:2026", TocLevel.YEAR)


@pytest.fixture(scope="module", params=FILE_BACKENDS)
def written_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Storage, Path, list[str]]]:
    """A store of each file backend holding one year, its folder, and the paths in that folder
    right after the write. One store serves every drawn id: opening a file store costs far more
    than the lookups, and each draw is checked against the paths as they were written."""
    scratch = tmp_path_factory.mktemp(f"lookups-{request.param}")
    with open_file_store(request.param, scratch / "store") as store:
        store.put_node(_YEAR)
        yield store, scratch, _tree(scratch)


@given(value=st.text(max_size=60) | st.sampled_from(["../../etc/passwd", "..", ".", "a\0b"]))
def test_lookups_of_arbitrary_ids_never_touch_other_paths(
    written_store: tuple[Storage, Path, list[str]], value: str
) -> None:
    """get/find/delete of any string raise only NotFound or InvalidArgument and create nothing."""
    store, scratch, written = written_store
    for call in (store.get_node, store.get_grip, store.get_event, store.get_child_nodes):
        with pytest.raises((NotFound, InvalidArgument)):
            call(value)
    assert store.find_node(value) is None
    assert store.find_grip(value) is None
    assert store.find_event(value) is None
    assert not store.has_event(value)
    assert store.get_session_events(value) == []
    store.delete_grip(value)
    store.delete_node(value)
    assert _tree(scratch) == written
    assert store.find_node(_YEAR.node_id) == _YEAR


# -- damaged files and interrupted writes ------------------------------------------------------
def test_jsondir_junk_tree_file_opens_but_reads_and_check_name_the_file(tmp_path: Path) -> None:
    """A tree file full of junk does not stop opening or reads of other months; reading its
    records and check() name it."""
    path = tmp_path / "store"
    with JsonDirStorage(path) as store:
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
        store.put_node(_node("toc:day:2026-02-02", TocLevel.DAY, _T0 + timedelta(days=3)))
    broken = path / "months" / "2026-01.tree.json"
    broken.write_bytes(b'{"nodes": {"toc:day:2026-01-30": {"lev')
    with JsonDirStorage(path) as store:
        assert store.get_node("toc:day:2026-02-02").title.startswith("title")
        with pytest.raises(StoreCorrupted, match=re.escape(str(broken))):
            store.get_node("toc:day:2026-01-30")
        with pytest.raises(StoreCorrupted, match=re.escape(str(broken))):
            store.check()


def test_jsondir_junk_record_in_a_tree_file_is_named(tmp_path: Path) -> None:
    """A record of a tree file that is not a node names the file and the id."""
    path = tmp_path / "store"
    with JsonDirStorage(path) as store:
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
        store.put_node(_node("toc:day:2026-01-31", TocLevel.DAY, _T0 + timedelta(days=1)))
    tree = path / "months" / "2026-01.tree.json"

    def break_title(body: dict[str, Any]) -> None:
        body["nodes"]["toc:day:2026-01-30"]["title"] = 17

    edit_tree(tree, break_title)
    with JsonDirStorage(path, readonly=True) as store:
        assert store.get_node("toc:day:2026-01-31").title.startswith("title")
        with pytest.raises(StoreCorrupted, match="toc:day:2026-01-30"):
            store.get_node("toc:day:2026-01-30")
        with pytest.raises(StoreCorrupted, match="toc:day:2026-01-30"):
            store.check()


def test_jsondir_record_in_the_wrong_file_fails_check(tmp_path: Path) -> None:
    """A tree file that holds a record of another month is reported."""
    path = tmp_path / "store"
    with JsonDirStorage(path) as store:
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
    months = path / "months"
    (months / "2026-02.tree.json").write_bytes((months / "2026-01.tree.json").read_bytes())
    with JsonDirStorage(path) as store, pytest.raises(StoreCorrupted, match="belongs elsewhere"):
        store.check()


def test_jsondir_stray_file_among_the_records_fails_check(tmp_path: Path) -> None:
    """A file the store did not write, in one of its folders, is reported by check()."""
    path = tmp_path / "store"
    with JsonDirStorage(path) as store:
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
    (path / "months" / "notes.txt").write_text("mine")
    with JsonDirStorage(path) as store, pytest.raises(StoreCorrupted, match=r"notes\.txt"):
        store.check()


def test_shelve_junk_record_opens_but_reads_and_check_name_the_file(tmp_path: Path) -> None:
    """Junk written over a record in records.dat is reported by reads and check()."""
    path = tmp_path / "store"
    with ShelveStorage(path) as store:
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
        store.put_node(_node("toc:day:2026-01-31", TocLevel.DAY, _T0 + timedelta(days=1)))
    with open(path / "records.dat", "r+b") as stream:
        stream.write(b"\x80\x04junk junk junk")
    with ShelveStorage(path) as store:
        assert store.get_node("toc:day:2026-01-31").title.startswith("title")
        with pytest.raises(StoreCorrupted, match=re.escape("records.dat")):
            store.get_node("toc:day:2026-01-30")
        with pytest.raises(StoreCorrupted, match="toc:day:2026-01-30"):
            store.check()


def test_shelve_damaged_journal_line_is_reported_on_open(tmp_path: Path) -> None:
    """A damaged journal line followed by whole ones makes opening raise StoreCorrupted."""
    path = tmp_path / "store"
    with ShelveStorage(path) as store:
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
        store.put_node(_node("toc:day:2026-01-31", TocLevel.DAY))
    journal = path / "journal.log"
    journal.write_bytes(b"0000" + journal.read_bytes()[4:])
    with pytest.raises(StoreCorrupted, match=re.escape("journal.log: line 1")):
        ShelveStorage(path)


def test_torn_journal_tail_is_dropped_and_truncated(tmp_path: Path) -> None:
    """A half-written last journal line is ignored by readers and cut off by the next writer."""
    path = tmp_path / "store"
    with ShelveStorage(path) as store:
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
    journal = path / "journal.log"
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'0badc0de [["n","toc:day:2026-01-3')
    with ShelveStorage(path, readonly=True) as reader:
        assert reader.count_nodes() == 1
    with ShelveStorage(path) as store:
        store.check()
    assert journal.read_bytes() == whole


def test_leftover_temp_files_are_ignored_and_cleaned_by_the_next_writer(
    backend: str, tmp_path: Path
) -> None:
    """Temporary files of an interrupted write are invisible to readers and removed by a writer."""
    path = tmp_path / "store"
    with open_file_store(backend, path) as store:
        store.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
    folder = path / "months" if backend == "jsondir" else path
    leftover = folder / ".2026-01.tree.json.0a1b2c3d.tmp"
    leftover.write_bytes(b'{"half')
    with open_file_store(backend, path, readonly=True) as reader:
        assert list(reader.iter_node_ids()) == ["toc:day:2026-01-30"]
        reader.check()
    assert leftover.exists()
    with open_file_store(backend, path) as store:
        store.check()
    assert not leftover.exists()


def test_jsondir_opening_reads_no_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a JSON directory store and listing the years reads only the year files."""
    path = tmp_path / "store"
    with JsonDirStorage(path) as store:
        store.put_node(_node("toc:year:2026", TocLevel.YEAR))
        store.put_nodes(
            _node(ids.segment_id(_T0.date(), f"s{number}"), TocLevel.SEGMENT) for number in range(5)
        )
        store.put_events([_event(_T0, "a")])
    import tocsearch.storage._files_store as store_module
    import tocsearch.storage._jsondir_events as events_module
    import tocsearch.storage._jsondir_tree as tree_module

    read: list[Path] = []

    def counting(module: object) -> None:
        real = module.read_bytes  # type: ignore[attr-defined]

        def wrapper(target: Path) -> bytes | None:
            read.append(target)
            return real(target)  # type: ignore[no-any-return]

        monkeypatch.setattr(module, "read_bytes", wrapper)

    for module in (events_module, tree_module, store_module):
        counting(module)
    with JsonDirStorage(path, readonly=True) as store:
        assert [node.node_id for node in store.get_toc_root()] == ["toc:year:2026"]
    assert {target.name for target in read} == {"tocsearch-store.json", "2026.json"}


_SHELVE_WRITES = st.lists(
    st.tuples(
        st.sampled_from(["put", "retext", "delete", "node", "unnode", "scrub"]), st.integers(0, 5)
    ),
    min_size=1,
    max_size=10,
)


def _shelve_view(store: ShelveStorage) -> tuple[object, ...]:
    """What a few reads answer, or the StorageError a version scrubbed under a reader raises."""
    try:
        return (
            store.get_events(),
            store.get_nodes_by_level(TocLevel.DAY),
            sorted(store.iter_node_ids()),
            store.count_events(),
            [store.find_event(ids.event_id(_T0 + timedelta(minutes=n), f"e{n}")) for n in range(6)],
        )
    except StorageError as error:
        if "was scrubbed by the store's writer after this reader read the store" not in str(error):
            raise
        return ("scrubbed",)


@settings(max_examples=scaled(20), deadline=None)
@given(writes=_SHELVE_WRITES)
def test_a_shelve_reader_answers_from_one_snapshot_per_revision(
    writes: list[tuple[str, int]],
) -> None:
    """Whatever a writer does (new, changed and deleted events and nodes, a scrub), a
    read-only shelve store keeps its revision and answers every read as when it opened, but
    for a version the writer scrubbed since, whose read says so; after refresh() its revision
    has moved and it answers as the writer's store does."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store"
        writer = ShelveStorage(path)
        try:
            writer.put_events([_event(_T0 + timedelta(minutes=n), f"e{n}") for n in range(3)])
            writer.put_node(_node("toc:day:2026-01-30", TocLevel.DAY))
            with ShelveStorage(path, readonly=True) as reader:
                revision, seen = reader.revision(), _shelve_view(reader)
                scrubbed = False
                for kind, n in writes:
                    when = _T0 + timedelta(minutes=n)
                    event_id = ids.event_id(when, f"e{n}")
                    if kind == "put":
                        writer.put_event(_event(when, f"e{n}"))
                    elif kind == "retext":
                        writer.put_event(attrs.evolve(_event(when, f"e{n}"), text=f"new {n}"))
                    elif kind == "delete" and writer.has_event(event_id):
                        writer.delete_events([event_id])
                    elif kind == "node":
                        writer.put_node(_node(f"toc:day:2026-02-0{n + 1}", TocLevel.DAY))
                    elif kind == "unnode" and writer.find_node("toc:day:2026-01-30"):
                        writer.delete_node("toc:day:2026-01-30")
                    elif kind == "scrub":
                        writer.scrub()
                    assert reader.revision() == revision
                    now = _shelve_view(reader)
                    assert now in (seen, ("scrubbed",))
                    scrubbed = scrubbed or now != seen
                    # Once scrubbed away, a version stays so until the reader reads again.
                    assert now == (("scrubbed",) if scrubbed else seen)
                reader.refresh()
                assert reader.revision() != revision
                assert _shelve_view(reader) == _shelve_view(writer)
        finally:
            writer.close()
