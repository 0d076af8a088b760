"""Damage that deletes or cuts records is found by the deep check (``tocsearch check``), and
``tocsearch check --repair`` rebuilds the store from the events it still holds: the same tree,
or, where events themselves were lost, a whole tree without them that names what was lost."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests._support.synthetic import history
from tests._support.tree_files import edit_tree

from tocsearch import check_store, repair_store
from tocsearch.cli import main
from tocsearch.errors import StoreCorrupted
from tocsearch.ingest import TocBuilder
from tocsearch.models import Event
from tocsearch.storage.jsondir import JsonDirStorage
from tocsearch.storage.shelf import ShelveStorage

_EVENTS = history(420, seed=11)
Tree = dict[str, tuple[object, ...]]


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _tree(path: Path, backend: str) -> Tree:
    """Every node (without its version, which counts rewrites), grip and event of a store."""
    store_class = JsonDirStorage if backend == "jsondir" else ShelveStorage
    with store_class(path, readonly=True) as store:
        tree: Tree = {}
        for node_id in store.iter_node_ids():
            node = store.get_node(node_id)
            tree[node_id] = (
                node.title,
                node.summary,
                node.child_node_ids,
                node.event_ids,
                node.bullets,
            )
        for grip_id in store.iter_grip_ids():
            tree[grip_id] = (store.get_grip(grip_id),)
        for event in store.get_events():
            tree[event.event_id] = (event,)
    return tree


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Tree]]:
    """One store per backend built from the synthetic history, and its tree."""
    made: dict[str, tuple[Path, Tree]] = {}
    for backend, store_class in (("jsondir", JsonDirStorage), ("shelve", ShelveStorage)):
        path = tmp_path_factory.mktemp(backend) / "store"
        with store_class(path) as store:
            TocBuilder(store).ingest(_EVENTS)
        check_store(path, backend=backend)
        made[backend] = (path, _tree(path, backend))
    return made


def _copy(built: dict[str, tuple[Path, Tree]], backend: str, tmp_path: Path) -> tuple[Path, Tree]:
    source, tree = built[backend]
    path = tmp_path / "store"
    shutil.copytree(source, path, symlinks=True)
    return path, tree


# -- JSON-dir damage ---------------------------------------------------------------------------
def _tree_file(path: Path) -> Path:
    return sorted((path / "months").glob("*.tree.json"))[-1]


def _remove_record(table: str, level: str = "") -> Callable[[Path], None]:
    """Damage that takes one record out of a month's tree file, as if its file were deleted."""

    def remove(body: dict[str, Any]) -> None:
        victim = next(key for key in sorted(body[table]) if level in key)
        del body[table][victim]

    def damage(path: Path) -> None:
        edit_tree(_tree_file(path), remove)

    return damage


def _delete_year_file(path: Path) -> None:
    sorted((path / "years").glob("*.json"))[-1].unlink()


def _remove_an_event_line(path: Path) -> None:
    log = sorted((path / "months").glob("*.events.jsonl"))[-1]
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:3] + lines[4:]))


def _delete_a_month_of_events(path: Path) -> None:
    for name in ("events.jsonl", "index.json"):
        sorted((path / "months").glob(f"*.{name}"))[-1].unlink()


def _delete_months_folder(path: Path) -> None:
    shutil.rmtree(path / "months")


def _truncate_tree_file(path: Path) -> None:
    tree = _tree_file(path)
    tree.write_bytes(tree.read_bytes()[:4000])


def _truncate_events_log(path: Path) -> None:
    log = sorted((path / "months").glob("*.events.jsonl"))[-1]
    log.write_bytes(log.read_bytes()[:-700])


JSONDIR_DAMAGE: dict[str, Callable[[Path], None]] = {
    "segment deleted": _remove_record("nodes", ":segment:"),
    "day deleted": _remove_record("nodes", ":day:"),
    "grip deleted": _remove_record("grips"),
    "year file deleted": _delete_year_file,
    "event line removed": _remove_an_event_line,
    "month of events deleted": _delete_a_month_of_events,
    "months folder deleted": _delete_months_folder,
    "tree file truncated": _truncate_tree_file,
    "events log truncated": _truncate_events_log,
}
LOSES_EVENTS = {
    "event line removed",
    "month of events deleted",
    "months folder deleted",
    "events log truncated",
}


