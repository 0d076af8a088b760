"""A store directory that is itself a symbolic link (a data folder kept on another disk) is
read, written, created and repaired through the link, as the docs promise; only links inside a
store are refused."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from tests._support.cli import run
from tests._support.storage_helpers import FILE_BACKENDS, make_event, open_file_store

from tocsearch import check_store, repair_store
from tocsearch.errors import StoreCorrupted
from tocsearch.storage import open_store

_T0 = datetime(2026, 1, 30, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("backend", FILE_BACKENDS)
def test_a_linked_store_directory_is_written_and_read_through_the_link(
    backend: str, tmp_path: Path
) -> None:
    """A writer opened through a link to an existing store writes into it, a reader through
    the link and one at the real path see the same events, and the link stays a link."""
    real, link = tmp_path / "disk" / "store", tmp_path / "store"
    first = [make_event(_T0 + timedelta(minutes=n), f"a{n}") for n in range(3)]
    with open_file_store(backend, real) as store:
        store.put_events(first)
    os.symlink(real, link)
    later = [make_event(_T0 + timedelta(hours=1, minutes=n), f"b{n}") for n in range(3)]
    with open_file_store(backend, link) as store:
        store.put_events(later)
        store.check()
    for path in (link, real):
        with open_store(path, readonly=True) as store:
            assert store.get_events() == first + later
    assert link.is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["disk", "store"]


@pytest.mark.parametrize("backend", FILE_BACKENDS)
@pytest.mark.parametrize("target_exists", [False, True])
def test_a_new_store_is_made_where_a_link_points(
    backend: str, target_exists: bool, tmp_path: Path
) -> None:
    """A store created through a link (to an empty folder, or to none yet) is made at the
    link's target."""
    real, link = tmp_path / "disk" / "store", tmp_path / "store"
    if target_exists:
        real.mkdir(parents=True)
    os.symlink(real, link)
    with open_file_store(backend, link) as store:
        store.put_events([make_event(_T0, "a")])
    with open_store(real, readonly=True) as store:
        assert [event.event_id for event in store.get_events()] == [make_event(_T0, "a").event_id]
    assert link.is_symlink()


@pytest.mark.parametrize("backend", FILE_BACKENDS)
def test_a_link_inside_a_linked_store_is_still_refused(backend: str, tmp_path: Path) -> None:
    """Following the store directory's own link lets no link inside the store through."""
    real, link, outside = tmp_path / "disk" / "store", tmp_path / "store", tmp_path / "outside"
    open_file_store(backend, real).close()
    os.symlink(real, link)
    marker = real / "tocsearch-store.json"
    os.rename(marker, outside)
    os.symlink(outside, marker)
    for readonly in (False, True):
        with pytest.raises(StoreCorrupted, match="symbolic link"):
            open_file_store(backend, link, readonly=readonly)


@pytest.mark.parametrize("backend", FILE_BACKENDS)
def test_ingest_and_repair_work_through_a_linked_store(backend: str, tmp_path: Path) -> None:
    """`tocsearch ingest` and a repair through a link work on the store it points to: the
    damaged copy is kept beside the real store, the rebuilt one takes its place and the link
    still leads to it."""
    real, link = tmp_path / "disk" / "store", tmp_path / "store"
    real.parent.mkdir()
    os.symlink(real, link)
    source = Path(__file__).parents[1] / "importers" / "fixtures" / "events.jsonl"
    status, _, err = run("ingest", str(source), "--store", str(link), "--backend", backend)
    assert status == 0, err
    report = repair_store(link)
    assert report.events_recovered > 0
    assert Path(report.damaged_copy).parent == real.parent
    check_store(link)
    assert link.is_symlink()
    assert os.path.realpath(link) == str(real)
    status, out, err = run("root", "--store", str(link))
    assert status == 0, err
    assert out.startswith("toc:year:")
