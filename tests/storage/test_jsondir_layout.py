"""The grouped JSON-dir layout: monthly event logs with offset indexes, tree files by month and
year, their crash and damage rules, and migration from the one-file-per-record layout."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import timedelta
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._support.examples import scaled
from tests._support.first_layout import write_first_layout
from tests._support.storage_helpers import make_event
from tests._support.synthetic import START, history

from tocsearch import check_store, repair_store
from tocsearch.errors import StoreCorrupted
from tocsearch.ingest import TocBuilder
from tocsearch.models import Event
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.memory import InMemoryStorage

_EVENTS = history(300, seed=5)


def _records(store: JsonDirStorage | InMemoryStorage) -> tuple[object, ...]:
    nodes = sorted((store.get_node(node_id) for node_id in store.iter_node_ids()), key=str)
    grips = sorted((store.get_grip(grip_id) for grip_id in store.iter_grip_ids()), key=str)
    return tuple(nodes), tuple(grips), tuple(store.get_events())


@pytest.fixture(scope="module")
def reference() -> InMemoryStorage:
    """The tree of the synthetic history, built in memory."""
    store = InMemoryStorage()
    TocBuilder(store).ingest(_EVENTS)
    return store


def _first_layout_store(path: Path, reference: InMemoryStorage) -> None:
    nodes, grips, events = _records(reference)
    write_first_layout(path, nodes, grips, events)  # type: ignore[arg-type]


@pytest.mark.parametrize("readonly", [False, True])
def test_first_layout_store_is_migrated_when_opened(
    readonly: bool, reference: InMemoryStorage, tmp_path: Path
) -> None:
    """Opening a one-file-per-record store rewrites it in the grouped layout with every record,
    removes the old files, and the result passes the deep check."""
    path = tmp_path / "store"
    _first_layout_store(path, reference)
    with JsonDirStorage(path, readonly=readonly) as store:
        assert _records(store) == _records(reference)
        store.check()
    marker = json.loads((path / "tocsearch-store.json").read_text())
    assert marker == {"format": "tocsearch.jsondir", "version": 2}
    assert sorted(entry.name for entry in path.iterdir()) == [
        ".lock",
        "months",
        "tocsearch-store.json",
        "years",
    ]
    check_store(path)


def test_interrupted_migration_is_done_again_from_the_old_files(
    reference: InMemoryStorage, tmp_path: Path
) -> None:
    """Leftovers of a migration cut off before the marker changed are replaced, not trusted."""
    path = tmp_path / "store"
    _first_layout_store(path, reference)
    (path / "months").mkdir()
    (path / "months" / "2025-12.events.jsonl").write_bytes(b'{"half a migration')
    with JsonDirStorage(path) as store:
        assert _records(store) == _records(reference)
        store.check()


def test_damaged_first_layout_store_is_not_migrated_but_can_be_repaired(
    reference: InMemoryStorage, tmp_path: Path
) -> None:
    """A record of the old layout that cannot be read stops the migration with a pointer to
    the repair, and the repair rebuilds the store in the grouped layout."""
    path = tmp_path / "store"
    _first_layout_store(path, reference)
    next((path / "nodes" / "segment").iterdir()).write_text('{"node_id": ')
    with pytest.raises(StoreCorrupted, match="check --repair"):
        JsonDirStorage(path)
    report = repair_store(path)
    assert report.events_recovered == len(_EVENTS)
    check_store(path)
    with JsonDirStorage(path, readonly=True) as store:
        assert _records(store)[2] == _records(reference)[2]


# -- the monthly event logs -------------------------------------------------------------------
def _log(path: Path, month: str = "2025-12") -> Path:
    return path / "months" / f"{month}.events.jsonl"


def _index(path: Path, month: str = "2025-12") -> Path:
    return path / "months" / f"{month}.index.json"


def _events_store(path: Path, batches: int = 3) -> list[Event]:
    stored: list[Event] = []
    with JsonDirStorage(path) as store:
        for batch in range(batches):
            events = [
                make_event(START + timedelta(hours=batch, minutes=n), f"b{batch}n{n}")
                for n in range(4)
            ]
            store.put_events(events)
            stored += events
    return stored


def test_lines_past_the_index_are_read_by_scanning_the_tail(tmp_path: Path) -> None:
    """A crash after an append and before its index write loses nothing: readers scan the
    lines past the index, and the next writer indexes them."""
    path = tmp_path / "store"
    stored = _events_store(path)
    index_before_last_batch = _index(path).read_bytes()
    with JsonDirStorage(path) as store:
        extra = make_event(START + timedelta(hours=5), "late")
        store.put_events([extra])
    _index(path).write_bytes(index_before_last_batch)
    for readonly in (True, False):
        with JsonDirStorage(path, readonly=readonly) as store:
            assert store.get_events() == sorted([*stored, extra], key=lambda e: e.event_id)
            store.check()


def test_torn_last_line_is_ignored_and_cut_by_the_next_writer(tmp_path: Path) -> None:
    """Half a line at the end of a log (a crash mid-append) is invisible and truncated."""
    path = tmp_path / "store"
    stored = _events_store(path)
    whole = _log(path).read_bytes()
    _log(path).write_bytes(whole + b'{"event_id": "evt:17670')
    with JsonDirStorage(path, readonly=True) as store:
        assert store.get_events() == stored
        store.check()
    with JsonDirStorage(path) as store:
        extra = make_event(START + timedelta(hours=7), "after")
        store.put_events([extra])
        store.check()
    assert _log(path).read_bytes().startswith(whole + b'{"event_id":"' + extra.event_id.encode())


def test_lost_index_is_rebuilt_from_the_log(tmp_path: Path) -> None:
    """The index is a cache of the log: deleting or garbling it loses nothing."""
    path = tmp_path / "store"
    stored = _events_store(path)
    _index(path).write_bytes(b"garbage")
    with JsonDirStorage(path, readonly=True) as store:
        assert store.get_events() == stored
    _index(path).unlink()
    with JsonDirStorage(path) as store:
        assert store.get_events() == stored
        store.check()


@pytest.mark.parametrize(
    "damage",
    ["log cut short", "log deleted", "an id garbled", "a line of another month"],
)
def test_log_damage_is_reported(damage: str, tmp_path: Path) -> None:
    """Damage to an events log is StoreCorrupted, never fewer events."""
    path = tmp_path / "store"
    _events_store(path)
    log = _log(path)
    data = log.read_bytes()
    if damage == "log cut short":
        log.write_bytes(data[: len(data) // 2])
    elif damage == "log deleted":
        log.unlink()
    elif damage == "an id garbled":
        log.write_bytes(data.replace(b'"event_id":"', b'"event_id":"x', 1))
    else:
        other = make_event(START + timedelta(days=40), "far")
        log.write_bytes(data + (json.dumps(attrs.asdict(other), default=str) + "\n").encode())
    with (
        pytest.raises(StoreCorrupted, match=r"events\.jsonl"),
        JsonDirStorage(path, readonly=True) as store,
    ):
        store.check()


def test_replaced_events_are_compacted_away(tmp_path: Path) -> None:
    """Putting events again appends their new lines; once dead lines outweigh live ones the log
    is rewritten without them, and a reader that opened before still reads every event."""
    path = tmp_path / "store"
    event = make_event(START, "again", session="first")
    with JsonDirStorage(path) as store, JsonDirStorage(path, readonly=True) as reader:
        store.put_events([event])
        assert reader.get_event(event.event_id) == event
        padding = "x" * 20_000
        for number in range(80):
            store.put_events([attrs.evolve(event, text=f"{number} {padding}")])
        last = attrs.evolve(event, text="last", session_id="second")
        store.put_events([last])
        store.check()
        assert os.path.getsize(_log(path)) < 2 * 20_100 * 80 // 2
        assert reader.get_event(event.event_id) == last
        assert store.get_session_events("second") == [last]
        assert store.get_session_events("first") == []


# -- tree files ------------------------------------------------------------------------------
def _tree_store(path: Path, reference: InMemoryStorage) -> Path:
    with JsonDirStorage(path) as store:
        nodes, grips, _ = _records(reference)
        store.put_nodes(nodes)  # type: ignore[arg-type]
        store.put_grips(grips)  # type: ignore[arg-type]
    return sorted((path / "months").glob("*.tree.json"))[-1]


def test_tree_file_spans_that_disagree_with_its_records_fail_check(
    reference: InMemoryStorage, tmp_path: Path
) -> None:
    """The spans line is what listings read, so check() refuses one that lies."""
    path = tmp_path / "store"
    tree = _tree_store(path, reference)
    spans, records = tree.read_bytes().splitlines()
    header = json.loads(spans)
    level, rows = next(iter(header["spans"].items()))
    header["spans"][level] = rows[1:]
    tree.write_bytes(json.dumps(header).encode() + b"\n" + records + b"\n")
    with JsonDirStorage(path, readonly=True) as store, pytest.raises(StoreCorrupted, match="spans"):
        store.check()


def test_tree_file_of_one_line_is_read_with_its_spans_worked_out(
    reference: InMemoryStorage, tmp_path: Path
) -> None:
    """A tree file without its spans line (as the first grouped version wrote) reads whole."""
    path = tmp_path / "store"
    tree = _tree_store(path, reference)
    tree.write_bytes(tree.read_bytes().splitlines()[1] + b"\n")
    with JsonDirStorage(path, readonly=True) as store:
        store.check()
        assert _records(store)[:2] == _records(reference)[:2]


@settings(max_examples=scaled(25))
@given(
    batches=st.lists(st.integers(1, 6), min_size=1, max_size=5),
    cut=st.floats(0.0, 1.0),
)
def test_a_crash_between_append_and_index_loses_only_the_unindexed_tail(
    batches: list[int], cut: float
) -> None:
    """Whatever byte a crash stops the last append at, before its index is written, the store
    reopens with every earlier batch and exactly the whole lines of the last one, and passes
    check()."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "store"
        written: list[Event] = []
        with JsonDirStorage(path) as store:
            for number, size in enumerate(batches):
                batch = [
                    make_event(START + timedelta(hours=number, minutes=n), f"b{number}n{n}")
                    for n in range(size)
                ]
                index_before = _index(path).read_bytes() if _index(path).exists() else None
                store.put_events(batch)
                written += batch
        committed = written[: len(written) - batches[-1]]
        # The crash: the last batch's index write never happened, its append stopped at `cut`.
        if index_before is None:
            _index(path).unlink()
        else:
            _index(path).write_bytes(index_before)
        start = json.loads(index_before)["size"] if index_before is not None else 0
        data = _log(path).read_bytes()
        stop = start + int(cut * (len(data) - start))
        _log(path).write_bytes(data[:stop])
        whole_lines = data[start:stop].count(b"\n")
        expected = committed + written[len(committed) : len(committed) + whole_lines]
        for readonly in (True, False):
            with JsonDirStorage(path, readonly=readonly) as store:
                assert store.get_events() == sorted(expected, key=lambda e: e.event_id)
                store.check()