@pytest.mark.parametrize("damage", sorted(JSONDIR_DAMAGE))
def test_jsondir_damage_is_found_by_the_deep_check(
    damage: str, built: dict[str, tuple[Path, Tree]], tmp_path: Path
) -> None:
    """Each kind of damage makes check_store (and `tocsearch check`) report StoreCorrupted."""
    path, _ = _copy(built, "jsondir", tmp_path)
    JSONDIR_DAMAGE[damage](path)
    with pytest.raises(StoreCorrupted):
        check_store(path)
    status, _, err = _run("check", "--store", str(path))
    assert status == 1
    # The advice is a line of its own, not run on after a backslash and an n.
    assert err.splitlines()[-1] == f"repair it with: tocsearch check --repair --store {path}"
    assert "\\n" not in err


@pytest.mark.parametrize("damage", sorted(JSONDIR_DAMAGE))
def test_jsondir_repair_restores_the_tree_from_the_events_kept(
    damage: str, built: dict[str, tuple[Path, Tree]], tmp_path: Path
) -> None:
    """`tocsearch check --repair` leaves a store that passes the deep check and holds the same
    tree; lost events are named, and ingesting their sources again restores the tree exactly."""
    path, before = _copy(built, "jsondir", tmp_path)
    JSONDIR_DAMAGE[damage](path)
    status, out, err = _run("check", "--repair", "--store", str(path), "--json")
    assert status == 0, err
    assert err.startswith("tocsearch: damaged: ")
    assert err.endswith("\n")
    assert "\\n" not in err
    report = json.loads(out)["repaired"]
    check_store(path)
    assert Path(report["damaged_copy"]).is_dir()
    if damage in LOSES_EVENTS:
        missing = set(report["missing_event_ids"])
        assert report["events_recovered"] < len(_EVENTS)
        if damage != "months folder deleted":  # there, no segment is left to name them
            assert report["events_recovered"] == len(_EVENTS) - len(missing)
        with JsonDirStorage(path) as store:
            TocBuilder(store).ingest(_EVENTS)
    else:
        assert report["missing_event_ids"] == []
        assert report["events_recovered"] == len(_EVENTS)
    assert _tree(path, "jsondir") == before


@pytest.mark.parametrize("damage", ["months folder deleted", "year file deleted"])
def test_jsondir_reingest_after_a_deleted_folder_does_not_fail(
    damage: str, built: dict[str, tuple[Path, Tree]], tmp_path: Path
) -> None:
    """A writer puts back a deleted layout folder, so ingesting again works and, where it can
    see what changed, restores the tree."""
    path, before = _copy(built, "jsondir", tmp_path)
    JSONDIR_DAMAGE[damage](path)
    with JsonDirStorage(path) as store:
        TocBuilder(store).ingest(_EVENTS)
    check_store(path)
    assert set(_tree(path, "jsondir")) == set(before)


# -- shelve ------------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", ["deleted", "emptied", "cut in half"])
def test_shelve_repair_rebuilds_from_records_when_the_journal_is_lost(
    damage: str, built: dict[str, tuple[Path, Tree]], tmp_path: Path
) -> None:
    """With its journal lost, a shelve store is rebuilt from the events in records.dat."""
    path, before = _copy(built, "shelve", tmp_path)
    journal = path / "journal.log"
    if damage == "deleted":
        journal.unlink()
    elif damage == "emptied":
        journal.write_bytes(b"")
    else:
        journal.write_bytes(journal.read_bytes()[: journal.stat().st_size // 2])
    status, _, err = _run("check", "--store", str(path), "--backend", "shelve")
    assert status == 1
    assert "journal.log" in err
    report = repair_store(path, backend="shelve")
    assert report.events_recovered == len(_EVENTS)
    assert report.missing_event_ids == ()
    check_store(path, backend="shelve")
    assert _tree(path, "shelve") == before


def test_check_of_a_whole_store_says_ok_and_repair_leaves_it_alone(
    built: dict[str, tuple[Path, Tree]], tmp_path: Path
) -> None:
    """`tocsearch check --repair` on a sound store reports it sound and rebuilds nothing."""
    path, _ = _copy(built, "jsondir", tmp_path)
    status, out, _ = _run("check", "--repair", "--store", str(path), "--json")
    assert status == 0
    assert json.loads(out) == {"ok": True, "store": str(path)}
    assert [entry.name for entry in tmp_path.iterdir()] == ["store"]


def test_events_are_what_a_repair_keeps(tmp_path: Path) -> None:
    """Events put without any tree are all kept by a repair, which then builds their tree."""
    path = tmp_path / "store"
    with JsonDirStorage(path) as store:
        store.put_events(_EVENTS[:50])
    with pytest.raises(StoreCorrupted, match="belongs to no segment"):
        check_store(path)
    report = repair_store(path)
    assert report.events_recovered == 50
    check_store(path)
    with JsonDirStorage(path, readonly=True) as store:
        kept: list[Event] = store.get_events()
    assert kept == sorted(_EVENTS[:50], key=lambda event: event.event_id)
